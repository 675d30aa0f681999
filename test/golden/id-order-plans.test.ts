/**
 * Lists in the id order (shorter ids first) are read from an index, with no
 * sort step, on both databases: the query plan each database chooses for
 * the representative pages, on enough rows that a scan and a sort would be
 * cheaper if the index did not fit the order, names an id-ordered index and
 * sorts nothing. A keyset page seeks its cursor rather than scanning up to it.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_LIMITS, planReadList, type ListArgs } from '../../src/plan/build-read.js';
import { encodeCursor } from '../../src/plan/cursor.js';
import type { Principal } from '../../src/plan/principal.js';
import type { SqlValue } from '../../src/storage/dialect.js';
import { describeEachDialect } from '../support/databases.js';
import { startServer, type TestServer } from '../support/start-server.js';

const ADMIN: Principal = { id: null, role: 'ADMIN', claims: {}, admin: true, via: 'admin-key' };
const options = { limits: DEFAULT_LIMITS, fromText: false, principal: ADMIN };
const ID_ORDER = [{ field: 'id', direction: 'asc' }] as const;

interface Case {
  readonly name: string;
  readonly type: string;
  readonly args: ListArgs;
  readonly parent?: { readonly type: string; readonly field: string; readonly id: string };
  /** The index the page must be read from. */
  readonly index: string;
  /** The page starts at a cursor, which the plan must seek (SQLite: SEARCH; PostgreSQL: an Index Cond). */
  readonly seeks?: boolean;
  /** The index alone gives the page's ids (a link table's): no lookup of each link's row. */
  readonly covers?: boolean;
}

const CASES: readonly Case[] = [
  { name: 'GET /users', type: 'User', args: { first: 20 }, index: 'users_by_id_idx' },
  { name: 'GET /users?after=<id 500>', type: 'User', args: { first: 20, after: encodeCursor(ID_ORDER, ['500']) }, index: 'users_by_id_idx', seeks: true },
  { name: 'GET /users?before=<id 500>', type: 'User', args: { last: 20, before: encodeCursor(ID_ORDER, ['500']) }, index: 'users_by_id_idx', seeks: true },
  { name: 'GET /users/1/posts', type: 'Post', args: { first: 10 }, parent: { type: 'User', field: 'posts', id: '1' }, index: 'posts_author_id_by_id_idx' },
  {
    name: 'GET /users/1/posts?sort=-createdAt',
    type: 'Post',
    args: { first: 10, orderBy: [{ field: 'createdAt', direction: 'desc' }] },
    parent: { type: 'User', field: 'posts', id: '1' },
    index: 'posts_author_id_created_at_by_id_idx',
  },
  { name: 'GET /users/1/followers', type: 'User', args: { first: 10 }, parent: { type: 'User', field: 'followers', id: '1' }, index: 'users_followers_source_id_by_target_id_idx', covers: true },
  // User 2 follows hundreds (below): with a handful, a database may rightly sort them instead.
  { name: 'GET /users/2/following', type: 'User', args: { first: 10 }, parent: { type: 'User', field: 'following', id: '2' }, index: 'users_followers_target_id_by_source_id_idx', covers: true },
];

describeEachDialect('id-ordered pages are read from an index, unsorted', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 2000, Post: 8000, Product: 0, Order: 0, OrderItem: 0 }, linksPerRecord: 6 }, files: false });
    // The seed's users follow a few each (user 1 is followed by many): user 2 follows hundreds more.
    const p = (i: number): string => server.db.sql.placeholder(i);
    const others = Array.from({ length: 400 }, (_, i) => String(i + 3));
    await server.db.run(
      `INSERT INTO users_followers (source_id, target_id) SELECT value, ${p(0)} FROM (${server.db.sql.idList(p(1)).replace(' AS id', ' AS value')}) v WHERE true ON CONFLICT DO NOTHING`,
      ['2', JSON.stringify(others)],
    );
    // The statistics a database has once it has been in use (both spell it ANALYZE).
    await server.db.run('ANALYZE');
  }, 120_000);
  afterAll(async () => {
    await server.close();
  });

  /** The plan's text, one line a node (SQLite's EXPLAIN QUERY PLAN details; PostgreSQL's EXPLAIN lines). */
  const planOf = async (sql: string, params: readonly unknown[]): Promise<string> => {
    const values = params as SqlValue[];
    if (server.db.dialect === 'sqlite') {
      const rows = await server.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN ${sql}`, values);
      return rows.map((row) => row.detail).join('\n');
    }
    const rows = await server.db.all<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, values);
    return rows.map((row) => row['QUERY PLAN']).join('\n');
  };

  for (const c of CASES) {
    it(c.name, async () => {
      const plan = planReadList(server.model, c.type, c.args, [{ key: 'id', field: 'id' }, { key: 'name', field: c.type === 'User' ? 'name' : 'title' }], { ...options, parent: c.parent });
      const { sql, params } = server.engine.explain(plan);
      const text = await planOf(sql, params);
      if (process.env["SHOW_PLANS"] === "1") console.log(c.name, "\n", text);
      expect(text).toContain(c.index);
      if (server.db.dialect === 'sqlite') {
        expect(text).not.toMatch(/TEMP B-TREE/);
        if (c.seeks === true) expect(text).toMatch(new RegExp(`SEARCH t\\d+ USING INDEX ${c.index} \\(<expr>[<>]\\?\\)`));
        if (c.covers === true) expect(text).toContain(`USING COVERING INDEX ${c.index}`);
      } else {
        expect(text).not.toMatch(/\bSort\b/);
        if (c.seeks === true) expect(text).toMatch(/Index Cond: \(ROW\(length\(id\), id\) [<>] ROW\(/);
        if (c.covers === true) expect(text).toContain(`Index Only Scan using ${c.index}`);
      }
    });
  }
});
