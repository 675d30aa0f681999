/**
 * Nothing per process that clients can see: several instances on one
 * database (PostgreSQL pools, or SQLite connections to one file where that
 * is meaningful) answer as one server. An automatic persisted query
 * registered through one answers on another; a suspended account, or an API
 * key revoked through the admin API, is refused on every instance as soon as
 * the notice arrives; a webhook endpoint added, paused or removed through
 * one routes the next publication of another; a 304 answered from the
 * change clocks on one instance after a write on another is never stale,
 * while the writer lease moves between three; a change-event subscriber on
 * a third instance that restarts misses nothing written meanwhile on the
 * other two.
 */
import { createHash, randomBytes } from 'node:crypto';
import { expect, it } from 'vitest';
import { eventsOf } from '../../src/server/create-server.js';
import { describeEachDialect, describePostgres } from '../support/databases.js';
import { codeOf, http, untilCode, type HttpResponse } from '../support/http.js';
import { graphqlWsClient, openEventSource } from '../support/live-clients.js';
import { eventually } from '../support/uploads.js';
import { startServer, useInstances, type TestServer } from '../support/start-server.js';
import { startReceiver } from '../support/webhook-receiver.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const SEED = { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 };

describeEachDialect('automatic persisted queries across instances', (ctx) => {
  const servers = useInstances(() => ctx.open(), 2, { seed: SEED });

  it('a hash registered through one instance answers on the other, over GET and POST, with the same ETag', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const query = `{ users(first: 2, orderBy: [{ field: name }]) { name } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    const byHash = `/graphql?extensions=${encodeURIComponent(JSON.stringify(extensions))}`;
    expect(codeOf(await http(b.url, 'GET', byHash))).toBe('PERSISTED_QUERY_NOT_FOUND');
    const registered = await http(a.url, 'POST', '/graphql', { body: { query, extensions } });
    expect(registered.json.data.users).toHaveLength(2);
    const get = await http(b.url, 'GET', byHash);
    expect(get.status).toBe(200);
    expect(get.json).toEqual(registered.json);
    const onA = await http(a.url, 'GET', byHash);
    expect(onA.headers.get('etag')).toBe(get.headers.get('etag'));
    const post = await http(b.url, 'POST', '/graphql', { body: { extensions } });
    expect(post.json).toEqual(registered.json);
  });

  it('a hash registered with a document that is not its own is refused, and nothing is stored for the others', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const query = '{ users(first: 1) { id } }';
    const lie = { persistedQuery: { version: 1, sha256Hash: sha256('{ products(first: 1) { id } }') } };
    const refused = await http(a.url, 'POST', '/graphql', { body: { query, extensions: lie } });
    expect(codeOf(refused)).toBe('BAD_REQUEST');
    expect(codeOf(await http(b.url, 'POST', '/graphql', { body: { extensions: lie } }))).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});

const ADMIN_KEY = 'cluster-instances-admin-key-0123456789';
const CHEAP_HASH = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

// On PostgreSQL suspensions travel by NOTIFY; processes on one SQLite file are in test/server/sqlite-processes.test.ts.
describePostgres('a suspension across instances', (ctx) => {
  const servers = useInstances(() => ctx.open(), 3, { rules: true, seed: SEED, server: { auth: { adminKey: ADMIN_KEY }, accounts: { passwordHash: CHEAP_HASH } } });

  it('an account suspended through one instance is refused on every instance as soon as the notice arrives, long before anything it remembers expires', async () => {
    const [first, second, third] = servers as [TestServer, TestServer, TestServer];
    const session = await http(first.url, 'POST', '/auth/sign-up', { body: { name: 'Spread', email: `spread-${ctx.dialect}@example.com`, password: 'a-long-password-1' } });
    expect(session.status, session.text).toBe(201);
    const id = String(session.json.accountId);
    const bearer = { authorization: `Bearer ${String(session.json.accessToken)}` };
    // Each instance has seen the account unsuspended (and may remember it).
    for (const server of servers) expect((await http(server.url, 'GET', `/users/${id}`, { headers: bearer })).status).toBe(200);
    const suspend = await http(second.url, 'PATCH', `/users/${id}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: { suspendedReason: 'abuse' } });
    expect(suspend.status, suspend.text).toBe(200);
    for (const server of [first, second, third]) {
      await untilCode(() => http(server.url, 'GET', `/users/${id}`, { headers: bearer }), 'ACCOUNT_SUSPENDED');
      // Heard once, in one set every transport checks.
      const graphql = await http(server.url, 'POST', '/graphql', { headers: bearer, body: { query: `{ user(id: ${JSON.stringify(id)}) { id } }` } });
      expect(codeOf(graphql), server.url).toBe('ACCOUNT_SUSPENDED');
    }
  });
});

const admin = { authorization: `Bearer ${ADMIN_KEY}` };

describePostgres('the admin API across instances', (ctx) => {
  // A key is trusted from memory for a minute here: only the revocation's notice can make another instance refuse it sooner.
  const servers = useInstances(() => ctx.open(), 2, { seed: SEED, server: { auth: { adminKey: ADMIN_KEY, apiKeyCacheMs: 60_000 }, events: { pollMs: 60_000 } } });

  it('an API key revoked through one instance is refused by the other as soon as the notice arrives, and the stream it opened there ends', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const made = await http(a.url, 'POST', '/admin/api-keys', { headers: admin, body: { name: 'spread', role: 'MEMBER' } });
    expect(made.status, made.text).toBe(201);
    const bearer = { authorization: `Bearer ${String(made.json.key)}` };
    // B looks the key up once and from then on trusts it from memory.
    expect((await http(b.url, 'GET', '/posts?limit=1', { headers: bearer })).status).toBe(200);
    expect((await http(b.url, 'GET', '/posts?limit=1', { headers: bearer })).status).toBe(200);
    const live = openEventSource(`${b.url}/posts?limit=1`, bearer);
    try {
      await live.opened;
      expect((await live.events.next()).type).toBe('update');
      const revoked = await http(a.url, 'DELETE', `/admin/api-keys/${String(made.json.id)}`, { headers: admin });
      expect(revoked.status, revoked.text).toBe(200);
      await untilCode(() => http(b.url, 'GET', '/posts?limit=1', { headers: bearer }), 'UNAUTHENTICATED');
      const ended = await live.events.next();
      expect(ended.type).toBe('problem');
      expect(ended.data.code).toBe('UNAUTHENTICATED');
    } finally {
      live.close();
    }
  });

  it('a webhook endpoint added, paused, resumed and removed through one instance routes the next publication of the other', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    // A only administers: it publishes and sends nothing, so every delivery below is routed and sent by B.
    await eventsOf(a.app).stop();
    const hub = eventsOf(b.app);
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const receiver = await startReceiver(secret);
    const author = ((await http(b.url, 'GET', '/users?limit=1&fields=id')).json.data as { id: string }[])[0]?.id;
    const post = async (title: string): Promise<string> => {
      const created = await http(b.url, 'POST', '/posts', { body: { title, body: 'b', author } });
      expect(created.status, created.text).toBe(201);
      return String(created.json.id);
    };
    const change = async (method: 'POST' | 'PATCH' | 'DELETE', body?: Record<string, unknown>): Promise<void> => {
      const path = method === 'POST' ? '/admin/webhooks' : '/admin/webhooks/shared';
      const answer = await http(a.url, method, path, { headers: admin, ...(body === undefined ? {} : { body }) });
      expect(answer.status, answer.text).toBeLessThan(300);
    };
    /** The deliveries routed to the endpoint so far: each is made in the publication of its event. */
    const routed = async (): Promise<number> => ((await http(b.url, 'GET', '/admin/deliveries?endpoint=shared&limit=500', { headers: admin })).json.data as unknown[]).length;
    const delivered = (): unknown[] => receiver.received.map((delivery) => delivery.payload.data['id']);
    try {
      // Each write on B is followed by B's next publication (settle), whether or not B heard A's notice yet.
      await change('POST', { name: 'shared', url: receiver.url, events: ['post.created'], secret, backoffMs: 50 });
      const added = await post('after the add');
      await hub.settle();
      await receiver.waitFor(1);
      expect(delivered()).toEqual([added]);

      await change('PATCH', { paused: true });
      const before = await hub.lastPosition();
      await post('while paused');
      // Published at once, not at B's next poll (a minute away): a paused endpoint is waited for too, so what is written while it is paused is never queued for it.
      await eventually(async () => (await hub.lastPosition()) > before);
      expect(await routed()).toBe(1);

      await change('PATCH', { paused: false });
      const resumed = await post('after the resume');
      await hub.settle();
      await receiver.waitFor(2);
      expect(delivered()).toEqual([added, resumed]);

      await change('DELETE');
      await post('after the removal');
      await hub.settle();
      expect(await routed()).toBe(2);
      expect(delivered()).toEqual([added, resumed]);
      expect(receiver.unverified).toEqual([]);
    } finally {
      await receiver.close();
    }
  });
});

describePostgres('validators across three instances while the writer lease moves', (ctx) => {
  const servers = useInstances(() => ctx.open(), 3, { seed: SEED });

  it('a 304 answered from the clocks is never stale: each write, on whichever instance, makes every other revalidate to 200', async () => {
    const id = (await http(servers[0]?.url ?? '', 'GET', '/users?limit=1&fields=id')).json.data[0].id as string;
    const etags = new Map<TestServer, string>();
    for (const server of servers) {
      const read = await http(server.url, 'GET', `/users/${id}`);
      etags.set(server, read.headers.get('etag') ?? '');
      // The clocks say nothing changed: a 304 from memory.
      expect((await http(server.url, 'GET', `/users/${id}`, { headers: { 'if-none-match': etags.get(server) ?? '' } })).status).toBe(304);
    }
    for (let round = 0; round < 9; round++) {
      const writer = servers[round % 3] as TestServer;
      const name = `Round ${round}`;
      expect((await http(writer.url, 'PATCH', `/users/${id}`, { body: { name } })).status).toBe(200);
      for (const server of servers) {
        const answer = await http(server.url, 'GET', `/users/${id}`, { headers: { 'if-none-match': etags.get(server) ?? '' } });
        expect(answer.status, `round ${round}, written on ${writer.url}, read on ${server.url}`).toBe(200);
        expect(answer.json.name).toBe(name);
        etags.set(server, answer.headers.get('etag') ?? '');
      }
    }
  });
});

describePostgres('a change-event subscriber whose instance restarts', (ctx) => {
  const servers = useInstances(() => ctx.open(), 2, { seed: SEED });

  it('resumes from its cursor on the restarted instance and misses nothing written on the other two meanwhile', async () => {
    const [a, b] = servers as [TestServer, TestServer];
    const create = (server: TestServer, name: string): Promise<HttpResponse> => http(server.url, 'POST', '/users', { body: { name, email: `${name.replaceAll(' ', '-')}-${Math.random()}@example.org` } });
    let c = await startServer(() => ctx.open(), { seed: false });
    const ws = graphqlWsClient(c.url);
    const sub = ws.subscribe('subscription { userCreated(filter: { name: { startsWith: "Gap" } }) { name } }');
    let cursor: string | undefined;
    try {
      for (let attempt = 0; attempt < 100 && sub.results.waitingCount === 0; attempt++) {
        await create(a, `Gap probe ${attempt}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      while (sub.results.waitingCount > 0) cursor = ((await sub.results.next()) as { extensions?: { event?: { cursor?: string } } }).extensions?.event?.cursor;
      expect(cursor).toMatch(/^\d+$/);
    } finally {
      sub.close();
      await ws.dispose();
    }
    await c.close();
    // While C is down, writes land on A and B.
    const written = ['Gap one', 'Gap two', 'Gap three', 'Gap four'];
    for (const [i, name] of written.entries()) expect((await create(i % 2 === 0 ? a : b, name)).status).toBe(201);
    await eventsOf(a.app).settle();
    await eventsOf(b.app).settle();
    c = await startServer(() => ctx.open(), { seed: false });
    const again = graphqlWsClient(c.url);
    const resumed = again.subscribe('subscription($after: String) { userCreated(filter: { name: { startsWith: "Gap" } }, after: $after) { name } }', { after: cursor });
    try {
      // Probes the first subscriber had not read yet come first (they are after its cursor too); then every write, in order.
      const names: string[] = [];
      while (names.length < written.length) {
        const name = ((await resumed.results.next()) as { data: { userCreated: { name: string } } }).data.userCreated.name;
        if (!name.startsWith('Gap probe')) names.push(name);
      }
      expect(names).toEqual(written);
      // And it goes on live.
      expect((await create(a, 'Gap five')).status).toBe(201);
      expect(((await resumed.results.next()) as { data: unknown }).data).toEqual({ userCreated: { name: 'Gap five' } });
    } finally {
      resumed.close();
      await again.dispose();
      await c.close();
    }
  });
});
