import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect, describePostgres } from '../../test/support/databases.js';
import { ApiError } from '../errors/api-error.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Model } from '../schema/model.js';
import type { Database } from '../storage/dialect.js';
import { migrate } from '../storage/migrate/migrate.js';
import { LEASE_KEY } from '../storage/postgres/writer-lease.js';
import { ChangeClock } from './change-clock.js';
import { seedDatabase } from './seed/seed.js';
import { WriteExecutor } from './write-executor.js';

const SDL = 'type User { id: ID!  name: String!  email: String! @unique  nickname: String }';

describeEachDialect('writes with their clock bump and outbox event', (ctx) => {
  let db: Database;
  let model: Model;
  let writer: WriteExecutor;
  /** What another instance would read: a clock of its own, never told of this one's writes. */
  const clockElsewhere = async (): Promise<string> => (await new ChangeClock(db).stateOf(['users'], 0)).version;
  const events = (): Promise<{ type: string; record_id: string; record: string | null; previous: string | null }[]> =>
    db.all('SELECT type, record_id, record, previous FROM _diglot_events ORDER BY seq');
  const count = async (): Promise<number> => Number((await db.all<{ n: number | string }>('SELECT count(*) AS n FROM users'))[0]?.n);

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'writes.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    model = loaded.model;
    db = await ctx.open();
    await migrate(db, model);
    writer = new WriteExecutor(model, db, new ChangeClock(db));
  });
  afterAll(async () => {
    await db.close();
  });

  it('a create stores the record, moves the clock and records one event, all together', async () => {
    const before = await clockElsewhere();
    const { id } = await writer.write({ kind: 'create', type: 'User', values: { name: 'Ada', email: 'ada@example.org' } });
    expect(await db.all(`SELECT name, email FROM users WHERE id = ${db.sql.placeholder(0)}`, [id])).toEqual([{ name: 'Ada', email: 'ada@example.org' }]);
    expect(await clockElsewhere()).not.toBe(before);
    const [event] = (await events()).slice(-1);
    expect(event).toMatchObject({ type: 'user.created', record_id: id, previous: null });
    expect(JSON.parse(event?.record ?? 'null')).toEqual({ id, name: 'Ada', email: 'ada@example.org', nickname: null });
  });

  it('a create that fails leaves no record, no clock move and no event', async () => {
    const before = { clock: await clockElsewhere(), events: (await events()).length, users: await count() };
    const error: unknown = await writer.write({ kind: 'create', type: 'User', values: { name: 'Twin', email: 'ada@example.org' } }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).code).toBe('UNIQUE_VIOLATION');
    expect({ clock: await clockElsewhere(), events: (await events()).length, users: await count() }).toEqual(before);
  });

  it('creates of different shapes, taking turns, each store the columns they were given and no others', async () => {
    // A one-statement create's text is kept by shape: a text kept for one set of columns must never serve another.
    const inputs = [
      { name: 'Ann', email: 'ann@example.org' },
      { name: 'Bob', email: 'bob@example.org', nickname: 'B' },
      { name: 'Cy', email: 'cy@example.org' },
      { nickname: 'D', email: 'dee@example.org', name: 'Dee' },
    ];
    const stored: Record<string, unknown>[] = [];
    for (const values of inputs) {
      const { id } = await writer.write({ kind: 'create', type: 'User', values });
      stored.push(...(await db.all(`SELECT name, email, nickname FROM users WHERE id = ${db.sql.placeholder(0)}`, [id])));
      const [event] = (await events()).slice(-1);
      expect(event).toMatchObject({ type: 'user.created', record_id: id });
      expect(JSON.parse(event?.record ?? 'null')).toEqual({ id, nickname: null, ...values });
    }
    expect(stored).toEqual(inputs.map(({ name, email, nickname }) => ({ name, email, nickname: nickname ?? null })));
  });

  it('an update and a delete move the clock and record their events too', async () => {
    const { id } = await writer.write({ kind: 'create', type: 'User', values: { name: 'Grace', email: 'grace@example.org' } });
    const afterCreate = await clockElsewhere();
    await writer.write({ kind: 'update', type: 'User', id, values: { name: 'Grace H.' }, replace: false });
    const afterUpdate = await clockElsewhere();
    await writer.write({ kind: 'delete', type: 'User', id });
    expect(new Set([afterCreate, afterUpdate, await clockElsewhere()]).size).toBe(3);
    const recorded = (await events()).slice(-3);
    expect(recorded.map((event) => [event.type, event.record_id])).toEqual([
      ['user.created', id],
      ['user.updated', id],
      ['user.deleted', id],
    ]);
    const image = (text: string | null | undefined): unknown => (text === null || text === undefined ? null : (JSON.parse(text) as { name: string }).name);
    expect(recorded.map((event) => [image(event.previous), image(event.record)])).toEqual([
      [null, 'Grace'],
      ['Grace', 'Grace H.'],
      ['Grace H.', null],
    ]);
  });
});

describePostgres('writes while another process holds the writer lease', (ctx) => {
  it('every write that moves a clock waits for the lease to be let go: a create, an update and a seed', async () => {
    const loaded = loadSchema([{ file: 'writes.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    // Statements give up after half a second, so a write that waits fails instead.
    const db = await ctx.open({ statementTimeoutMs: 500 });
    await migrate(db, loaded.model);
    const clock = new ChangeClock(db);
    const writer = new WriteExecutor(loaded.model, db, clock);
    const { id } = await writer.write({ kind: 'create', type: 'User', values: { name: 'Ada', email: 'ada@example.org' } });
    const users = async (): Promise<unknown[]> => db.all('SELECT name FROM users ORDER BY name');

    // A holder that has not heard of this process: the lease key, held exclusively by a connection of its own.
    const holder = new pg.Client({ connectionString: ctx.url });
    await holder.connect();
    try {
      // Asked first, in case this process holds the lease by now (it takes it after a few seconds alone).
      await holder.query(`SELECT pg_notify('diglot_writer_lease', 'a test')`);
      await holder.query(`SELECT pg_advisory_lock(${LEASE_KEY})`);
      const timedOut = { code: 'QUERY_TIMEOUT' };
      await expect(writer.write({ kind: 'create', type: 'User', values: { name: 'Bob', email: 'bob@example.org' } })).rejects.toMatchObject(timedOut);
      await expect(writer.write({ kind: 'update', type: 'User', id, values: { name: 'Ada L.' }, replace: false })).rejects.toMatchObject(timedOut);
      await expect(seedDatabase(loaded.model, db, clock, { defaultCount: 3, pictures: 0 })).rejects.toMatchObject(timedOut);
      expect(await users()).toEqual([{ name: 'Ada' }]);

      await holder.query(`SELECT pg_advisory_unlock(${LEASE_KEY})`);
      await writer.write({ kind: 'create', type: 'User', values: { name: 'Bob', email: 'bob@example.org' } });
      expect(await users()).toEqual([{ name: 'Ada' }, { name: 'Bob' }]);
    } finally {
      await holder.end();
    }
  });
});
