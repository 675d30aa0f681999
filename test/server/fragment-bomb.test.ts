import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlWsClient, type LiveGraphqlClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql, gqlGet } from '../graphql/graphql-client.js';

/**
 * Issue 36, finding 1: `levels` fragments, each spreading the next three
 * times under a relation: 1.7 KB at 14 levels, 3^14 relations once expanded.
 * The server used to expand all of it before the plan limits looked at it
 * (30 s, the event loop blocked), then refused it for nothing.
 */
function fragmentBomb(levels: number, operation = 'query'): string {
  const fragments: string[] = [];
  for (let i = 0; i < levels; i++) {
    const next = `...F${i + 1}`;
    fragments.push(`fragment F${i} on User { followers(first: 1) { ${next} } following(first: 1) { ${next} } posts(first: 1) { author { ${next} } } }`);
  }
  fragments.push(`fragment F${levels} on User { id name }`);
  return `${operation} { users(first: 1) { ...F0 } } ${fragments.join(' ')}`;
}

const POINTS = 100_000;

/** Points left in the caller's budget, from an answer's RateLimit field (`"anonymous";r=<left>;t=<s>`). */
function left(headers: Headers): number | undefined {
  const match = /;r=(\d+)/.exec(headers.get('ratelimit') ?? '');
  return match === null ? undefined : Number(match[1]);
}

describeEachDialect('A fragment bomb is refused as it expands, on every transport', (ctx) => {
  let server: TestServer;
  const clients: LiveGraphqlClient[] = [];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 2 },
      server: { rateLimits: { anonymous: { points: POINTS, window: 600 } } },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await server.close();
  });

  it('answers QUERY_TOO_COMPLEX over POST, charged, while the server answers others', async () => {
    const before = left((await gql(server.url, '{ users(first: 1) { id } }')).headers);
    expect(before).toBeDefined();
    for (const levels of [8, 14]) {
      const bomb = gql(server.url, fragmentBomb(levels), undefined, { accept: 'application/graphql-response+json' });
      // Sent while the bomb is in flight; the old code answered it only after the bomb's 30 s (a test timeout here).
      const health = await http(server.url, 'GET', '/healthz');
      expect(health.status).toBe(200);
      const refused = await bomb;
      expect(refused.status).toBe(400);
      expect(refused.json.data).toBeUndefined();
      expect(refused.json.errors).toHaveLength(1);
      expect(refused.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
      expect(['maxRelations', 'maxDepth']).toContain(refused.json.errors[0].extensions.limit);
      // Refusing it is work, and is charged: the budget is lower after it than before.
      const after = left(refused.headers);
      expect(after).toBeDefined();
      expect(after).toBeLessThan(before as number);
    }
  });

  it('answers QUERY_TOO_COMPLEX over GET', async () => {
    const refused = await gqlGet(server.url, { query: fragmentBomb(14) }, { accept: 'application/graphql-response+json' });
    expect(refused.status).toBe(400);
    expect(refused.json.errors[0].extensions.code).toBe('QUERY_TOO_COMPLEX');
    expect(left(refused.headers)).toBeLessThan(POINTS);
  });

  it('answers QUERY_TOO_COMPLEX over graphql-ws, as a query and as a live query', async () => {
    const client = graphqlWsClient(server.url);
    clients.push(client);
    for (const operation of ['query', 'subscription']) {
      const subscription = client.subscribe(fragmentBomb(14, operation));
      const result = await Promise.race([subscription.results.next(), subscription.ended.then(({ error }) => ({ ended: String(error) }))]);
      subscription.close();
      expect(result).toMatchObject({ errors: [{ extensions: { code: 'QUERY_TOO_COMPLEX' } }] });
      expect(result.data).toBeUndefined();
    }
    // The connection still answers.
    const subscription = client.subscribe('{ users(first: 1) { id } }');
    expect(await subscription.results.next()).toMatchObject({ data: { users: [{ id: expect.any(String) }] } });
    subscription.close();
  });
});
