/**
 * Two server instances on one PostgreSQL database: a write on one reaches
 * a live reader (SSE) and a subscriber (graphql-ws) connected to the other,
 * through LISTEN/NOTIFY after commit. The readers' instance looks at the
 * clocks on its own only once a minute here, so only the NOTIFY can have
 * woken it within the test.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlWsClient, openEventSource } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

describePostgres('Live reads across instances', (ctx) => {
  let writer: TestServer;
  let reader: TestServer;
  let userId: string;

  beforeAll(async () => {
    writer = await startServer(() => ctx.open(), { seed: { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 } });
    reader = await startServer(() => ctx.open(), { seed: false, engine: { live: { pollMs: 60_000 } } });
    userId = (await http(writer.url, 'GET', '/users?limit=1&fields=id')).json.data[0].id;
  });
  afterAll(async () => {
    await reader.close();
    await writer.close();
  });

  it('a REST write on one instance reaches an EventSource and a graphql-ws subscriber on the other', async () => {
    const live = openEventSource(`${reader.url}/users/${userId}?fields=name`);
    const ws = graphqlWsClient(reader.url);
    const sub = ws.subscribe(`subscription { user(id: "${userId}") { name } }`);
    try {
      await live.events.next();
      await sub.results.next();
      await http(writer.url, 'PATCH', `/users/${userId}`, { body: { name: 'Across' }, headers: { 'content-type': 'application/merge-patch+json' } });
      expect((await live.events.next()).data).toEqual({ name: 'Across' });
      expect(await sub.results.next()).toEqual({ data: { user: { name: 'Across' } } });
      await gql(writer.url, `mutation { updateUser(id: "${userId}", input: { name: "Across again" }) { id } }`);
      expect((await live.events.next()).data).toEqual({ name: 'Across again' });
      expect(await sub.results.next()).toEqual({ data: { user: { name: 'Across again' } } });
    } finally {
      live.close();
      sub.close();
      await ws.dispose();
    }
  });
});
