import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Database, SqlValue } from '../storage/dialect.js';
import { migrate } from '../storage/migrate/migrate.js';
import { ChangeClock, type ClockState } from './change-clock.js';

const SDL = 'type User { id: ID!  name: String! }';

/**
 * The database, with one change: while `holding` is set, a read of the clock
 * table comes back only when it is released. The read itself has run, so
 * what it returns is the clocks as they were *before* anything committed
 * while it was held: a round trip that is slow to come back (or, given a
 * failure on release, one that fails).
 */
function withHeldClockReads(db: Database): {
  db: Database;
  hold(): void;
  release(failure?: Error): void;
  reads(): number;
  /** Looks at `dataVersion` (SQLite's WAL-index header), which can stand in for a read. */
  versionLooks(): number;
  sent(): Promise<void>;
} {
  let gate: Promise<Error | undefined> | undefined;
  let open = (_failure: Error | undefined): void => undefined;
  let reads = 0;
  let versionLooks = 0;
  const dataVersion = db.dataVersion;
  const countedDataVersion =
    dataVersion === undefined
      ? undefined
      : (): Promise<number> => {
          versionLooks++;
          return dataVersion();
        };
  let onSent = (): void => undefined;
  const all = async <Row,>(sql: string, params?: readonly SqlValue[]): Promise<Row[]> => {
    const rows = await db.all<Row>(sql, params);
    if (!sql.includes('_diglot_clock')) return rows;
    reads++;
    onSent();
    const failure = gate === undefined ? undefined : await gate;
    if (failure !== undefined) throw failure;
    return rows;
  };
  const wrapped = new Proxy(db, {
    get(target, key) {
      if (key === 'all') return all;
      if (key === 'dataVersion') return countedDataVersion;
      const value: unknown = Reflect.get(target, key, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return {
    db: wrapped,
    hold: () => {
      gate = new Promise((resolve) => (open = resolve));
    },
    release: (failure) => {
      gate = undefined;
      open(failure);
    },
    reads: () => reads,
    versionLooks: () => versionLooks,
    sent: () => new Promise((resolve) => (onSent = resolve)),
  };
}

describeEachDialect('change clocks', (ctx) => {
  let db: Database;
  let other: Database;

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'clock.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    db = await ctx.open();
    await migrate(db, loaded.model);
    other = await ctx.open();
  });
  afterAll(async () => {
    await db.close();
    await other.close();
  });

  const commitElsewhere = (): Promise<unknown> => other.run(`UPDATE _diglot_clock SET version = version + 1 WHERE table_name = 'users'`);

  /** A revalidation whose clock read has run but is not back yet, and a commit made after that read ran: only reads sent from now on can see it. */
  async function readOutThenCommit(clock: ChangeClock, held: ReturnType<typeof withHeldClockReads>): Promise<{ early: Promise<ClockState> }> {
    held.hold();
    const sent = held.sent();
    const early = clock.stateOf(['users'], 0);
    await sent;
    await commitElsewhere();
    // Wrapped: an async function returning the promise itself would wait for it.
    return { early };
  }

  it('revalidations that arrive while a clock read is out share the next read, never that one', async () => {
    const held = withHeldClockReads(db);
    const clock = new ChangeClock(held.db);
    const { early } = await readOutThenCommit(clock, held);
    const late = [clock.stateOf(['users'], 0), clock.stateOf(['users'], 0), clock.stateOf(['users'], 0)];
    held.release();

    const before = await early;
    const after = await Promise.all(late);
    expect(after.map((state) => state.version)).toEqual([after[0]?.version, after[0]?.version, after[0]?.version]);
    expect(after[0]?.version).not.toBe(before.version);
    expect(held.reads()).toBe(2);

    // Once the batch is back, the next revalidation sends a read of its own.
    await commitElsewhere();
    const next = await clock.stateOf(['users'], 0);
    expect(next.version).not.toBe(after[0]?.version);
    expect(held.reads()).toBe(3);
  });

  it('revalidations asked in the same event-loop turn share one read, sent after the last of them', async () => {
    const held = withHeldClockReads(db);
    const clock = new ChangeClock(held.db);
    const states = await Promise.all([clock.stateOf(['users'], 0), clock.stateOf(['users'], 0), clock.stateOf(['users'], 0)]);
    expect(held.reads()).toBe(1);
    expect(held.versionLooks()).toBeLessThanOrEqual(1);
    expect(new Set(states.map((state) => state.version)).size).toBe(1);
  });

  it('a failed clock read fails its own callers only; the revalidations queued behind it still get a fresh read', async () => {
    const held = withHeldClockReads(db);
    const start = await new ChangeClock(db).stateOf(['users'], 0);
    const clock = new ChangeClock(held.db);
    const { early } = await readOutThenCommit(clock, held);
    const late = clock.stateOf(['users'], 0);
    held.release(new Error('connection lost'));
    await expect(early).rejects.toThrow('connection lost');
    expect((await late).version).not.toBe(start.version);
  });
});
