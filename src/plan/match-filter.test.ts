import { testContext } from '../../test/support/contexts.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { createEngine, type Engine } from '../engine/engine.js';
import { loadSchema } from '../schema/load-schema.js';
import type { Database } from '../storage/dialect.js';
import { migrate } from '../storage/migrate/migrate.js';
import { planReadList, type FieldRequest } from './build-read.js';
import type { FilterInput } from './build-filter.js';
import { matchesFilter } from './match-filter.js';
import { EVENT_READER } from './record-image.js';
import { DEFAULT_LIMITS } from './limits.js';

const SDL = `
enum Status { OPEN CLOSED }
type Owner { id: ID! name: String! }
type Item {
  id: ID!
  label: String
  rank: Int
  weight: Float
  done: Boolean
  due: DateTime
  status: Status
  owner: Owner
}`;

/** Records with every field null in turn, and values on both sides of the operands below. */
const ITEMS = [
  { label: 'alpha', rank: 1, weight: 0.5, done: true, due: '2026-01-01T00:00:00.000Z', status: 'OPEN' },
  { label: 'Beta', rank: 5, weight: 2.25, done: false, due: '2026-06-01T12:00:00.000Z', status: 'CLOSED' },
  { label: null, rank: null, weight: null, done: null, due: null, status: null },
  { label: 'alphabet', rank: 3, weight: null, done: false, due: '2025-12-31T23:59:59.000Z', status: 'OPEN' },
  { label: 'gamma', rank: null, weight: 10, done: null, due: null, status: 'CLOSED' },
];

const FILTERS: FilterInput[] = [
  { label: { eq: 'alpha' } },
  { label: { ne: 'alpha' } },
  { label: { contains: 'pha' } },
  { label: { startsWith: 'alp' } },
  { label: { lt: 'beta' } },
  { label: { in: ['alpha', 'gamma'] } },
  { label: { isNull: true } },
  { label: { isNull: false } },
  { rank: { gt: 2 } },
  { rank: { lte: 3 } },
  { rank: { ne: 3 } },
  { weight: { gte: 2.25 } },
  { done: { eq: true } },
  { done: { ne: true } },
  { due: { lt: '2026-03-01T00:00:00Z' } },
  { due: { gte: '2026-01-01T00:00:00.000Z' } },
  { status: { eq: 'OPEN' } },
  { status: { in: ['CLOSED'] } },
  { owner: { isNull: true } },
  { not: { status: { eq: 'OPEN' } } },
  { not: { rank: { gt: 2 } } },
  { not: { label: { ne: 'alpha' } } },
  { not: { or: [{ rank: { gt: 2 } }, { done: { eq: true } }] } },
  { or: [{ rank: { gt: 2 } }, { not: { weight: { lt: 1 } } }] },
  { and: [{ not: { done: { eq: false } } }, { status: { ne: 'CLOSED' } }] },
  // Ids compare shorter first: every generated id (26 characters) is after "9", though as text it comes before it.
  { id: { gt: '9' } },
  { id: { lte: '9' } },
];

/**
 * Events are matched against their record image in JavaScript (webhook
 * filters, change-event subscriptions with their read rules); queries are
 * matched by SQL. The two must agree, nulls and negations included, or a
 * subscriber would see what a query hides.
 */
describeEachDialect('matchesFilter agrees with the SQL of the same filter', (ctx) => {
  let db: Database;
  let engine: Engine;
  let images: Record<string, unknown>[];

  const options = { limits: DEFAULT_LIMITS, fromText: false, principal: EVENT_READER };
  const idOnly: FieldRequest[] = [{ key: 'id', field: 'id' }];

  beforeAll(async () => {
    const loaded = loadSchema([{ file: 'items.graphql', text: SDL }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    db = await ctx.open();
    await migrate(db, loaded.model, { allowDestructive: false, dryRun: false });
    engine = createEngine(loaded.model, db);
    for (const item of ITEMS) await engine.write(testContext(), { kind: 'create', type: 'Item', values: item });
    const every: FieldRequest[] = ['id', 'label', 'rank', 'weight', 'done', 'due', 'status', 'owner'].map((field) => ({ key: field, field }));
    const all = await engine.read(planReadList(engine.model, 'Item', { first: 100 }, every, options), testContext());
    images = JSON.parse(all.kind === 'list' ? all.json : '[]') as Record<string, unknown>[];
  });
  afterAll(async () => {
    await db.close();
  });

  it.each(FILTERS.map((filter) => [JSON.stringify(filter), filter] as const))('%s', async (_name, input) => {
    const plan = planReadList(engine.model, 'Item', { filter: input, first: 100 }, idOnly, options);
    const result = await engine.read(plan, testContext());
    const bySql = (JSON.parse(result.kind === 'list' ? result.json : '[]') as { id: string }[]).map((row) => row.id).sort();
    const filter = plan.root.kind === 'list' ? plan.root.node.filter : undefined;
    if (filter === undefined) throw new Error('the plan has no filter');
    const byImage = images.filter((image) => matchesFilter(filter, plan.params, image)).map((image) => String(image['id'])).sort();
    expect(byImage).toEqual(bySql);
  });
});
