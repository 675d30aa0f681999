import type { SqlRunner } from '../dialect.js';
import { postgresHooks } from './postgres-hooks.js';

/** Past this many rows a table never analysed is not counted further: the estimate only has to say "large". */
const COUNT_CAP = 1_000_000;

/**
 * Rows in each table, from the planner's own estimate (`pg_class.reltuples`,
 * kept by ANALYZE and autovacuum). A table never analysed (-1) is counted,
 * up to COUNT_CAP rows.
 */
export async function estimatePostgresRows(db: SqlRunner, tables: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (tables.length === 0) return sizes;
  const rows = await db.all<{ name: string; n: number }>(
    'SELECT t.name, c.reltuples::float8 AS n FROM json_array_elements_text($1::json) AS t(name) JOIN pg_class c ON c.oid = to_regclass(quote_ident(t.name))',
    [JSON.stringify(tables)],
  );
  for (const row of rows) {
    let n = row.n;
    if (n < 0) {
      const [counted] = await db.all<{ n: string }>(`SELECT count(*) AS n FROM (SELECT 1 FROM ${postgresHooks.quoteIdent(row.name)} LIMIT ${COUNT_CAP}) s`);
      n = Number(counted?.n ?? 0);
    }
    sizes.set(row.name, Math.round(n));
  }
  return sizes;
}
