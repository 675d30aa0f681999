import { ApiError } from '../../errors/api-error.js';
import type { Model } from '../../schema/model.js';
import type { Database, SqlRunner } from '../dialect.js';
import type { SchemaSource } from '../../schema/load-schema.js';
import { latestAppliedSchema, recordAppliedSchema, type AppliedSchema } from './applied-schema.js';
import { desiredSchema, MIGRATIONS_TABLE, SCHEMAS_TABLE } from './desired-schema.js';
import { diffSchema } from './diff-schema.js';
import type { ActualSchema, IndexSpec, MigrationStep, SchemaSpec } from './schema-spec.js';

export interface MigrateProgress {
  readonly step: MigrationStep;
  /** 0-based position of `step`. */
  readonly index: number;
  readonly total: number;
}

export interface MigrateOptions {
  /** Apply steps that drop data or may fail on existing rows. */
  readonly allowDestructive?: boolean;
  /** Compute the steps without applying them (nothing is refused). */
  readonly dryRun?: boolean;
  /** Called before each step runs. */
  readonly onProgress?: (progress: MigrateProgress) => void;
  /** The SDL the model came from, recorded as the schema now applied (when it differs from the latest recorded). */
  readonly record?: { readonly sources: readonly SchemaSource[]; readonly appliedBy: string };
  /**
   * Called, under the migration lock and before any step, with the schema
   * last applied when it differs from the model's; throws to refuse (the
   * client contract check: `server/contract/`).
   */
  readonly guard?: (applied: AppliedSchema) => Promise<void> | void;
}

export interface MigrateResult {
  readonly steps: readonly MigrationStep[];
  /** True when steps ran and were committed. */
  readonly applied: boolean;
  /** True when the schema was recorded as a new applied version. */
  readonly recorded?: boolean;
}

/**
 * Brings the database to the model's schema. The schema is read and the
 * steps are run inside one transaction, under the migration lock (SQLite:
 * the transaction's write lock; PostgreSQL: an advisory lock held until its
 * concurrent index builds end), so two instances starting together cannot
 * both migrate, and a failing step leaves the database as it was. Running
 * it again finds nothing to do.
 */
export async function migrate(db: Database, model: Model, options: MigrateOptions = {}): Promise<MigrateResult> {
  const desired = desiredSchema(model);
  if (options.dryRun === true) {
    const actual = await db.schema.introspect(db);
    const steps = await withCaseDuplicates(db, db, desired, actual, diffSchema(desired, actual, db.schema));
    return { steps, applied: false };
  }
  const locked = db.schema.withMigrationLock;
  if (locked === undefined) return migrateLocked(db, model, desired, options, undefined);
  return locked((session) => migrateLocked(db, model, desired, options, session));
}

async function migrateLocked(db: Database, model: Model, desired: SchemaSpec, options: MigrateOptions, session: SqlRunner | undefined): Promise<MigrateResult> {
  const result = await db.schema.runMigration(async (tx) => {
    const actual = await db.schema.introspect(tx);
    const latest = actual.tables.has(SCHEMAS_TABLE) ? await latestAppliedSchema(db, tx) : undefined;
    if (latest !== undefined && latest.hash !== model.hash) await options.guard?.(latest);
    const steps = await withCaseDuplicates(db, tx, desired, actual, diffSchema(desired, actual, db.schema));
    refuseUnsafe(steps, options.allowDestructive === true);
    for (const [index, step] of steps.entries()) {
      if (step.concurrentIndex !== undefined || step.concurrentDrop !== undefined) continue;
      options.onProgress?.({ step, index, total: steps.length });
      await runStep(tx, step);
    }
    const recorded = options.record === undefined ? {} : { recorded: await recordAppliedSchema(db, tx, { hash: model.hash, ...options.record }, latest) };
    if (steps.length === 0) return { steps, applied: false, ...recorded };
    await recordVersion(db, tx, model.hash, steps);
    return { steps, applied: true, ...recorded };
  });
  if (session !== undefined) await buildConcurrentIndexes(db, session, result.steps, options.onProgress);
  return result;
}

/**
 * The steps that build an index concurrently, after the transaction
 * (PostgreSQL refuses them inside one), then those that drop the indexes
 * they replace.
 */
async function buildConcurrentIndexes(db: Database, session: SqlRunner, steps: readonly MigrationStep[], onProgress: MigrateOptions['onProgress']): Promise<void> {
  const concurrent = steps.filter((step) => step.concurrentIndex !== undefined);
  const build = db.schema.buildIndexesConcurrently;
  if (concurrent.length > 0 && build !== undefined) {
    await build(
      session,
      concurrent.map((step) => step.concurrentIndex as IndexSpec),
      (_index, position) => {
        const step = concurrent[position] as MigrationStep;
        onProgress?.({ step, index: steps.indexOf(step), total: steps.length });
      },
    );
  }
  const drop = db.schema.dropIndexConcurrently;
  for (const step of steps) {
    if (step.concurrentDrop === undefined || drop === undefined) continue;
    onProgress?.({ step, index: steps.indexOf(step), total: steps.length });
    await drop(session, step.concurrentDrop);
  }
}

/** At most this many groups of duplicates are named in a migration's refusal. */
const DUPLICATES_SHOWN = 20;

/**
 * A case-insensitive unique index (an account identifier's) cannot be made
 * while rows hold values equal but for case: its step is blocked, naming
 * each such value's rows by id, so the operator decides which account keeps
 * it. Rows are never merged or changed here.
 */
async function withCaseDuplicates(db: Database, runner: SqlRunner, desired: SchemaSpec, actual: ActualSchema, steps: readonly MigrationStep[]): Promise<MigrationStep[]> {
  const result = [...steps];
  const q = (name: string): string => db.sql.quoteIdent(name);
  for (const table of desired.tables) {
    const existing = actual.tables.get(table.name);
    if (existing === undefined || !existing.hasRows) continue;
    for (const index of table.indexes) {
      if (!index.unique || !index.caseInsensitive) continue;
      const create = db.schema.createIndex(index);
      const at = result.findIndex((step) => step.sql.includes(create) || step.concurrentIndex?.name === index.name);
      const [column] = index.columns;
      const id = table.primaryKey[0];
      if (at === -1 || column === undefined || id === undefined || !existing.columns.some((c) => c.name === column)) continue;
      const folded = db.sql.foldCase(q(column));
      const rows = await runner.all<{ folded: string; id: string }>(
        `SELECT ${folded} AS ${q('folded')}, ${q(id)} AS ${q('id')} FROM ${q(table.name)} ` +
          `WHERE ${folded} IN (SELECT ${folded} FROM ${q(table.name)} GROUP BY ${folded} HAVING count(*) > 1) ORDER BY 1, 2`,
      );
      if (rows.length === 0) continue;
      const groups = new Map<string, string[]>();
      for (const row of rows) groups.set(row.folded, [...(groups.get(row.folded) ?? []), row.id]);
      const named = [...groups].slice(0, DUPLICATES_SHOWN).map(([value, ids]) => `${JSON.stringify(value)} (ids ${ids.join(', ')})`);
      const more = groups.size > DUPLICATES_SHOWN ? ` and ${groups.size - DUPLICATES_SHOWN} more` : '';
      const step = result[at] as MigrationStep;
      const problem =
        `${table.name}.${column} must be unique whatever its case, but ${groups.size} value${groups.size === 1 ? ' is' : 's are'} held by several rows: ` +
        `${named.join('; ')}${more}. Change or delete all but one of each (nothing is merged for you), then migrate again`;
      result[at] = Object.freeze({ ...step, problem: step.problem === undefined ? problem : `${step.problem}; ${problem}` });
    }
  }
  return result;
}

function refuseUnsafe(steps: readonly MigrationStep[], allowDestructive: boolean): void {
  const blocked = steps.filter((step) => step.problem !== undefined);
  if (blocked.length > 0) {
    throw new ApiError('MIGRATION_DESTRUCTIVE', {
      detail: `The migration cannot be applied: ${blocked.map((step) => step.problem).join('; ')}`,
    });
  }
  const destructive = steps.filter((step) => step.destructive);
  if (destructive.length > 0 && !allowDestructive) {
    throw new ApiError('MIGRATION_DESTRUCTIVE', {
      detail:
        `The migration has ${destructive.length} destructive step${destructive.length === 1 ? '' : 's'}: ` +
        `${destructive.map((step) => step.description).join('; ')}. ` +
        '`diglot migrate --dry-run` shows the plan; `diglot migrate --allow-destructive` (with the same --schema and --db) applies it. ' +
        '`serve` and `start` never drop data.',
    });
  }
}

async function runStep(tx: SqlRunner, step: MigrationStep): Promise<void> {
  for (const sql of step.sql) {
    try {
      await tx.run(sql);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new Error(`Migration step "${step.description}" failed: ${reason}`, { cause: error });
    }
  }
}

async function recordVersion(db: Database, tx: SqlRunner, modelHash: string, steps: readonly MigrationStep[]): Promise<void> {
  const q = (name: string): string => db.sql.quoteIdent(name);
  const p = (i: number): string => db.sql.placeholder(i);
  const rows = await tx.all<{ latest: number | null }>(`SELECT max(${q('version')}) AS latest FROM ${q(MIGRATIONS_TABLE)}`);
  const version = (rows[0]?.latest ?? 0) + 1;
  const recorded = steps.map((step) => ({ description: step.description, destructive: step.destructive, sql: step.sql }));
  await tx.run(
    `INSERT INTO ${q(MIGRATIONS_TABLE)} (${q('version')}, ${q('applied_at')}, ${q('model_hash')}, ${q('steps')}) VALUES (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)})`,
    [version, new Date().toISOString(), modelHash, JSON.stringify(recorded)],
  );
}

/** What the database holds now (tables, columns, indexes, constraints, change clocks). */
export function introspect(db: Database): Promise<ActualSchema> {
  return db.schema.introspect(db);
}

/**
 * The steps as text: the plan `diglot migrate --dry-run` shows, or, once
 * `migrated` is true, the report of what was applied (no hint to pass a flag
 * that was passed).
 */
export function formatPlan(steps: readonly MigrationStep[], migrated = false): string {
  if (steps.length === 0) return 'The database already matches the schema: nothing to do.\n';
  const destructive = steps.filter((step) => step.destructive).length;
  const blocked = steps.filter((step) => step.problem !== undefined).length;
  const counts = [`${steps.length} step${steps.length === 1 ? '' : 's'}`];
  if (destructive > 0) counts.push(`${destructive} destructive`);
  if (blocked > 0) counts.push(`${blocked} blocked`);
  const lines = [`${migrated ? 'Applied' : 'Migration plan'}: ${counts.join(', ')}`];
  steps.forEach((step, i) => {
    const marks = [step.destructive ? '[destructive] ' : '', step.problem !== undefined ? '[blocked] ' : ''].join('');
    lines.push(`${String(i + 1).padStart(3)}. ${marks}${step.description}`);
    if (step.problem !== undefined) lines.push(`       problem: ${step.problem}`);
    for (const sql of step.sql) lines.push(`       ${sql}`);
  });
  if (destructive > 0 && !migrated) lines.push('', 'Destructive steps run only with `diglot migrate --allow-destructive`.');
  return `${lines.join('\n')}\n`;
}
