import type { SqlRunner } from '../dialect.js';
import { sqliteHooks } from './sqlite-hooks.js';

/**
 * Rows in each table, estimated as its largest rowid: a walk down the
 * table's b-tree, however large (a `count(*)` reads every page, and
 * better-sqlite3 runs it on the event loop). New rows take the largest
 * rowid plus one, so it counts every row; deleted rows below it still count.
 */
export async function estimateSqliteRows(db: SqlRunner, tables: readonly string[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>();
  if (tables.length === 0) return sizes;
  const sql = tables.map((table) => `SELECT ? AS name, (SELECT max(rowid) FROM ${sqliteHooks.quoteIdent(table)}) AS n`).join(' UNION ALL ');
  for (const row of await db.all<{ name: string; n: number | null }>(sql, tables)) sizes.set(row.name, row.n ?? 0);
  return sizes;
}
