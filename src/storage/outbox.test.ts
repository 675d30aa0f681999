import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { ChangeClock } from '../engine/change-clock.js';
import { WriteExecutor } from '../engine/write-executor.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Database } from './dialect.js';
import { migrate } from './migrate/migrate.js';
import { OutboxStore } from './outbox.js';

const SDL = 'type Note { id: ID! text: String! }';

describeEachDialect('The outbox: publication order and retention', (ctx) => {
  let db: Database;
  let writer: WriteExecutor;
  let store: OutboxStore;

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'notes.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    db = await ctx.open();
    await migrate(db, loaded.model);
    writer = new WriteExecutor(loaded.model, db, new ChangeClock(db));
    store = new OutboxStore(db);
  });
  afterAll(async () => {
    await db.close();
  });

  it('publishes each committed event once, at the next positions, with the deliveries routing asks for', async () => {
    for (const text of ['a', 'b', 'c']) await writer.write({ kind: 'create', type: 'Note', values: { text } });
    const published = await store.publish(2, (event) => (event.type === 'note.created' ? [{ id: `d-${event.seq}`, eventSeq: event.seq, endpoint: 'hook' }] : []));
    expect(published.map((event) => event.published)).toEqual([1, 2]);
    const rest = await store.publish(10, () => []);
    expect(rest.map((event) => event.published)).toEqual([3]);
    expect(await store.publish(10, () => [])).toEqual([]);
    expect(await store.lastPublished()).toBe(3);
    expect((await store.eventsAfter(1, 10)).map((event) => JSON.parse(event.record ?? '{}').text)).toEqual(['b', 'c']);
    expect((await store.deliveries({ limit: 10 })).map((d) => [d.endpoint, d.status])).toEqual([
      ['hook', 'pending'],
      ['hook', 'pending'],
    ]);
  });

  it('prunes old events whose deliveries are all finished, and keeps those still pending', async () => {
    const [first] = await store.claim('hook', 1, new Date(Date.now() + 1000), 10_000);
    expect(first).toBeDefined();
    const at = new Date().toISOString();
    await store.settle({ deliveryId: first?.id ?? '', attempt: 1, at, outcome: 'ok', code: 200, latencyMs: 3, error: null }, { status: 'delivered', nextAt: at });
    // A cutoff in the past keeps everything; one in the future removes all but the event still owed a delivery.
    expect(await store.prune('2000-01-01T00:00:00.000Z')).toBe(0);
    expect(await store.prune(new Date(Date.now() + 60_000).toISOString())).toBe(2);
    const left = await store.eventsAfter(0, 10);
    expect(left).toHaveLength(1);
    expect((await store.deliveries({ limit: 10 })).map((d) => [d.eventSeq, d.status])).toEqual([[left[0]?.seq, 'pending']]);
    expect(await store.attempts(first?.id ?? '')).toEqual([]);
  });
});
