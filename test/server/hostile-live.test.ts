import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlSseClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

/** Hostile use of the live transports, on both databases, for defects found by attacking a running server. */
describeEachDialect('Live transports under attack', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 } });
  });
  afterAll(async () => {
    await server.close();
  });

  it("gives every graphql-sse stream reservation its own token, so one client's PUT cannot take over everyone's subscriptions", async () => {
    const tokens: string[] = [];
    for (let i = 0; i < 2; i++) {
      const reserved = await fetch(`${server.url}/graphql/stream`, { method: 'PUT' });
      expect(reserved.status).toBe(201);
      tokens.push(await reserved.text());
    }
    expect(new Set(tokens).size).toBe(2);
    expect(tokens).not.toContain('undefined');

    // A distinct-connection subscription (graphql-sse's default mode), sent without a token, still gets its own result.
    const id = (await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data[0].id as string;
    const client = graphqlSseClient(server.url);
    try {
      const sub = client.subscribe('subscription ($id: ID!) { user(id: $id) { id } }', { id });
      expect((await sub.results.next()).data).toEqual({ user: { id } });
      sub.close();
    } finally {
      await client.dispose();
    }
  });
});
