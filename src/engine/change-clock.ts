import { randomInt } from 'node:crypto';
import type { Database, SqlRunner } from '../storage/dialect.js';
import { CLOCK_TABLE } from '../storage/migrate/desired-schema.js';


/**
 * Per-table change clocks, kept in the database so every instance sees the
 * same values. A write bumps the clocks of the tables it changed inside its
 * own transaction; a response's validator is derived from the clocks of the
 * tables its plan reads, so a revalidation can be answered without running
 * the plan, and no validator survives a change to the data it covers.
 *
 * Reading the clocks is one tiny statement. Where the database can say
 * cheaply that nobody committed since the last look (SQLite's
 * `data_version`), the cached values are reused without touching the table.
 */
export class ChangeClock {
  private cached: ReadonlyMap<string, number> | undefined;
  private cachedToken: number | undefined;
  private localWrites = 0;
  private cachedAtWrites = -1;

  constructor(private readonly db: Database) {}

  /** Called inside a write transaction: moves the clocks of `tables`. */
  async bump(tx: SqlRunner, tables: readonly string[]): Promise<void> {
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    for (const table of tables) {
      // A clock starts at a random value, so a database recreated from scratch
      // never hands out a validator an old cache already holds for other data.
      await tx.run(
        `INSERT INTO ${q(CLOCK_TABLE)} (${q('table_name')}, ${q('version')}) VALUES (${this.db.sql.placeholder(0)}, ${this.db.sql.placeholder(1)}) ` +
          `ON CONFLICT (${q('table_name')}) DO UPDATE SET ${q('version')} = ${q(CLOCK_TABLE)}.${q('version')} + 1`,
        [table, randomInt(1, 2 ** 40)],
      );
    }
  }

  /** After a local commit: the cache is stale even though `data_version` only counts other connections. */
  noteCommitted(): void {
    this.localWrites++;
  }

  /**
   * A stable text naming the current version of `tables`: `table:version`
   * for each one that has a clock, sorted — the same text a compiled read
   * returns in its `clock` column.
   */
  async versionOf(tables: readonly string[]): Promise<string> {
    const clocks = await this.snapshot();
    return tables
      .filter((table) => clocks.has(table))
      .map((table) => `${table}:${clocks.get(table) ?? 0}`)
      .sort()
      .join(',');
  }

  private async snapshot(): Promise<ReadonlyMap<string, number>> {
    const token = this.db.dataVersion === undefined ? undefined : await this.db.dataVersion();
    if (this.cached !== undefined && token !== undefined && token === this.cachedToken && this.cachedAtWrites === this.localWrites) {
      return this.cached;
    }
    const writesBefore = this.localWrites;
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    const rows = await this.db.all<{ table_name: string; version: number | string }>(
      `SELECT ${q('table_name')}, ${q('version')} FROM ${q(CLOCK_TABLE)}`,
    );
    const clocks = new Map(rows.map((row) => [row.table_name, Number(row.version)]));
    this.cached = clocks;
    this.cachedToken = token;
    this.cachedAtWrites = writesBefore;
    return clocks;
  }
}
