import type { SqlStatement } from '../storage/compile/compile-write.js';
import type { Database, SqlRunner, SqlValue } from '../storage/dialect.js';
import { clockBumpParams, compileClockBump, compileClockRead } from '../storage/compile/compile-clock.js';
import { CLOCK_SHARD_MARK } from '../storage/migrate/desired-schema.js';
import { LruCache } from '../util/lru-cache.js';

/**
 * Per-table change clocks, kept in the database so every instance sees the
 * same values. A write bumps the clocks of the tables it changed inside its
 * own transaction; a response's validator is derived from the clocks of the
 * tables its plan reads, so a revalidation can be answered without running
 * the plan, and no validator survives a change to the data it covers.
 *
 * Reading the clocks is one tiny statement, made apart from the data
 * statements and *before* them. Where the database can say cheaply that
 * nobody committed since the last look (`Database.dataVersion`), the cached
 * values are reused without touching the table: on SQLite from the
 * WAL-index header, on PostgreSQL while this process holds the writer lease
 * (it is the only Diglot on the database, and other processes' clock moves
 * wait for it to let go: `write` gives them the guard that waits).
 * So a revalidation costs no round trip where one process serves.
 *
 * A revalidation needs the clocks as they are now (`maxAgeMs` 0). A plain
 * read only needs clocks no newer than its data, and may use a snapshot up
 * to `maxAgeMs` old: remembering an ETag under a version the clocks have
 * already left is harmless (that version never comes back, so it is never
 * looked up again), and a `Last-Modified` a moment early only costs a
 * client one full response. What a snapshot may never do is miss a commit
 * of this process: each local commit moves it by the clock values its
 * transaction wrote (or, if it was not current, leaves it to be re-read).
 *
 * Where writes run side by side (PostgreSQL), a table's clock is split over
 * `CLOCK_SHARDS` rows (`users`, `users#1` … `users#15`) and a write bumps
 * one of them, each write the next row in turn: the row stays locked until
 * the write commits, so with one row per table every write to a table
 * waited for the one before it to commit (W6 on PostgreSQL: 548 creates a
 * second against 2,757 for the hand-written server; split, about 1,000).
 * A table's version is the sum of its rows: every commit adds to exactly
 * one of them, so the sum moves with every commit and never comes back to a
 * value it had.
 */
export class ChangeClock {
  private cached: ClockSnapshot | undefined;
  private cachedToken: number | undefined;
  private checkedAt = 0;
  private localWrites = 0;
  private cachedAtWrites = -1;
  /** A refresh under way, shared by the plain reads that arrive meanwhile (never by revalidations). */
  private refreshing: Promise<ClockSnapshot> | undefined;
  /** The last fresh read sent (see `fresh`), until it is back. */
  private freshInFlight: Promise<ClockSnapshot> | undefined;
  /** The fresh read that goes out when `freshInFlight` is back, shared by every revalidation that arrives meanwhile. */
  private freshQueued: Promise<ClockSnapshot> | undefined;
  /** The last state worked out for each compiled read's table list, while the snapshot is the same. */
  private readonly states = new WeakMap<readonly string[], { readonly clocks: ClockSnapshot; readonly state: ClockState }>();

  /** Told the tables of each local commit (live reads; other instances through the database). */
  private readonly committedListeners = new Set<(tables: readonly string[]) => void>();

  private readonly pickShard: () => number;
  /** `bumpSql`'s texts, by first placeholder and guard (a handful: a write carries the one guard or none). */
  private readonly bumpTexts = new LruCache<string, string>(16);
  private readonly readSql: string;

  /** `pickShard` (tests only) chooses the row a write bumps, from 0 to `CLOCK_SHARDS` - 1. */
  constructor(
    private readonly db: Database,
    pickShard?: () => number,
  ) {
    this.readSql = compileClockRead(db.sql);
    const shards = db.supports.concurrentWrites ? CLOCK_SHARDS : 1;
    // In turn, from a random start: the writes one instance has in flight at once land on different rows.
    let next = Math.floor(Math.random() * shards);
    this.pickShard = pickShard ?? (() => (next = (next + 1) % shards));
  }

  /**
   * Runs a write that moves clocks: `work` gets the guard its bumps carry
   * (`Database.clockWrite`), and runs as it is where the database has none.
   */
  write<T>(work: (guard: string | undefined) => Promise<T>): Promise<T> {
    return this.db.clockWrite === undefined ? work(undefined) : this.db.clockWrite(work);
  }

  /** The clock row the next write bumps for each of its tables (see the class comment). */
  nextShard(): number {
    return this.pickShard();
  }

  /**
   * Called inside a write transaction (within `write`, with its `guard`):
   * moves the clocks of `tables`; give the result to `noteCommitted` after COMMIT.
   */
  async bump(tx: SqlRunner, tables: readonly string[], guard: string | undefined): Promise<ClockMove[]> {
    const moves: ClockMove[] = [];
    const shard = this.pickShard();
    // One shard for all the tables, locked in name order: two writes that bump the same rows take them in the same order, so they cannot deadlock.
    for (const table of [...tables].sort()) {
      const statement = this.bumpStatement(table, guard, 0, shard);
      const [row] = await tx.all<ClockRow>(statement.sql, statement.params);
      if (row !== undefined) moves.push(row);
    }
    return moves;
  }

  /**
   * The statement that moves one table's clock and returns where it left it
   * (a `ClockMove`), carrying `guard` (see `write`), with its placeholders
   * numbered from `firstParam`: for a write that runs it as part of a
   * statement of its own.
   */
  bumpStatement(table: string, guard: string | undefined, firstParam = 0, shard = this.pickShard()): SqlStatement {
    return { sql: this.bumpSql(guard, firstParam), params: this.bumpParams(table, new Date().toISOString(), shard) };
  }

  /** `bumpStatement`'s text alone: the same string for the same guard and first placeholder, whatever the table. */
  bumpSql(guard: string | undefined, firstParam = 0): string {
    const key = `${firstParam}\n${guard ?? ''}`;
    const known = this.bumpTexts.get(key);
    if (known !== undefined) return known;
    const sql = compileClockBump(this.db.sql, guard, firstParam);
    this.bumpTexts.set(key, sql);
    return sql;
  }

  /** `bumpStatement`'s params, `now` being the write's time. */
  bumpParams(table: string, now: string, shard = this.pickShard()): SqlValue[] {
    return clockBumpParams(table, now, shard);
  }

  /**
   * After a local commit: a snapshot that was current takes the
   * transaction's clock values, so the plain read that follows a write needs
   * no look at the clock table.
   */
  noteCommitted(moves: readonly ClockMove[]): void {
    const current = this.unchangedHere();
    this.localWrites++;
    if (this.committedListeners.size > 0 && moves.length > 0) {
      const tables = [...new Set(moves.map((move) => tableOfRow(move.table_name)))];
      for (const listener of this.committedListeners) listener(tables);
    }
    if (!current || this.cached === undefined) return;
    const rows = new Map(this.cached.rows);
    for (const move of moves) {
      const version = Number(move.version);
      // Commits on a pool can report out of order; a clock only moves forward.
      if ((rows.get(move.table_name)?.version ?? -Infinity) < version) rows.set(move.table_name, { version, changedAt: move.changed_at ?? undefined });
    }
    this.cached = snapshotOf(rows);
    this.cachedAtWrites = this.localWrites;
  }

  /** Calls `listener` with the tables each commit of this process moved, right after it; returns the function that stops it. */
  onCommitted(listener: (tables: readonly string[]) => void): () => void {
    this.committedListeners.add(listener);
    return () => {
      this.committedListeners.delete(listener);
    };
  }

  /**
   * The state of `tables`: as it is now (`maxAgeMs` 0), or from a snapshot
   * taken at most `maxAgeMs` ago and with no local commit since.
   */
  async stateOf(tables: readonly string[], maxAgeMs = 0): Promise<ClockState> {
    const clocks = await this.snapshot(maxAgeMs);
    const known = this.states.get(tables);
    if (known?.clocks === clocks) return known.state;
    const state = stateFrom(clocks, tables);
    this.states.set(tables, { clocks, state });
    return state;
  }

  /** The clocks as a transaction sees them (a precondition checked under the transaction's lock). */
  async stateIn(tx: SqlRunner, tables: readonly string[]): Promise<ClockState> {
    return stateFrom(await this.readClocks(tx), tables);
  }

  private snapshot(maxAgeMs: number): Promise<ClockSnapshot> {
    if (maxAgeMs === 0) return this.fresh();
    if (this.unchangedHere() && Date.now() - this.checkedAt <= maxAgeMs) return Promise.resolve(this.cached as ClockSnapshot);
    this.refreshing ??= this.refresh().finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /**
   * The clocks as they are now, for a revalidation. "Now" means as of a read
   * sent after the caller arrived: a commit acknowledged before the request
   * came in is then always seen, whichever instance made it. So a caller may
   * share a read that has not been sent yet, never one already under way.
   *
   * A read is sent in the event loop's check phase (`setImmediate`), after
   * the poll phase has read every socket that was ready: every revalidation
   * parsed in that turn shares it, and each of those requests had arrived
   * before it was read from its socket, so before the read. While one read is
   * out, the revalidations that arrive wait for the next. Under load this is
   * group commit in reverse: on PostgreSQL a round trip per batch instead of
   * per request, on SQLite one look at the WAL-index header per turn.
   */
  private fresh(): Promise<ClockSnapshot> {
    if (this.freshQueued !== undefined) return this.freshQueued;
    const previous = this.freshInFlight?.catch(() => undefined) ?? Promise.resolve(undefined);
    const queued = previous.then(nextCheckPhase).then(() => {
      this.freshQueued = undefined;
      const read = this.refresh();
      this.freshInFlight = read;
      const settle = (): void => {
        if (this.freshInFlight === read) this.freshInFlight = undefined;
      };
      read.then(settle, settle);
      return read;
    });
    this.freshQueued = queued;
    return queued;
  }

  private unchangedHere(): boolean {
    return this.cached !== undefined && this.cachedAtWrites === this.localWrites;
  }

  private async refresh(): Promise<ClockSnapshot> {
    const now = Date.now();
    const unchangedHere = this.unchangedHere();
    const token = this.db.dataVersion === undefined ? undefined : await this.db.dataVersion();
    if (unchangedHere && token !== undefined && token === this.cachedToken) {
      this.checkedAt = now;
      return this.cached as ClockSnapshot;
    }
    const writesBefore = this.localWrites;
    const clocks = await this.readClocks(this.db);
    this.cached = clocks;
    this.cachedToken = token;
    this.cachedAtWrites = writesBefore;
    this.checkedAt = now;
    return clocks;
  }

  private async readClocks(runner: SqlRunner): Promise<ClockSnapshot> {
    const rows = await runner.all<ClockRow>(this.readSql);
    return snapshotOf(new Map(rows.map((row) => [row.table_name, { version: Number(row.version), changedAt: row.changed_at ?? undefined }])));
  }
}

/** Rows a table's clock is split over where writes run side by side (see the class comment). */
export const CLOCK_SHARDS = 16;

/** The clock rows, and each table's clock: the sum of its rows' versions, changed when the latest of them changed. */
function snapshotOf(rows: ReadonlyMap<string, Clock>): ClockSnapshot {
  const tables = new Map<string, Clock>();
  for (const [name, row] of rows) {
    const table = tableOfRow(name);
    const sum = tables.get(table);
    if (sum === undefined) {
      tables.set(table, row);
    } else {
      const changedAt = sum.changedAt === undefined || (row.changedAt !== undefined && row.changedAt > sum.changedAt) ? row.changedAt : sum.changedAt;
      tables.set(table, { version: sum.version + row.version, changedAt });
    }
  }
  return { rows, tables };
}

/** The table a clock row counts for (`users#3` → `users`). */
function tableOfRow(name: string): string {
  const mark = name.indexOf(CLOCK_SHARD_MARK);
  return mark === -1 ? name : name.slice(0, mark);
}

const nextCheckPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A row of the clock table (bigint versions may arrive as text). */
interface ClockRow {
  readonly table_name: string;
  readonly version: number | string;
  readonly changed_at: string | null;
}

/** Where a write transaction left one clock row. */
export type ClockMove = ClockRow;

interface Clock {
  readonly version: number;
  readonly changedAt: string | undefined;
}

interface ClockSnapshot {
  /** By row of the clock table. */
  readonly rows: ReadonlyMap<string, Clock>;
  /** By table. */
  readonly tables: ReadonlyMap<string, Clock>;
}

export interface ClockState {
  /** Sorted `table:version` pairs of the tables that have a clock. */
  readonly version: string;
  /** When any of the tables last changed. */
  readonly changedAt: string | undefined;
}

function stateFrom(clocks: ClockSnapshot, tables: readonly string[]): ClockState {
  const pairs: string[] = [];
  let changedAt: string | undefined;
  for (const table of tables) {
    const clock = clocks.tables.get(table);
    if (clock === undefined) continue;
    pairs.push(`${table}:${clock.version}`);
    if (clock.changedAt !== undefined && (changedAt === undefined || clock.changedAt > changedAt)) changedAt = clock.changedAt;
  }
  return { version: pairs.sort().join(','), changedAt };
}
