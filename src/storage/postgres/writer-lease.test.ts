import pg from 'pg';
import { expect, it } from 'vitest';
import { describePostgres } from '../../../test/support/databases.js';
import type { Database } from '../dialect.js';
import { CLOCK_GUARD } from './writer-lease.js';

/** Polls `check` until it holds; a lease changes hands on a timer and on notifications, not at a call's return. */
async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 8_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Two looks at the data version give the same number: the process holds the lease. */
async function holds(db: Database): Promise<boolean> {
  const version = db.dataVersion as () => Promise<number>;
  return (await version()) === (await version());
}

/** A connection that is not a Diglot process: takes the guard's lock, giving up after 100 ms. */
async function guardWithoutWaiting(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(`SET LOCAL lock_timeout = '100ms'`);
    await client.query(`SELECT 1 ${CLOCK_GUARD}`);
    await client.query('COMMIT');
  } finally {
    await client.end();
  }
}

/** A clock move as a Diglot process makes it: through `clockWrite`, its bump carrying the guard it is given. */
function moveClock(db: Database): Promise<unknown> {
  return (db.clockWrite as NonNullable<Database['clockWrite']>)((guard) =>
    db.transaction(async (tx) => {
      await tx.run('CREATE TABLE IF NOT EXISTS lease_clock (name text PRIMARY KEY, version bigint NOT NULL)');
      const row = guard === undefined ? 'VALUES ($1, 1)' : `SELECT $1, 1 ${guard}`;
      await tx.run(`INSERT INTO lease_clock (name, version) ${row} ON CONFLICT (name) DO UPDATE SET version = lease_clock.version + 1`, ['users']);
    }),
  );
}

describePostgres('the writer lease', (ctx) => {
  it('a process alone takes the lease: its data version stays put, and a guarded write elsewhere waits', async () => {
    const db = await ctx.open();
    await eventually('the lease is taken', () => holds(db));
    const sent = db.statementCount;
    const version = await db.dataVersion?.();
    for (let i = 0; i < 5; i++) expect(await db.dataVersion?.()).toBe(version);
    // Knowing that nobody else commits costs no statement.
    expect(db.statementCount).toBe(sent);
    await expect(guardWithoutWaiting(ctx.url)).rejects.toThrow(/lock timeout/);

    await db.close();
    await guardWithoutWaiting(ctx.url);
  });

  it("a process's own writes go unguarded while it holds the lease, and are not held up", async () => {
    const db = await ctx.open();
    await eventually('the lease is taken', () => holds(db));
    await moveClock(db);
    await moveClock(db);
    expect(await holds(db)).toBe(true);
    await db.close();
  });

  it('a second process makes the holder let go before its first clock move commits, and the lease comes back when it leaves', async () => {
    const first = await ctx.open();
    await eventually('the lease is taken', () => holds(first));
    const held = await first.dataVersion?.();

    const second = await ctx.open();
    await moveClock(second);
    // The second process's write committed, so the first no longer answers from memory: every look is a new number.
    expect(await holds(first)).toBe(false);
    expect(await first.dataVersion?.()).not.toBe(held);
    // Nor does either take the lease while the other is there.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await holds(first)).toBe(false);
    expect(await holds(second)).toBe(false);

    await second.close();
    await eventually('the lease is taken again', () => holds(first));
    expect(await first.dataVersion?.()).not.toBe(held);
    await first.close();
  });

  it('a holder whose lease connection is cut stops answering from memory, then takes the lease again', async () => {
    const db = await ctx.open();
    await eventually('the lease is taken', () => holds(db));
    const held = await db.dataVersion?.();
    const admin = new pg.Client({ connectionString: ctx.url });
    await admin.connect();
    try {
      const { rows } = await admin.query<{ cut: boolean }>(
        `SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity WHERE application_name = 'diglot-writer-lease' AND datname = current_database()`,
      );
      expect(rows.map((row) => row.cut)).toEqual([true]);
    } finally {
      await admin.end();
    }
    await eventually('the cut is noticed', async () => !(await holds(db)));
    // Freed by the server with the connection: a write elsewhere goes through.
    await guardWithoutWaiting(ctx.url);
    await eventually('the lease is taken again', () => holds(db));
    expect(await db.dataVersion?.()).not.toBe(held);
    await db.close();
  });
});
