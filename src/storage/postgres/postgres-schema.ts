import type { SqlRunner } from '../dialect.js';
import { constraintName, indexTerms, isoTimestamp, literalKey } from '../migrate/schema-names.js';
import type { ActualIndex, ColumnChange, ColumnSpec, ColumnType, IndexSpec, SchemaDialect, TableSpec } from '../migrate/schema-spec.js';
import { introspectPostgres } from './introspect-postgres.js';
import { POSTGRES_TYPES, postgresHooks } from './postgres-hooks.js';

/**
 * PostgreSQL's DDL. Every change is an ALTER in place, and DDL is
 * transactional, so a migration commits whole or not at all.
 */

const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const text = (value: string): string => `'${value.replaceAll("'", "''")}'`;

export function createPostgresSchema(
  runMigration: SchemaDialect['runMigration'],
  migrationSession: <T>(work: (session: SqlRunner) => Promise<T>) => Promise<T>,
): SchemaDialect {
  return {
    introspect: (db: SqlRunner) => introspectPostgres(db),
    columnType: (type: ColumnType): string => POSTGRES_TYPES[type],
    checkValues: (column: ColumnSpec) => column.enumValues,
    defaultKey,
    literal,
    createTable,
    createIndex,
    idOrder: postgresHooks.idOrder,
    dropIndex: (index: IndexSpec | ActualIndex): string => `DROP INDEX ${q(index.name)}`,
    dropTable: (name: string): string => `DROP TABLE ${q(name)}`,
    renameTable: (from, to) => [`ALTER TABLE ${q(from)} RENAME TO ${q(to)}`],
    renameColumn: (table, from, to) => [`ALTER TABLE ${q(table)} RENAME COLUMN ${q(from)} TO ${q(to)}`],
    renameIndex: (from, to) => [`ALTER INDEX ${q(from.name)} RENAME TO ${q(to.name)}`],
    renameConstraint: (table, from, to) => [`ALTER TABLE ${q(table)} RENAME CONSTRAINT ${q(from)} TO ${q(to)}`],
    alter,
    rebuild: () => {
      throw new Error('PostgreSQL changes tables in place; it never rebuilds them');
    },
    runMigration,
    withMigrationLock: migrationSession,
    buildIndexesConcurrently: async (session, indexes, onIndex) => {
      for (const [position, index] of indexes.entries()) {
        onIndex(index, position);
        await buildConcurrently(session, index);
      }
    },
    dropIndexConcurrently: async (session, index) => {
      await session.run(`DROP INDEX CONCURRENTLY IF EXISTS ${q(index.name)}`);
    },
  };
}

/**
 * CREATE INDEX CONCURRENTLY: writes go on while it builds. A build that
 * fails leaves an INVALID index behind (still updated by every write, never
 * used): it is dropped, now or, after a crash, by the next migration, which
 * finds it invalid (introspection does not count it) and builds it again.
 */
async function buildConcurrently(session: SqlRunner, index: IndexSpec): Promise<void> {
  const rows = await session.all<{ valid: boolean }>(
    'SELECT ix.indisvalid AS valid FROM pg_index ix JOIN pg_class c ON c.oid = ix.indexrelid WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace',
    [index.name],
  );
  // Another migrator built it while this one waited for the lock.
  if (rows[0]?.valid === true) return;
  if (rows[0] !== undefined) await session.run(`DROP INDEX CONCURRENTLY IF EXISTS ${q(index.name)}`);
  try {
    await session.run(createIndex(index).replace(/^CREATE (UNIQUE )?INDEX /, 'CREATE $1INDEX CONCURRENTLY '));
  } catch (error) {
    await session.run(`DROP INDEX CONCURRENTLY IF EXISTS ${q(index.name)}`).catch(() => undefined);
    throw error;
  }
}

/** `pg_get_expr` text → the canonical key: casts stripped, literals unquoted. */
function defaultKey(raw: string | undefined, type: ColumnType): string | undefined {
  if (raw === undefined) return undefined;
  if (/^nextval\(/.test(raw)) return 'serial';
  if (/^(?:now\(\)|CURRENT_TIMESTAMP|transaction_timestamp\(\)|statement_timestamp\(\))$/i.test(raw)) return 'now';
  const quoted = /^'((?:[^']|'')*)'(?:::[\w ]+(?:\[\])?)*$/s.exec(raw);
  if (quoted !== null) return literalKey((quoted[1] ?? '').replaceAll("''", "'"), type);
  const bare = raw.replace(/(?:::[\w ]+(?:\[\])?)+$/, '').replace(/^\((.*)\)$/, '$1');
  if (/^NULL$/i.test(bare)) return undefined;
  return literalKey(bare, type);
}

function literal(value: unknown, type: ColumnType): string {
  switch (type) {
    case 'Int':
    case 'Float':
    case 'BigInt':
    case 'Serial':
      return String(Number(value));
    case 'Boolean':
      return value === true ? 'true' : 'false';
    case 'JSON':
      return `${text(JSON.stringify(value))}::json`;
    case 'DateTime':
      return `${text(isoTimestamp(value))}::timestamptz`;
    case 'ID':
    case 'String':
      return text(String(value));
  }
}

function defaultSql(column: ColumnSpec): string | undefined {
  if (column.default === undefined) return undefined;
  return column.default.kind === 'now' ? 'now()' : literal(column.default.value, column.type);
}

function checkSql(table: string, column: ColumnSpec): string | undefined {
  if (column.enumValues === undefined) return undefined;
  return `CONSTRAINT ${q(constraintName(table, column.name, 'check'))} CHECK (${q(column.name)} IN (${column.enumValues.map(text).join(', ')}))`;
}

function referenceSql(column: ColumnSpec): string | undefined {
  const ref = column.references;
  if (ref === undefined) return undefined;
  return `CONSTRAINT ${q(ref.name)} FOREIGN KEY (${q(column.name)}) REFERENCES ${q(ref.table)} (${q(ref.column)}) ON DELETE ${ref.onDelete.toUpperCase()}`;
}

/** Name, type, NOT NULL, DEFAULT (constraints are added separately). */
function columnSql(column: ColumnSpec): string {
  if (column.type === 'Serial') return `${q(column.name)} bigserial NOT NULL`;
  const parts = [q(column.name), POSTGRES_TYPES[column.type]];
  if (!column.nullable) parts.push('NOT NULL');
  const fallback = defaultSql(column);
  if (fallback !== undefined) parts.push(`DEFAULT ${fallback}`);
  return parts.join(' ');
}

function createTable(table: TableSpec, deferred: ReadonlySet<string>): { create: string[]; after: string[] } {
  const definitions = table.columns.map(columnSql);
  definitions.push(`CONSTRAINT ${q(constraintName(table.name, table.primaryKey.join('_'), 'pkey'))} PRIMARY KEY (${table.primaryKey.map(q).join(', ')})`);
  const after: string[] = [];
  for (const column of table.columns) {
    const check = checkSql(table.name, column);
    if (check !== undefined) definitions.push(check);
    const reference = referenceSql(column);
    if (reference === undefined) continue;
    if (column.references !== undefined && deferred.has(column.references.table)) after.push(`ALTER TABLE ${q(table.name)} ADD ${reference}`);
    else definitions.push(reference);
  }
  return { create: [`CREATE TABLE ${q(table.name)} (${definitions.join(', ')})`, ...table.indexes.map(createIndex)], after };
}

function createIndex(index: IndexSpec): string {
  // An expression key is written in its own parentheses (PostgreSQL's CREATE INDEX grammar).
  const keys = indexTerms(index, postgresHooks).map((term) => (term.expression ? `(${term.sql})` : term.sql));
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q(index.name)} ON ${q(index.table)} (${keys.join(', ')})`;
}

function alter(table: TableSpec, change: ColumnChange): readonly string[] {
  const t = `ALTER TABLE ${q(table.name)}`;
  switch (change.kind) {
    case 'add': {
      const { column } = change;
      const sql = [`${t} ADD COLUMN ${columnSql(column)}`];
      const check = checkSql(table.name, column);
      if (check !== undefined) sql.push(`${t} ADD ${check}`);
      const reference = referenceSql(column);
      if (reference !== undefined) sql.push(`${t} ADD ${reference}`);
      return sql;
    }
    case 'drop':
      return [`${t} DROP COLUMN ${q(change.column.name)}`];
    case 'type': {
      const { column } = change;
      const c = `${t} ALTER COLUMN ${q(column.name)}`;
      const type = POSTGRES_TYPES[column.type];
      // The old default and check may not fit the new type: take them off, convert, put them back.
      const sql = [`${c} DROP DEFAULT`];
      if (change.from.check !== undefined) sql.push(`${t} DROP CONSTRAINT ${q(change.from.check.name)}`);
      sql.push(`${c} TYPE ${type} USING ${q(column.name)}::${type}`);
      const fallback = defaultSql(column);
      if (fallback !== undefined) sql.push(`${c} SET DEFAULT ${fallback}`);
      const check = checkSql(table.name, column);
      if (check !== undefined) sql.push(`${t} ADD ${check}`);
      return sql;
    }
    case 'nullable': {
      const c = `${t} ALTER COLUMN ${q(change.column.name)}`;
      if (change.column.nullable) return [`${c} DROP NOT NULL`];
      const fallback = defaultSql(change.column);
      // Rows without a value take the default, where there is one, before the column becomes required.
      const fill = fallback === undefined ? [] : [`UPDATE ${q(table.name)} SET ${q(change.column.name)} = ${fallback} WHERE ${q(change.column.name)} IS NULL`];
      return [...fill, `${c} SET NOT NULL`];
    }
    case 'default': {
      const c = `${t} ALTER COLUMN ${q(change.column.name)}`;
      const fallback = defaultSql(change.column);
      return [fallback === undefined ? `${c} DROP DEFAULT` : `${c} SET DEFAULT ${fallback}`];
    }
    case 'check': {
      const name = change.from.check?.name ?? constraintName(table.name, change.column.name, 'check');
      const check = checkSql(table.name, change.column);
      return [`${t} DROP CONSTRAINT IF EXISTS ${q(name)}`, ...(check === undefined ? [] : [`${t} ADD ${check}`])];
    }
    case 'foreignKey': {
      const drop = change.from?.name === undefined ? [] : [`${t} DROP CONSTRAINT ${q(change.from.name)}`];
      const reference = referenceSql(change.column);
      return [...drop, ...(reference === undefined ? [] : [`${t} ADD ${reference}`])];
    }
  }
}
