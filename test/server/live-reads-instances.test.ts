/**
 * Two server instances on one PostgreSQL database: a write on one reaches
 * a live reader (SSE) and a subscriber (graphql-ws) connected to the other,
 * through LISTEN/NOTIFY after commit, and so do change events. The readers'
 * instance looks at the clocks and the outbox on its own only once a minute
 * here, so only the NOTIFY can have woken it within the test.
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
    reader = await startServer(() => ctx.open(), { seed: false, engine: { live: { pollMs: 60_000 } }, server: { events: { pollMs: 60_000 } } });
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

describePostgres('Change events across instances', (ctx) => {
  let writer: TestServer;
  let reader: TestServer;

  beforeAll(async () => {
    writer = await startServer(() => ctx.open(), { seed: false });
    reader = await startServer(() => ctx.open(), { seed: false, server: { events: { pollMs: 60_000 } } });
  });
  afterAll(async () => {
    await reader.close();
    await writer.close();
  });

  it('a create, an update and a delete on one instance reach a graphql-ws subscriber on the other, in order', async () => {
    const ws = graphqlWsClient(reader.url);
    const sub = ws.subscribe('subscription { userCreated(filter: { name: { startsWith: "Ada" } }) { name } }');
    const changes = ws.subscribe('subscription { userUpdated { name } }');
    const gone = ws.subscribe('subscription { userDeleted { id name } }');
    // Nothing acknowledges a subscription: one sent last hears a probe once the others, sent before it on the socket, listen.
    const probe = ws.subscribe('subscription { userCreated(filter: { name: { eq: "Probe" } }) { name } }');
    try {
      for (let attempt = 0; attempt < 100 && probe.results.waitingCount === 0; attempt++) {
        await http(writer.url, 'POST', '/users', { body: { name: 'Probe', email: `probe${Math.random()}@example.org` } });
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(probe.results.waitingCount).toBeGreaterThan(0);
      const id = (await http(writer.url, 'POST', '/users', { body: { name: 'Ada', email: 'ada@example.org' } })).json.id as string;
      await gql(writer.url, `mutation { updateUser(id: "${id}", input: { name: "Ada L." }) { id } }`);
      expect((await http(writer.url, 'DELETE', `/users/${id}`)).status).toBe(204);
      expect(((await sub.results.next()) as { data: unknown }).data).toEqual({ userCreated: { name: 'Ada' } });
      expect(((await changes.results.next()) as { data: unknown }).data).toEqual({ userUpdated: { name: 'Ada L.' } });
      expect(((await gone.results.next()) as { data: unknown }).data).toEqual({ userDeleted: { id, name: 'Ada L.' } });
    } finally {
      for (const each of [sub, changes, gone, probe]) each.close();
      await ws.dispose();
    }
  });

  it('each process listens on one connection, for events and live reads alike, and comes back after it is cut', async () => {
    const listening = async (): Promise<number> => {
      const rows = await writer.db.all<{ n: string }>(
        `SELECT count(*) AS n FROM pg_stat_activity WHERE application_name LIKE 'diglot-%' AND application_name <> 'diglot-writer-lease' AND datname = current_database()`,
      );
      return Number(rows[0]?.n);
    };
    const live = openEventSource(`${reader.url}/users?fields=name&limit=1`);
    try {
      await live.events.next();
      // The reader's events and live reads, and the writer's events: one connection each.
      expect(await listening()).toBe(2);
      await writer.db.all(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'diglot-changes' AND datname = current_database()`);
      for (let attempt = 0; attempt < 100 && (await listening()) < 2; attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await listening()).toBe(2);
      const ws = graphqlWsClient(reader.url);
      const sub = ws.subscribe('subscription { userCreated(filter: { name: { eq: "After the cut" } }) { name } }');
      const probe = ws.subscribe('subscription { userCreated(filter: { name: { eq: "Cut probe" } }) { name } }');
      try {
        for (let attempt = 0; attempt < 100 && probe.results.waitingCount === 0; attempt++) {
          await http(writer.url, 'POST', '/users', { body: { name: 'Cut probe', email: `cut${Math.random()}@example.org` } });
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        await http(writer.url, 'POST', '/users', { body: { name: 'After the cut', email: 'cut@example.org' } });
        expect(((await sub.results.next()) as { data: unknown }).data).toEqual({ userCreated: { name: 'After the cut' } });
      } finally {
        sub.close();
        probe.close();
        await ws.dispose();
      }
    } finally {
      live.close();
    }
  });
});
