import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, describePostgres, type DialectContext } from '../../test/support/databases.js';
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

/** Two connections (pools) to a migrated database of the block: open during its tests, closed after them. */
function twoConnections(ctx: DialectContext): { db: Database; other: Database } {
  const connections = {} as { db: Database; other: Database };
  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'clock.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    connections.db = await ctx.open();
    await migrate(connections.db, loaded.model);
    connections.other = await ctx.open();
  });
  afterAll(async () => {
    await connections.db.close();
    await connections.other.close();
  });
  return connections;
}

describeEachDialect('change clocks', (ctx) => {
  const connections = twoConnections(ctx);

  /** A commit of another process, as its writes make them (guarded where the database has a writer lease). */
  const commitElsewhere = (): Promise<unknown> => {
    const clock = new ChangeClock(connections.other);
    return clock.write((guard) => connections.other.transaction((tx) => clock.bump(tx, ['users'], guard)));
  };

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

  it('a version moves with every commit, whichever of the table\'s clock rows the commit bumped', async () => {
    const shards = [0, 1, 2, 1, 0];
    const clock = new ChangeClock(connections.db, () => shards.shift() ?? 0);
    await clock.stateOf(['users'], 0);
    const seen: number[] = [];
    while (shards.length > 0) {
      const moves = await connections.db.transaction((tx) => clock.bump(tx, ['users'], undefined));
      clock.noteCommitted(moves);
      // What a write left in this instance's snapshot is what another instance reads.
      const here = await clock.stateOf(['users'], 60_000);
      expect(here).toEqual(await new ChangeClock(connections.other).stateOf(['users'], 0));
      seen.push(Number(here.version.split(':')[1]));
    }
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(new Set(seen).size).toBe(5);
  });

  it('revalidations that arrive while a clock read is out share the next read, never that one', async () => {
    const held = withHeldClockReads(connections.db);
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
    const held = withHeldClockReads(connections.db);
    const clock = new ChangeClock(held.db);
    const states = await Promise.all([clock.stateOf(['users'], 0), clock.stateOf(['users'], 0), clock.stateOf(['users'], 0)]);
    expect(held.reads()).toBe(1);
    expect(held.versionLooks()).toBeLessThanOrEqual(1);
    expect(new Set(states.map((state) => state.version)).size).toBe(1);
  });

  it('a failed clock read fails its own callers only; the revalidations queued behind it still get a fresh read', async () => {
    const held = withHeldClockReads(connections.db);
    const start = await new ChangeClock(connections.db).stateOf(['users'], 0);
    const clock = new ChangeClock(held.db);
    const { early } = await readOutThenCommit(clock, held);
    const late = clock.stateOf(['users'], 0);
    held.release(new Error('connection lost'));
    await expect(early).rejects.toThrow('connection lost');
    expect((await late).version).not.toBe(start.version);
  });
});

describePostgres('change clocks split over rows', (ctx) => {
  const connections = twoConnections(ctx);

  it('writes to one table bump different clock rows, so they do not wait for each other to commit', async () => {
    let release = (): void => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let bumped = (): void => undefined;
    const firstBumped = new Promise<void>((resolve) => (bumped = resolve));
    const first = connections.db.transaction(async (tx) => {
      await new ChangeClock(connections.db, () => 1).bump(tx, ['users'], undefined);
      bumped();
      await held;
    });
    await firstBumped;
    /** A write on another connection that gives up at once where it would wait for a lock. */
    const bumpWithoutWaiting = (shard: number): Promise<unknown> =>
      connections.other.transaction(async (tx) => {
        await tx.run(`SET LOCAL lock_timeout = '50ms'`);
        return new ChangeClock(connections.other, () => shard).bump(tx, ['users'], undefined);
      });
    try {
      await expect(bumpWithoutWaiting(2)).resolves.toHaveLength(1);
      // The same row does wait: the first write holds it until it commits.
      await expect(bumpWithoutWaiting(1)).rejects.toThrow();
    } finally {
      release();
      await first;
    }
  });
});

describePostgres('change clocks of a process alone on PostgreSQL', (ctx) => {
  it('revalidations read no clock while it holds the writer lease, and still see the first write of a process that comes later', async () => {
    const loaded = loadSchema([{ file: 'clock.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    const db = await ctx.open();
    await migrate(db, loaded.model);
    const clock = new ChangeClock(db);
    const deadline = Date.now() + 5_000;
    // The lease is taken on a timer: until then every revalidation reads the clocks.
    for (let sent = -1; sent !== db.statementCount; ) {
      if (Date.now() > deadline) throw new Error('the writer lease was not taken within 5 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
      sent = db.statementCount;
      await clock.stateOf(['users'], 0);
    }
    const before = await clock.stateOf(['users'], 0);
    const sent = db.statementCount;
    expect(await clock.stateOf(['users'], 0)).toEqual(before);
    expect(db.statementCount).toBe(sent);

    // Its own write moves its snapshot without a read.
    const moves = await clock.write((guard) => db.transaction((tx) => clock.bump(tx, ['users'], guard)));
    clock.noteCommitted(moves);
    const afterOwn = await clock.stateOf(['users'], 0);
    expect(afterOwn.version).not.toBe(before.version);
    expect(db.statementCount).toBe(sent + 1);

    // Another process's write commits only once this one has stopped answering from memory.
    const other = await ctx.open();
    const otherClock = new ChangeClock(other);
    otherClock.noteCommitted(await otherClock.write((guard) => other.transaction((tx) => otherClock.bump(tx, ['users'], guard))));
    const afterOther = await clock.stateOf(['users'], 0);
    expect(afterOther).toEqual(await otherClock.stateOf(['users'], 0));
    expect(afterOther.version).not.toBe(afterOwn.version);
  });
});
