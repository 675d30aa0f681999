import type { SqlRunner } from '../dialect.js';
import { CLOCK_TABLE } from '../migrate/desired-schema.js';
import { expressionKey } from '../migrate/schema-names.js';
import type { ActualColumn, ActualForeignKey, ActualIndex, ActualSchema, ActualTable } from '../migrate/schema-spec.js';
import { readColumnChecks } from './read-create-table.js';

const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Reads the schema from sqlite_schema and the table-valued pragmas. */
export async function introspectSqlite(db: SqlRunner): Promise<ActualSchema> {
  const rows = await db.all<{ name: string; sql: string }>(
    `SELECT name, sql FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`,
  );
  const tables = new Map<string, ActualTable>();
  for (const row of rows) tables.set(row.name, await readTable(db, row.name, row.sql));
  const clockTables = tables.has(CLOCK_TABLE)
    ? new Set((await db.all<{ table_name: string }>(`SELECT table_name FROM ${q(CLOCK_TABLE)}`)).map((r) => r.table_name))
    : undefined;
  return { tables, clockTables };
}

async function readTable(db: SqlRunner, name: string, sql: string): Promise<ActualTable> {
  const info = await db.all<{ name: string; type: string; notnull: number; dflt_value: string | null; pk: number }>(
    'SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?)',
    [name],
  );
  const checks = readColumnChecks(sql);
  const columns: ActualColumn[] = info.map((column) => ({
    name: column.name,
    type: column.type.toUpperCase(),
    nullable: column.notnull === 0,
    defaultRaw: column.dflt_value ?? undefined,
    check: checks.get(column.name),
  }));
  const primaryKey = info
    .filter((column) => column.pk > 0)
    .sort((a, b) => a.pk - b.pk)
    .map((column) => column.name);

  const fks = await db.all<{ from: string; table: string; to: string | null; on_delete: string }>(
    'SELECT "from", "table", "to", on_delete FROM pragma_foreign_key_list(?)',
    [name],
  );
  const foreignKeys: ActualForeignKey[] = fks.map((fk) => ({
    name: undefined,
    column: fk.from,
    table: fk.table,
    refColumn: fk.to ?? 'id',
    onDelete: fk.on_delete.toLowerCase(),
  }));

  const indexList = await db.all<{ name: string; unique: number; origin: string }>(
    'SELECT name, "unique", origin FROM pragma_index_list(?)',
    [name],
  );
  const indexes: ActualIndex[] = [];
  // origin 'c': made by CREATE INDEX (not a primary key's or UNIQUE clause's own index).
  for (const index of indexList.filter((entry) => entry.origin === 'c')) {
    const parts = await db.all<{ name: string | null }>('SELECT name FROM pragma_index_info(?) ORDER BY seqno', [index.name]);
    // An expression key has no name: its text is read from the index's CREATE statement.
    const expressions = parts.some((part) => part.name === null) ? await indexExpressions(db, index.name) : [];
    indexes.push({ name: index.name, unique: index.unique === 1, columns: parts.map((part, i) => part.name ?? expressionKey(expressions[i] ?? '')) });
  }
  indexes.sort((a, b) => a.name.localeCompare(b.name));

  const [probe] = await db.all<{ has_rows: number }>(`SELECT EXISTS (SELECT 1 FROM ${q(name)}) AS has_rows`);
  return { name, columns, primaryKey, foreignKeys, indexes, hasRows: probe?.has_rows === 1 };
}

/** The key texts of an index, from the `CREATE INDEX … ON t (k1, k2)` SQLite keeps: split at the top level's commas. */
async function indexExpressions(db: SqlRunner, name: string): Promise<string[]> {
  const [row] = await db.all<{ sql: string | null }>("SELECT sql FROM sqlite_master WHERE type = 'index' AND name = ?", [name]);
  const sql = row?.sql ?? '';
  const open = sql.indexOf('(', sql.search(/\bON\b/i));
  const keys: string[] = [];
  let depth = 0;
  let start = open + 1;
  for (let i = open + 1; open >= 0 && i < sql.length; i++) {
    const char = sql[i];
    if (char === '(') depth++;
    else if (char === ')' && depth-- === 0) {
      keys.push(sql.slice(start, i));
      break;
    } else if (char === ',' && depth === 0) {
      keys.push(sql.slice(start, i));
      start = i + 1;
    }
  }
  return keys;
}
