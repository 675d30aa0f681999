import { testContext } from '../support/contexts.js';
import { readFileSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, planReadList, planReadOne } from '../../src/plan/build-read.js';
import type { Principal } from '../../src/plan/principal.js';

/** The golden plans are the engine's, free of rules (the rules' filters have their own tests). */
const ADMIN: Principal = { id: null, role: 'ADMIN', claims: {}, admin: true, via: 'admin-key' };
import type { ReadPlan } from '../../src/plan/read-plan.js';
import type { Model } from '../../src/schema/model.js';
import { compileRead } from '../../src/storage/compile/compile-read.js';
import { postgresHooks } from '../../src/storage/postgres/postgres-hooks.js';
import { sqliteHooks } from '../../src/storage/sqlite/sqlite-hooks.js';
import { describeEachDialect } from '../support/databases.js';
import { loadExampleModel, startServer, type TestServer } from '../support/start-server.js';

/**
 * Golden files: each representative read plan beside the SQL it compiles to
 * on each dialect. They change only when asked (`UPDATE_SNAPSHOTS=1 npm test`),
 * never silently; the cases are also executed against both databases below.
 */
const GOLDEN_DIR = new URL('./read-plans/', import.meta.url).pathname;
const options = { limits: DEFAULT_LIMITS, fromText: false, principal: ADMIN };

const CASES: Record<string, (model: Model) => ReadPlan> = {
  'user-with-posts-and-followers': (model) =>
    planReadOne(model, 'User', '1', [
      { key: 'name', field: 'name' },
      { key: 'posts', field: 'posts', select: [{ key: 'title', field: 'title' }], list: { first: 10, orderBy: [{ field: 'createdAt', direction: 'desc' }] } },
      { key: 'followers', field: 'followers', select: [{ key: 'name', field: 'name' }], list: { first: 10 } },
    ], options),
  'brief-user-picture': (model) =>
    planReadOne(model, 'User', '42', [
      { key: 'name', field: 'name' },
      { key: 'profilePicture', field: 'profilePicture', size: 64 },
    ], options),
  'users-page-nested': (model) =>
    planReadList(
      model,
      'User',
      { first: 12, filter: { role: { in: ['MEMBER', 'ADMIN'] }, name: { startsWith: 'A' } }, orderBy: [{ field: 'name', direction: 'asc' }] },
      [
        { key: 'name', field: 'name' },
        { key: 'isVerified', field: 'isVerified' },
        { key: 'posts', field: 'posts', select: [{ key: 'title', field: 'title' }], list: { first: 5 } },
        {
          key: 'followers',
          field: 'followers',
          select: [
            { key: 'name', field: 'name' },
            { key: 'posts', field: 'posts', select: [{ key: 'title', field: 'title' }], list: { first: 2 } },
          ],
          list: { first: 5 },
        },
        { key: 'postsCount', countOf: 'posts' },
      ],
      options,
    ),
  'sub-collection-with-count': (model) =>
    planReadList(model, 'Post', { first: 10, filter: { or: [{ status: { eq: 'PUBLISHED' } }, { publishedAt: { isNull: true } }] } }, [{ key: 'title', field: 'title' }, { key: 'author', field: 'author', select: [{ key: 'name', field: 'name' }] }], {
      ...options,
      parent: { type: 'User', field: 'posts', id: '1' },
      totalCount: true,
    }),
  // W3 of the benchmark: a sub-collection's page, newest first.
  'user-posts-newest': (model) =>
    planReadList(model, 'Post', { first: 10, orderBy: [{ field: 'createdAt', direction: 'desc' }] }, [{ key: 'id', field: 'id' }, { key: 'title', field: 'title' }, { key: 'createdAt', field: 'createdAt' }], {
      ...options,
      parent: { type: 'User', field: 'posts', id: '1' },
    }),
  'many-to-many-backwards': (model) =>
    planReadList(model, 'User', { last: 3, orderBy: [{ field: 'createdAt', direction: 'desc' }] }, [{ key: 'id', field: 'id' }, { key: 'cursor', cursor: true }], {
      ...options,
      parent: { type: 'User', field: 'following', id: '1' },
    }),
};

function build(model: Model, name: string): ReadPlan {
  const make = CASES[name] as (model: Model) => ReadPlan;
  return make(model);
}

function render(model: Model, plan: ReadPlan): string {
  const sqlite = compileRead(model, sqliteHooks, plan).sql;
  const postgres = compileRead(model, postgresHooks, plan).sql;
  return `-- plan\n${JSON.stringify(plan, null, 2)}\n-- sqlite\n${sqlite}\n-- postgres\n${postgres}\n`;
}

describe('golden SQL per dialect', () => {
  let model: Model;
  beforeAll(async () => {
    model = await loadExampleModel();
  });
  for (const name of Object.keys(CASES)) {
    it(name, () => {
      const text = render(model, build(model, name));
      const file = `${GOLDEN_DIR}${name}.sql`;
      if (process.env['UPDATE_SNAPSHOTS'] === '1') {
        mkdirSync(GOLDEN_DIR, { recursive: true });
        writeFileSync(file, text);
      }
      expect(existsSync(file), `${file} is missing: run UPDATE_SNAPSHOTS=1 npm test and review it`).toBe(true);
      expect(text).toBe(readFileSync(file, 'utf8'));
    });
  }
});

describeEachDialect('golden plans run as one statement', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open());
  });
  afterAll(async () => {
    await server.close();
  });
  for (const name of Object.keys(CASES)) {
    it(name, async () => {
      const plan = build(server.model, name);
      const before = server.db.statementCount;
      const result = await server.engine.read(plan, testContext());
      expect(server.db.statementCount - before).toBe(1);
      if (result.kind === 'one') expect(result.json === null || typeof JSON.parse(result.json) === 'object').toBe(true);
      else expect(Array.isArray(JSON.parse(result.json))).toBe(true);
    });
  }
});
