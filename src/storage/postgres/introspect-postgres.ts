import type { SqlRunner } from '../dialect.js';
import { CLOCK_TABLE } from '../migrate/desired-schema.js';
import { expressionKey } from '../migrate/schema-names.js';
import type { ActualCheck, ActualColumn, ActualForeignKey, ActualIndex, ActualSchema, ActualTable } from '../migrate/schema-spec.js';

const q = (name: string): string => `"${name.replaceAll('"', '""')}"`;

/** Ordered attribute names of `keys` (an int2 array) of relation `rel`. */
const attributeNames = (keys: string, rel: string): string =>
  `ARRAY(SELECT a.attname::text FROM unnest(${keys}) WITH ORDINALITY k(attnum, ord) ` +
  `JOIN pg_attribute a ON a.attrelid = ${rel} AND a.attnum = k.attnum ORDER BY k.ord)`;

const IN_SCHEMA = `n.nspname = current_schema()`;

const ON_DELETE: Readonly<Record<string, string>> = { a: 'no action', r: 'restrict', c: 'cascade', n: 'set null', d: 'set default' };

/** Reads the current schema's tables from pg_catalog (one query per kind of object, not per table). */
export async function introspectPostgres(db: SqlRunner): Promise<ActualSchema> {
  const tableRows = await db.all<{ name: string }>(
    `SELECT c.relname AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace ` +
      `WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
  );
  const columnRows = await db.all<{ table_name: string; name: string; type: string; not_null: boolean; default_expr: string | null }>(
    `SELECT c.relname AS table_name, a.attname AS name, format_type(a.atttypid, a.atttypmod) AS type, a.attnotnull AS not_null, ` +
      `pg_get_expr(d.adbin, d.adrelid) AS default_expr ` +
      `FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace ` +
      `LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum ` +
      `WHERE ${IN_SCHEMA} AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped ORDER BY c.relname, a.attnum`,
  );
  const constraintRows = await db.all<{
    table_name: string;
    name: string;
    type: 'p' | 'f' | 'c';
    definition: string;
    columns: string[];
    ref_table: string | null;
    ref_columns: string[];
    on_delete: string;
  }>(
    `SELECT c.relname AS table_name, con.conname AS name, con.contype AS type, pg_get_constraintdef(con.oid) AS definition, ` +
      `${attributeNames('con.conkey', 'con.conrelid')} AS columns, fc.relname AS ref_table, ` +
      `${attributeNames('con.confkey', 'con.confrelid')} AS ref_columns, con.confdeltype AS on_delete ` +
      `FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace ` +
      `LEFT JOIN pg_class fc ON fc.oid = con.confrelid ` +
      `WHERE ${IN_SCHEMA} AND con.contype IN ('p', 'f', 'c') ORDER BY c.relname, con.conname`,
  );
  // Indexes made with CREATE INDEX: not a primary key's, nor one a constraint owns.
  const indexRows = await db.all<{ table_name: string; name: string; is_unique: boolean; columns: string[] }>(
    // Each key as pg_get_indexdef prints it: a column's name, or an expression's text (attnum 0).
    `SELECT t.relname AS table_name, i.relname AS name, ix.indisunique AS is_unique, ` +
      `ARRAY(SELECT CASE WHEN (ix.indkey::int2[])[k.sub] = 0 THEN pg_get_indexdef(ix.indexrelid, k.ord::int, true) ` +
      `ELSE (SELECT a.attname::text FROM pg_attribute a WHERE a.attrelid = ix.indrelid AND a.attnum = (ix.indkey::int2[])[k.sub]) END ` +
      `FROM generate_subscripts(ix.indkey::int2[], 1) WITH ORDINALITY k(sub, ord) ORDER BY k.ord) AS columns ` +
      `FROM pg_index ix JOIN pg_class i ON i.oid = ix.indexrelid JOIN pg_class t ON t.oid = ix.indrelid ` +
      `JOIN pg_namespace n ON n.oid = t.relnamespace ` +
      `WHERE ${IN_SCHEMA} AND ix.indisvalid AND NOT ix.indisprimary AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = ix.indexrelid) ` +
      `ORDER BY t.relname, i.relname`,
  );
  const names = tableRows.map((row) => row.name);
  const hasRows = new Set<string>();
  if (names.length > 0) {
    const probes = await db.all<{ name: string; has_rows: boolean }>(
      names.map((name) => `SELECT ${text(name)}::text AS name, EXISTS (SELECT 1 FROM ${q(name)}) AS has_rows`).join(' UNION ALL '),
    );
    for (const probe of probes) if (probe.has_rows) hasRows.add(probe.name);
  }

  const tables = new Map<string, ActualTable>();
  for (const name of names) {
    const constraints = constraintRows.filter((row) => row.table_name === name);
    const checks = new Map<string, ActualCheck>();
    for (const row of constraints.filter((c) => c.type === 'c')) {
      const column = row.columns[0];
      if (column !== undefined) checks.set(column, { name: row.name, values: stringLiterals(row.definition) });
    }
    const columns: ActualColumn[] = columnRows
      .filter((row) => row.table_name === name)
      .map((row) => ({
        name: row.name,
        type: row.type,
        nullable: !row.not_null,
        defaultRaw: row.default_expr ?? undefined,
        check: checks.get(row.name),
      }));
    const foreignKeys: ActualForeignKey[] = constraints
      .filter((row) => row.type === 'f')
      .map((row) => ({
        name: row.name,
        column: row.columns[0] ?? '',
        table: row.ref_table ?? '',
        refColumn: row.ref_columns[0] ?? 'id',
        onDelete: ON_DELETE[row.on_delete] ?? row.on_delete,
      }));
    const indexes: ActualIndex[] = indexRows
      .filter((row) => row.table_name === name)
      .map((row) => ({ name: row.name, unique: row.is_unique, columns: row.columns.map(expressionKey) }));
    const primaryKey = constraints.find((row) => row.type === 'p')?.columns ?? [];
    tables.set(name, { name, columns, primaryKey, foreignKeys, indexes, hasRows: hasRows.has(name) });
  }

  const clockTables = tables.has(CLOCK_TABLE)
    ? new Set((await db.all<{ table_name: string }>(`SELECT table_name FROM ${q(CLOCK_TABLE)}`)).map((row) => row.table_name))
    : undefined;
  return { tables, clockTables };
}

function text(value: string): string {
  return `'${value.replaceAll("'", "''")}'`;
}

/** `CHECK ((status = ANY (ARRAY['a'::text, 'b'::text])))` → ['a', 'b']. */
function stringLiterals(definition: string): string[] {
  return [...definition.matchAll(/'((?:[^']|'')*)'/g)].map((match) => (match[1] ?? '').replaceAll("''", "'"));
}
