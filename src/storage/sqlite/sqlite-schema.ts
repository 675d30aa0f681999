import type { SqlRunner } from '../dialect.js';
import { constraintName, indexTerms, isoTimestamp, literalKey } from '../migrate/schema-names.js';
import type {
  ActualIndex,
  ActualSchema,
  ActualTable,
  ColumnChange,
  ColumnSpec,
  ColumnType,
  IndexSpec,
  SchemaDialect,
  TableSpec,
} from '../migrate/schema-spec.js';
import { introspectSqlite } from './introspect-sqlite.js';
import { SQLITE_TYPES, sqliteHooks } from './sqlite-hooks.js';

/**
 * SQLite's DDL. Tables are STRICT (a value of the wrong type is an error, not
 * silently converted); booleans are INTEGER with a 0/1 check; timestamps are
 * ISO-8601 text. SQLite can add a column in place but little else, so every
 * other change rebuilds the table (https://sqlite.org/lang_altertable.html,
 * "Making Other Kinds Of Table Schema Changes").
 */

const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const text = (value: string): string => `'${value.replaceAll("'", "''")}'`;

export function createSqliteSchema(runMigration: SchemaDialect['runMigration']): SchemaDialect {
  return {
    introspect: (db: SqlRunner): Promise<ActualSchema> => introspectSqlite(db),
    columnType: (type: ColumnType): string => SQLITE_TYPES[type],
    checkValues,
    defaultKey,
    literal,
    createTable: (table) => ({ create: [createTableSql(table, table.name), ...table.indexes.map(createIndex)], after: [] }),
    createIndex,
    idOrder: sqliteHooks.idOrder,
    dropIndex: (index: IndexSpec | ActualIndex): string => `DROP INDEX ${q(index.name)}`,
    dropTable: (name: string): string => `DROP TABLE ${q(name)}`,
    // SQLite rewrites the references of other tables, indexes and checks to follow (legacy_alter_table is off).
    renameTable: (from, to) => [`ALTER TABLE ${q(from)} RENAME TO ${q(to)}`],
    renameColumn: (table, from, to) => [`ALTER TABLE ${q(table)} RENAME COLUMN ${q(from)} TO ${q(to)}`],
    renameIndex: (from, to) => [`DROP INDEX ${q(from.name)}`, createIndex(to)],
    // A constraint's name is only text inside CREATE TABLE here, and SQLite never reports a foreign key's or a check's name
    // to a client (enum values are checked before SQL): it follows at the table's next rebuild.
    renameConstraint: () => [],
    alter,
    rebuild,
    runMigration,
  };
}

function checkValues(column: ColumnSpec): readonly string[] | undefined {
  if (column.enumValues !== undefined) return column.enumValues;
  return column.type === 'Boolean' ? ['0', '1'] : undefined;
}

function defaultKey(raw: string | undefined, type: ColumnType): string | undefined {
  if (raw === undefined || raw.toUpperCase() === 'NULL') return undefined;
  if (/'now'|CURRENT_TIMESTAMP/i.test(raw)) return 'now';
  const quoted = /^'((?:[^']|'')*)'$/.exec(raw);
  return literalKey(quoted === null ? raw : (quoted[1] ?? '').replaceAll("''", "'"), type);
}

function literal(value: unknown, type: ColumnType): string {
  switch (type) {
    case 'Int':
    case 'Float':
    case 'BigInt':
    case 'Serial':
      return String(Number(value));
    case 'Boolean':
      return value === true ? '1' : '0';
    case 'JSON':
      return text(JSON.stringify(value));
    case 'DateTime':
      return text(isoTimestamp(value));
    case 'ID':
    case 'String':
      return text(String(value));
  }
}

function defaultSql(column: ColumnSpec): string | undefined {
  if (column.default === undefined) return undefined;
  return column.default.kind === 'now' ? `(${NOW})` : literal(column.default.value, column.type);
}

function columnSql(table: string, column: ColumnSpec): string {
  if (column.type === 'Serial') return `${q(column.name)} INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT`;
  const parts = [q(column.name), SQLITE_TYPES[column.type]];
  if (!column.nullable) parts.push('NOT NULL');
  const fallback = defaultSql(column);
  if (fallback !== undefined) parts.push(`DEFAULT ${fallback}`);
  const allowed = checkValues(column);
  if (allowed !== undefined) {
    const list = column.enumValues !== undefined ? allowed.map(text).join(', ') : allowed.join(', ');
    parts.push(`CONSTRAINT ${q(constraintName(table, column.name, 'check'))} CHECK (${q(column.name)} IN (${list}))`);
  }
  if (column.references !== undefined) {
    const ref = column.references;
    parts.push(`CONSTRAINT ${q(ref.name)} REFERENCES ${q(ref.table)} (${q(ref.column)}) ON DELETE ${ref.onDelete.toUpperCase()}`);
  }
  return parts.join(' ');
}

function createTableSql(table: TableSpec, name: string): string {
  const serial = table.columns.some((column) => column.type === 'Serial');
  const definitions = table.columns.map((column) => columnSql(table.name, column));
  if (!serial) definitions.push(`PRIMARY KEY (${table.primaryKey.map(q).join(', ')})`);
  return `CREATE TABLE ${q(name)} (${definitions.join(', ')}) STRICT`;
}

function createIndex(index: IndexSpec): string {
  const keys = indexTerms(index, sqliteHooks).map((term) => term.sql);
  return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${q(index.name)} ON ${q(index.table)} (${keys.join(', ')})`;
}

/** Only ADD COLUMN, and only what SQLite allows there: a constant default, and NULL as the default of a reference. */
function alter(table: TableSpec, change: ColumnChange): readonly string[] | undefined {
  if (change.kind !== 'add') return undefined;
  const { column } = change;
  const constantDefault = column.default === undefined || column.default.kind === 'value';
  const fillable = column.nullable || column.default !== undefined;
  const referenceOk = column.references === undefined || column.default === undefined;
  if (column.type === 'Serial' || !constantDefault || !fillable || !referenceOk) return undefined;
  return [`ALTER TABLE ${q(table.name)} ADD COLUMN ${columnSql(table.name, column)}`];
}

/**
 * The 12-step rebuild, steps 4–10 (the driver's runMigration does 1–3 and
 * 11–12: foreign keys off, one transaction, foreign_key_check, commit):
 * create the new shape under a temporary name, copy the rows over
 * (converting types, filling defaults into columns that become required),
 * drop the old table, rename, recreate the indexes.
 */
function rebuild(table: TableSpec, actual: ActualTable): readonly string[] {
  const temporary = `_diglot_rebuild_${table.name}`;
  const existing = new Map(actual.columns.map((column) => [column.name, column]));
  const copied = table.columns.filter((column) => existing.has(column.name));
  const values = copied.map((column) => {
    const from = existing.get(column.name);
    let value = q(column.name);
    if (from !== undefined && from.type !== SQLITE_TYPES[column.type]) value = `CAST(${value} AS ${SQLITE_TYPES[column.type]})`;
    const fallback = column.default?.kind === 'now' ? NOW : defaultSql(column);
    if (from?.nullable === true && !column.nullable && fallback !== undefined) value = `coalesce(${value}, ${fallback})`;
    return value;
  });
  const copy =
    copied.length === 0
      ? []
      : [`INSERT INTO ${q(temporary)} (${copied.map((column) => q(column.name)).join(', ')}) SELECT ${values.join(', ')} FROM ${q(table.name)}`];
  return [
    createTableSql(table, temporary),
    ...copy,
    `DROP TABLE ${q(table.name)}`,
    `ALTER TABLE ${q(temporary)} RENAME TO ${q(table.name)}`,
    ...table.indexes.map(createIndex),
  ];
}
