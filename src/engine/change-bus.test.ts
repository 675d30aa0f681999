import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { testContext } from '../../test/support/contexts.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Database } from '../storage/dialect.js';
import { migrate } from '../storage/migrate/migrate.js';
import { newId } from '../util/ids.js';
import type { Change } from './change-bus.js';
import { createEngine, type Engine } from './engine.js';

const SDL = 'type User { id: ID!  name: String! }';

describeEachDialect('the change bus: one feed of commits and one safety poll', (ctx) => {
  let db: Database;
  let engine: Engine;

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'bus.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    db = await ctx.open();
    await migrate(db, loaded.model);
    engine = createEngine(loaded.model, db);
  });
  afterAll(async () => {
    engine.changes.close();
    await db.close();
  });

  it('tells every subscriber each local commit once, with the tables it moved, and an account event with none', async () => {
    const heard: [string, Change][] = [];
    const stops = ['live reads', 'event hub'].map((name) => engine.changes.subscribe((change) => heard.push([name, change]), { pollMs: 3_600_000 }));
    try {
      await engine.write(testContext(), { kind: 'create', type: 'User', values: { name: 'Ada' } });
      await engine.recordEvent({ id: newId(), type: 'account.verification_requested', accountId: newId(), payload: {} });
      const local = heard.filter(([, change]) => change.kind === 'local');
      expect(local).toEqual([
        ['live reads', { kind: 'local', tables: ['users'] }],
        ['event hub', { kind: 'local', tables: ['users'] }],
        ['live reads', { kind: 'local', tables: [] }],
        ['event hub', { kind: 'local', tables: [] }],
      ]);
    } finally {
      for (const stop of stops) stop();
    }
  });

  it('ticks each subscriber at its own period, not at the shortest one asked for', async () => {
    const ticks = { fast: 0, slow: 0 };
    let fastTicked = (): void => undefined;
    const stopSlow = engine.changes.subscribe((change) => {
      if (change.kind === 'poll') ticks.slow++;
    }, { pollMs: 3_600_000 });
    const stopFast = engine.changes.subscribe((change) => {
      if (change.kind === 'poll' && ++ticks.fast === 3) fastTicked();
    }, { pollMs: 20 });
    await new Promise<void>((resolve) => (fastTicked = resolve));
    stopFast();
    stopSlow();
    // The slow subscriber's period has not come: the fast one's ticks were not its.
    expect(ticks).toEqual({ fast: 3, slow: 0 });
  });
});
