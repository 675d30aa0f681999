import type { SchemaSource } from '../../schema/load-schema.js';
import type { Database, SqlRunner } from '../dialect.js';
import { SCHEMAS_TABLE } from './desired-schema.js';

/** A schema as it was applied to a database: what its clients were last served. */
export interface AppliedSchema {
  readonly version: number;
  readonly appliedAt: string;
  /** The model's hash (`Model.hash`): layout and comments do not change it. */
  readonly hash: string;
  readonly sources: readonly SchemaSource[];
  /** Which Diglot applied it (`diglot 0.1.0 on host (pid n)`). */
  readonly appliedBy: string;
}

interface Row {
  version: number | string;
  applied_at: string | Date;
  hash: string;
  sources: string | SchemaSource[];
  applied_by: string;
}

/** The latest schema applied to the database, or undefined when none was recorded (a new database, or one from before the record). */
export async function readAppliedSchema(db: Database): Promise<AppliedSchema | undefined> {
  const exists = await db.schema.introspect(db).then((schema) => schema.tables.has(SCHEMAS_TABLE));
  return exists ? latestAppliedSchema(db, db) : undefined;
}

/** The latest row of the record, which must exist. */
export async function latestAppliedSchema(db: Database, runner: SqlRunner): Promise<AppliedSchema | undefined> {
  const q = (name: string): string => db.sql.quoteIdent(name);
  const rows = await runner.all<Row>(
    `SELECT ${['version', 'applied_at', 'hash', 'sources', 'applied_by'].map(q).join(', ')} FROM ${q(SCHEMAS_TABLE)} ORDER BY ${q('version')} DESC LIMIT 1`,
  );
  const row = rows[0];
  if (row === undefined) return undefined;
  return {
    version: Number(row.version),
    appliedAt: row.applied_at instanceof Date ? row.applied_at.toISOString() : row.applied_at,
    hash: row.hash,
    sources: typeof row.sources === 'string' ? (JSON.parse(row.sources) as SchemaSource[]) : row.sources,
    appliedBy: row.applied_by,
  };
}

/** Records `sources` as the schema now applied, unless it is the latest recorded already. */
export async function recordAppliedSchema(
  db: Database,
  tx: SqlRunner,
  schema: { readonly hash: string; readonly sources: readonly SchemaSource[]; readonly appliedBy: string },
  latest: AppliedSchema | undefined,
): Promise<boolean> {
  if (latest?.hash === schema.hash) return false;
  const q = (name: string): string => db.sql.quoteIdent(name);
  const p = (i: number): string => db.sql.placeholder(i);
  await tx.run(
    `INSERT INTO ${q(SCHEMAS_TABLE)} (${['version', 'applied_at', 'hash', 'sources', 'applied_by'].map(q).join(', ')}) VALUES (${p(0)}, ${p(1)}, ${p(2)}, ${p(3)}, ${p(4)})`,
    [(latest?.version ?? 0) + 1, new Date().toISOString(), schema.hash, JSON.stringify(schema.sources), schema.appliedBy],
  );
  return true;
}
