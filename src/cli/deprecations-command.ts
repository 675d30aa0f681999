import { type Command, InvalidArgumentError } from 'commander';
import { deprecationReport, type DeprecationReportRow } from '../engine/deprecation-report.js';
import type { Model } from '../schema/model.js';
import type { Database } from '../storage/dialect.js';

interface DeprecationsCommandContext {
  /** Adds the flags the command shares with others (schema, database). */
  readonly withCommon: (command: Command) => Command;
  readonly resolve: (command: Command) => { readonly schema: readonly string[]; readonly db: string };
  readonly loadModel: (files: readonly string[]) => Promise<Model>;
  readonly withDatabase: (target: string, work: (db: Database) => Promise<void>) => Promise<void>;
  readonly formatTable: (rows: readonly (readonly string[])[]) => string;
  readonly fail: (message: string) => Error;
}

/** `diglot deprecations`: each deprecated thing of the schema, who still uses it, and whether it can go (docs/tasks.md). */
export function registerDeprecationsCommand(program: Command, ctx: DeprecationsCommandContext): void {
  ctx
    .withCommon(program.command('deprecations'))
    .description('each deprecated field, type, argument and enum value, its uses per client and when last seen; unused ones first')
    .option('--quiet-days <n>', 'call a thing unused when nobody used it for this many days', parseDays, 30)
    .option('--json', 'print the report as JSON, for scripts', false)
    .action(async (flags: { quietDays: number; json: boolean }, command: Command) => {
      const { schema, db } = ctx.resolve(command);
      const model = await ctx.loadModel(schema);
      await ctx.withDatabase(db, async (database) => {
        const report = await deprecationReport(model, database, flags.quietDays).catch((error: unknown) => {
          throw ctx.fail(`cannot read the counts of deprecated use (${error instanceof Error ? error.message : String(error)}): run \`diglot migrate\` (or \`serve\`) on this database first`);
        });
        if (flags.json) {
          process.stdout.write(`${JSON.stringify({ quietDays: flags.quietDays, deprecations: report }, null, 2)}\n`);
          return;
        }
        if (report.length === 0) {
          process.stdout.write('nothing in the schema is deprecated\n');
          return;
        }
        const header = ['DEPRECATED', 'KIND', 'SINCE', 'SUNSET', 'USES', 'LAST SEEN', `UNUSED ${flags.quietDays}D`, 'CLIENTS', 'REASON'];
        process.stdout.write(ctx.formatTable([header, ...report.map(rowOf)]));
      });
    });
}

function rowOf(row: DeprecationReportRow): string[] {
  const clients = row.clients.map((client) => `${client.client} (${client.caller}) ${client.uses}`).join(', ');
  return [row.coordinate, row.kind, row.since ?? '-', row.sunset ?? '-', String(row.uses), row.lastSeen ?? 'never', row.quiet ? 'yes' : 'no', clients === '' ? '-' : clients, row.reason];
}

function parseDays(value: string): number {
  const days = Number(value);
  if (!Number.isInteger(days) || days < 0) throw new InvalidArgumentError('a whole number of days, 0 or more');
  return days;
}
