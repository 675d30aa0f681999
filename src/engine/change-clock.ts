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
  private cached: ReadonlyMap<string, { readonly version: number; readonly changedAt: string | undefined }> | undefined;
  private cachedToken: number | undefined;
  private localWrites = 0;
  private cachedAtWrites = -1;

  constructor(private readonly db: Database) {}

  /** Called inside a write transaction: moves the clocks of `tables`. */
  async bump(tx: SqlRunner, tables: readonly string[]): Promise<void> {
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    const now = new Date().toISOString();
    for (const table of tables) {
      // A clock starts at a random value, so a database recreated from scratch
      // never hands out a validator an old cache already holds for other data.
      const p = (i: number): string => this.db.sql.placeholder(i);
      await tx.run(
        `INSERT INTO ${q(CLOCK_TABLE)} (${q('table_name')}, ${q('version')}, ${q('changed_at')}) VALUES (${p(0)}, ${p(1)}, ${p(2)}) ` +
          `ON CONFLICT (${q('table_name')}) DO UPDATE SET ${q('version')} = ${q(CLOCK_TABLE)}.${q('version')} + 1, ${q('changed_at')} = ${p(3)}`,
        [table, randomInt(1, 2 ** 40), now, now],
      );
    }
  }

  /** After a local commit: the cache is stale even though `data_version` only counts other connections. */
  noteCommitted(): void {
    this.localWrites++;
  }

  /**
   * The current state of `tables` from one look at the clocks: `version`,
   * a stable text of `table:version` pairs (sorted; only tables that have a
   * clock) — the same text a compiled read returns in its `clock` column —
   * and when any of them last changed.
   */
  async stateOf(tables: readonly string[]): Promise<{ readonly version: string; readonly changedAt: string | undefined }> {
    const clocks = await this.snapshot();
    const pairs: string[] = [];
    let changedAt: string | undefined;
    for (const table of tables) {
      const clock = clocks.get(table);
      if (clock === undefined) continue;
      pairs.push(`${table}:${clock.version}`);
      if (clock.changedAt !== undefined && (changedAt === undefined || clock.changedAt > changedAt)) changedAt = clock.changedAt;
    }
    return { version: pairs.sort().join(','), changedAt };
  }

  private async snapshot(): Promise<NonNullable<ChangeClock['cached']>> {
    const token = this.db.dataVersion === undefined ? undefined : await this.db.dataVersion();
    if (this.cached !== undefined && token !== undefined && token === this.cachedToken && this.cachedAtWrites === this.localWrites) {
      return this.cached;
    }
    const writesBefore = this.localWrites;
    const q = (name: string): string => this.db.sql.quoteIdent(name);
    const rows = await this.db.all<{ table_name: string; version: number | string; changed_at: string | null }>(
      `SELECT ${q('table_name')}, ${q('version')}, ${q('changed_at')} FROM ${q(CLOCK_TABLE)}`,
    );
    const clocks = new Map(rows.map((row) => [row.table_name, { version: Number(row.version), changedAt: row.changed_at ?? undefined }]));
    this.cached = clocks;
    this.cachedToken = token;
    this.cachedAtWrites = writesBefore;
    return clocks;
  }
}
