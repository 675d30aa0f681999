import { type Command, InvalidArgumentError } from 'commander';
import { createWebhookAdmin, type WebhookAdmin } from '../events/webhook-admin.js';
import type { Model } from '../schema/model.js';
import type { DeliveryStatus } from '../storage/outbox.js';
import type { Database } from '../storage/dialect.js';
import type { DiglotConfig } from './load-config.js';

interface WebhookCommandContext {
  /** Adds the flags the commands share (schema, database). */
  readonly withCommon: (command: Command) => Command;
  /** The schema files, the database and the configuration file's webhooks, resolved for a command. */
  readonly resolve: (command: Command) => { readonly schema: readonly string[]; readonly db: string; readonly config: DiglotConfig };
  readonly loadModel: (files: readonly string[]) => Promise<Model>;
  readonly withDatabase: (target: string, work: (db: Database) => Promise<void>) => Promise<void>;
  readonly formatTable: (rows: readonly (readonly string[])[]) => string;
  readonly fail: (message: string) => Error;
}

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];

/** `diglot webhooks list|deliveries|retry|replay` (docs/events.md). */
export function registerWebhookCommands(program: Command, ctx: WebhookCommandContext): void {
  const webhooks = program.command('webhooks').description('webhook endpoints (from diglot.config.json) and their deliveries');
  const common = ctx.withCommon;
  const withAdmin = async (command: Command, work: (admin: WebhookAdmin) => Promise<void>): Promise<void> => {
    const { schema, db, config } = ctx.resolve(command);
    const model = await ctx.loadModel(schema);
    await ctx.withDatabase(db, (database) => work(createWebhookAdmin(model, database, config.events)));
  };

  common(webhooks.command('list'))
    .description('the endpoints (the configuration file’s and those added through the admin API), with their deliveries by status')
    .action(async (_options: unknown, command: Command) => {
      await withAdmin(command, async (admin) => {
        const rows = (await admin.list()).map((e) => [e.name, e.url, e.events.join(','), e.paused ? `${e.source}, paused` : e.source, String(e.pending), String(e.delivered), String(e.dead)]);
        if (rows.length === 0) {
          process.stdout.write('no webhooks configured (diglot.config.json, or the admin API)\n');
          return;
        }
        process.stdout.write(ctx.formatTable([['NAME', 'URL', 'EVENTS', 'SOURCE', 'PENDING', 'DELIVERED', 'DEAD'], ...rows]));
      });
    });

  common(webhooks.command('deliveries'))
    .description('the latest deliveries (newest first); with --attempts, each attempt: status code, latency, error')
    .option('--status <status>', `only deliveries in this state (${STATUSES.join(', ')})`, parseStatus)
    .option('--endpoint <name>', 'only this endpoint')
    .option('--limit <n>', 'how many', parseCount, 50)
    .option('--attempts', 'list each delivery’s attempts too', false)
    .action(async (options: { status?: DeliveryStatus; endpoint?: string; limit: number; attempts: boolean }, command: Command) => {
      await withAdmin(command, async (admin) => {
        const found = await admin.deliveries({ status: options.status, endpoint: options.endpoint, limit: options.limit });
        if (found.length === 0) {
          process.stdout.write('no deliveries\n');
          return;
        }
        const rows: string[][] = [['ID', 'EVENT', 'TYPE', 'ENDPOINT', 'STATUS', 'ATTEMPTS', 'LAST CODE', 'NEXT / DONE', 'LAST ERROR']];
        for (const d of found) {
          rows.push([d.id, d.eventId, d.eventType, d.endpoint, d.status, String(d.attempts), d.lastCode === null ? '-' : String(d.lastCode), d.doneAt ?? d.nextAt, d.lastError ?? '']);
          if (options.attempts) {
            for (const a of await admin.attempts(d.id)) {
              rows.push([`  #${a.attempt}`, a.at, a.outcome, '', '', '', a.code === null ? '-' : String(a.code), `${a.latencyMs} ms`, a.error ?? '']);
            }
          }
        }
        process.stdout.write(ctx.formatTable(rows));
      });
    });

  common(webhooks.command('retry'))
    .description('send a delivery again now (a dead one too)')
    .argument('<id>', 'a delivery id (from `diglot webhooks deliveries`)')
    .action(async (id: string, _options: unknown, command: Command) => {
      await withAdmin(command, async (admin) => {
        if (!(await admin.retry(id))) throw ctx.fail(`no delivery has the id ${id}`);
        process.stdout.write(`delivery ${id} will be sent again\n`);
      });
    });

  common(webhooks.command('replay'))
    .description('send again every kept event since a time, to each endpoint that wants it (same event ids: receivers can tell repeats)')
    .requiredOption('--since <time>', 'ISO 8601 time, such as 2026-11-25T10:00:00Z', parseTime)
    .option('--endpoint <name>', 'only to this endpoint')
    .action(async (options: { since: Date; endpoint?: string }, command: Command) => {
      await withAdmin(command, async (admin) => {
        const count = await admin.replay(options.since, options.endpoint);
        process.stdout.write(`${count} deliver${count === 1 ? 'y' : 'ies'} queued\n`);
      });
    });
}

function parseStatus(value: string): DeliveryStatus {
  if (!(STATUSES as readonly string[]).includes(value)) throw new InvalidArgumentError(`must be one of ${STATUSES.join(', ')}`);
  return value as DeliveryStatus;
}

function parseCount(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0 || n > 10_000) throw new InvalidArgumentError('must be a whole number from 1 to 10000');
  return n;
}

function parseTime(value: string): Date {
  const time = new Date(value);
  if (Number.isNaN(time.getTime())) throw new InvalidArgumentError('must be an ISO 8601 time, such as 2026-11-25T10:00:00Z');
  return time;
}
