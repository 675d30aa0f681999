/**
 * Live reads, over real sockets and real clients, on both databases: a REST
 * GET with `Accept: text/event-stream` (the `eventsource` package), and
 * GraphQL subscriptions as live queries over graphql-ws and graphql-sse.
 * Each sends the representation now and again after a REST write or a
 * GraphQL mutation changes it, and nothing when another table changes or a
 * write leaves the representation as it was (checked by order: the next
 * message to arrive is the one a later, relevant write caused).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlSseClient, graphqlWsClient, openEventSource, type LiveGraphqlClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

describeEachDialect('Live reads', (ctx) => {
  let server: TestServer;
  let userId: string;
  let productId: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 10, Post: 30, Product: 3, Order: 2, OrderItem: 2 }, linksPerRecord: 1 } });
    userId = (await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data[0].id;
    productId = (await http(server.url, 'GET', '/products?limit=1&fields=id')).json.data[0].id;
  });
  afterAll(async () => {
    await server.close();
  });

  const patchUser = (values: Record<string, unknown>, id = userId) =>
    http(server.url, 'PATCH', `/users/${id}`, { body: values, headers: { 'content-type': 'application/merge-patch+json' } });

  describe('REST over Server-Sent Events', () => {
    it('sends the record now, with its ETag as the event id, and again after a REST write and a GraphQL mutation', async () => {
      const plain = await http(server.url, 'GET', `/users/${userId}?fields=name,bio`);
      const live = openEventSource(`${server.url}/users/${userId}?fields=name,bio`);
      try {
        const first = await live.events.next();
        expect(first).toEqual({ type: 'update', id: plain.headers.get('etag'), data: plain.json });

        await patchUser({ name: 'Ada Live' });
        const second = await live.events.next();
        expect(second.type).toBe('update');
        expect(second.data.name).toBe('Ada Live');
        const after = await http(server.url, 'GET', `/users/${userId}?fields=name,bio`);
        expect(second.id).toBe(after.headers.get('etag'));

        await gql(server.url, `mutation { updateUser(id: "${userId}", input: { bio: "from GraphQL" }) { id } }`);
        expect((await live.events.next()).data).toEqual({ name: 'Ada Live', bio: 'from GraphQL' });
      } finally {
        live.close();
      }
    });

    it('sends nothing when another table changes or the representation stays the same', async () => {
      const live = openEventSource(`${server.url}/users/${userId}?fields=name`);
      try {
        await live.events.next();
        // Another table, then the same table but a field this read does not select.
        await http(server.url, 'PATCH', `/products/${productId}`, { body: { stock: 7 }, headers: { 'content-type': 'application/merge-patch+json' } });
        await patchUser({ location: 'Elsewhere' });
        await patchUser({ name: 'Named Again' });
        const next = await live.events.next();
        expect(next.data).toEqual({ name: 'Named Again' });
        expect(live.events.waitingCount).toBe(0);
      } finally {
        live.close();
      }
    });

    it('resumes with Last-Event-ID: nothing while unchanged, the current state when it changed since', async () => {
      const url = `/users/${userId}?fields=name`;
      const current = await http(server.url, 'GET', url);
      const etag = current.headers.get('etag') as string;
      const resumed = openEventSource(`${server.url}${url}`, { 'last-event-id': etag });
      try {
        await resumed.opened;
        await patchUser({ name: 'Resumed' });
        const next = await resumed.events.next();
        expect(next.data).toEqual({ name: 'Resumed' });
      } finally {
        resumed.close();
      }
      // A change missed while away arrives at once.
      const stale = openEventSource(`${server.url}${url}`, { 'last-event-id': etag });
      try {
        expect((await stale.events.next()).data).toEqual({ name: 'Resumed' });
      } finally {
        stale.close();
      }
    });

    it('watches lists and sub-collections, with fields and filters', async () => {
      const live = openEventSource(`${server.url}/users/${userId}/posts?fields=title&sort=-createdAt&limit=3`);
      try {
        const first = await live.events.next();
        expect(first.data).toMatchObject({ data: expect.any(Array) });
        await http(server.url, 'POST', '/posts', { body: { title: 'Live post', body: 'text', author: userId } });
        const next = await live.events.next();
        expect(next.data.data[0]).toEqual({ title: 'Live post' });
      } finally {
        live.close();
      }
    });

    it('sends a problem, not data, when the record goes away; a GET of a missing record is a plain 404', async () => {
      const created = await http(server.url, 'POST', '/users', { body: { name: 'Short Lived', email: `short-${ctx.dialect}@example.com` } });
      const id = created.json.id as string;
      const live = openEventSource(`${server.url}/users/${id}?fields=name`);
      try {
        await live.events.next();
        await http(server.url, 'DELETE', `/users/${id}`);
        const gone = await live.events.next();
        expect(gone.type).toBe('problem');
        expect(gone.data).toMatchObject({ status: 404, code: 'NOT_FOUND' });
      } finally {
        live.close();
      }
      const missing = await fetch(`${server.url}/users/${id}`, { headers: { accept: 'text/event-stream' } });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    });

    it('leaves plain GET as it was', async () => {
      const plain = await http(server.url, 'GET', `/users/${userId}?fields=name`, { headers: { accept: 'application/json' } });
      expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
      expect(plain.headers.get('etag')).toMatch(/^"/);
    });
  });

  describe.each([
    ['graphql-ws', (url: string) => graphqlWsClient(url)],
    ['graphql-sse', (url: string) => graphqlSseClient(url)],
  ])('GraphQL live queries over %s', (_name, connect) => {
    let client: LiveGraphqlClient;
    beforeAll(() => {
      client = connect(server.url);
    });
    afterAll(async () => {
      await client.dispose();
    });

    it('sends the result now and after a REST write and a GraphQL mutation; nothing for other tables', async () => {
      const query = `subscription ($id: ID!) { user(id: $id) { name posts(first: 5) { title } } }`;
      const sub = client.subscribe(query, { id: userId });
      try {
        const first = await sub.results.next();
        const expected = (await gql(server.url, `query ($id: ID!) { user(id: $id) { name posts(first: 5) { title } } }`, { id: userId })).json;
        expect(first).toEqual(expected);

        await patchUser({ name: `Rest ${_name}` });
        expect((await sub.results.next()).data.user.name).toBe(`Rest ${_name}`);

        await http(server.url, 'PATCH', `/products/${productId}`, { body: { stock: 9 }, headers: { 'content-type': 'application/merge-patch+json' } });
        await gql(server.url, `mutation { updateUser(id: "${userId}", input: { name: "GraphQL ${_name}" }) { id } }`);
        expect((await sub.results.next()).data.user.name).toBe(`GraphQL ${_name}`);
        expect(sub.results.waitingCount).toBe(0);
      } finally {
        sub.close();
      }
    });

    it('runs queries too, and refuses an invalid subscription with a coded error', async () => {
      const query = client.subscribe(`{ user(id: "${userId}") { id } }`);
      expect(await query.results.next()).toEqual({ data: { user: { id: userId } } });
      await query.ended;
      const bad = client.subscribe('subscription { user(id: "1") { nope } }');
      const outcome = await Promise.race([bad.ended, bad.results.next().then((result: unknown) => ({ result }))]);
      expect(JSON.stringify(outcome)).toContain('GRAPHQL_VALIDATION_FAILED');
    });
  });

  it('refuses a live read past the per-client limit with 429 LIVE_READS_LIMIT, in both styles, and frees the place on close', async () => {
    const limited = await startServer(() => ctx.open(), { seed: false, engine: { live: { maxPerClient: 1 } } });
    const ws = graphqlWsClient(limited.url);
    try {
      const first = openEventSource(`${limited.url}/users/${userId}?fields=name`);
      await first.events.next();
      const refused = await http(limited.url, 'GET', `/users/${userId}?fields=name`, { headers: { accept: 'text/event-stream' } });
      expect(refused.status).toBe(429);
      expect(refused.json).toMatchObject({ code: 'LIVE_READS_LIMIT' });
      const sub = ws.subscribe(`subscription { user(id: "${userId}") { name } }`);
      expect((await sub.results.next()).errors[0].extensions.code).toBe('LIVE_READS_LIMIT');
      first.close();
      // The server hears of the close when the connection ends; from then on a new stream gets the place.
      for (;;) {
        const next = openEventSource(`${limited.url}/users/${userId}?fields=name`);
        try {
          await next.opened;
          expect((await next.events.next()).type).toBe('update');
          break;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 10));
        } finally {
          next.close();
        }
      }
    } finally {
      await ws.dispose();
      const closing = limited.close();
      // A connection one of the clients opened and never sent a request on (seen on PostgreSQL's timing) would
      // hold the close until the headers timeout: cut it.
      limited.app.server.closeAllConnections();
      await closing;
    }
  });

  it('refuses a subscription over plain POST /graphql: it needs a stream', async () => {
    const response = await gql(server.url, `subscription { user(id: "${userId}") { id } }`);
    expect(response.json.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
    expect(response.json.data).toBeUndefined();
  });
});
