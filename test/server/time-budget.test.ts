import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

const BULK = 400_000;

describeEachDialect('A statement past its time budget is stopped with 503 QUERY_TIMEOUT', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open({ statementTimeoutMs: 40 }), { seed: { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 2 } });
    // Enough users that a filter no index serves, with a sort, takes far longer than the budget (written around the engine, on a connection with no budget).
    const bulk = await ctx.open({ statementTimeoutMs: 0 });
    const rows = `'bulk' || x, 'Bulk user ' || x, 'bulk' || x || '@example.com'`;
    await bulk.run(
      ctx.dialect === 'sqlite'
        ? `WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < ${BULK}) INSERT INTO users (id, name, email) SELECT ${rows} FROM c`
        : `INSERT INTO users (id, name, email) SELECT ${rows} FROM generate_series(1, ${BULK}) x`,
    );
    if (ctx.dialect === 'postgres') await bulk.run('ANALYZE users');
    await bulk.close();
  }, 120_000);
  afterAll(async () => {
    await server.close();
  });

  const slowPath = '/users?filter[name][contains]=nobody&filter[bio][contains]=nothing&sort=-email&limit=5';
  const slowQuery = '{ users(filter: { name: { contains: "nobody" }, bio: { contains: "nothing" } }, orderBy: [{ field: email, direction: DESC }], first: 5) { id } }';

  it('answers 503 with QUERY_TIMEOUT in REST and keeps serving', async () => {
    const [slow, fast] = await Promise.all([http(server.url, 'GET', slowPath), http(server.url, 'GET', '/users?limit=1')]);
    expect(slow.status).toBe(503);
    expect(slow.headers.get('content-type')).toContain('application/problem+json');
    expect(slow.json.code).toBe('QUERY_TIMEOUT');
    expect(slow.headers.get('retry-after')).toBe('1');
    expect(fast.status).toBe(200);
    const after = await http(server.url, 'GET', '/users?limit=2');
    expect(after.status).toBe(200);
    expect(after.json.data).toHaveLength(2);
  });

  it('answers the same code in GraphQL', async () => {
    const response = await gql(server.url, slowQuery);
    expect(response.json.errors[0].extensions.code).toBe('QUERY_TIMEOUT');
    expect(response.json.data).toBeNull();
    expect(response.headers.get('retry-after')).toBe('1');
    expect((await gql(server.url, '{ users(first: 1) { id } }')).json.errors).toBeUndefined();
  });

  it('stops a filtered count too', async () => {
    const response = await http(server.url, 'GET', '/users?filter[name][contains]=nobody&filter[bio][contains]=nothing&count=true&limit=1');
    expect(response.status).toBe(503);
    expect(response.json.code).toBe('QUERY_TIMEOUT');
  });
});
