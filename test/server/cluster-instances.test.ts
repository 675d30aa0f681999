/**
 * Nothing per process that clients can see: several instances on one
 * database (PostgreSQL pools, or SQLite connections to one file where that
 * is meaningful) answer as one server. An automatic persisted query
 * registered through one answers on another; a suspended account is
 * refused on every instance at once; a 304 answered from the change clocks
 * on one instance after a write on another is never stale, while the
 * writer lease moves between three; a change-event subscriber on a third
 * instance that restarts misses nothing written meanwhile on the other two.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { eventsOf } from '../../src/server/create-server.js';
import { describeEachDialect, describePostgres } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { graphqlWsClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');
const codeOf = (response: HttpResponse): string | undefined => (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;
const SEED = { counts: { User: 5, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 };

describeEachDialect('automatic persisted queries across instances', (ctx) => {
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startServer(() => ctx.open(), { seed: SEED });
    b = await startServer(() => ctx.open(), { seed: false });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('a hash registered through one instance answers on the other, over GET and POST, with the same ETag', async () => {
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
    const query = '{ users(first: 1) { id } }';
    const lie = { persistedQuery: { version: 1, sha256Hash: sha256('{ products(first: 1) { id } }') } };
    const refused = await http(a.url, 'POST', '/graphql', { body: { query, extensions: lie } });
    expect(codeOf(refused)).toBe('BAD_REQUEST');
    expect(codeOf(await http(b.url, 'POST', '/graphql', { body: { extensions: lie } }))).toBe('PERSISTED_QUERY_NOT_FOUND');
  });
});

const ADMIN_KEY = 'cluster-instances-admin-key-0123456789';
const CHEAP_HASH = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

// On PostgreSQL, where instances scale out: suspensions travel by NOTIFY. (Two processes on one SQLite file do not tell each other.)
describePostgres('a suspension across instances', (ctx) => {
  const servers: TestServer[] = [];
  beforeAll(async () => {
    const options = { rules: true, server: { auth: { adminKey: ADMIN_KEY }, accounts: { passwordHash: CHEAP_HASH } } } as const;
    servers.push(await startServer(() => ctx.open(), { ...options, seed: SEED }));
    servers.push(await startServer(() => ctx.open(), { ...options, seed: false }));
    servers.push(await startServer(() => ctx.open(), { ...options, seed: false }));
  });
  afterAll(async () => {
    for (const server of servers.reverse()) await server.close();
  });

  it('an account suspended through one instance is refused on every instance at once', async () => {
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
      const rest = await http(server.url, 'GET', `/users/${id}`, { headers: bearer });
      expect(codeOf(rest), server.url).toBe('ACCOUNT_SUSPENDED');
      const graphql = await http(server.url, 'POST', '/graphql', { headers: bearer, body: { query: `{ user(id: ${JSON.stringify(id)}) { id } }` } });
      expect(codeOf(graphql), server.url).toBe('ACCOUNT_SUSPENDED');
    }
  });
});

describePostgres('validators across three instances while the writer lease moves', (ctx) => {
  const servers: TestServer[] = [];
  beforeAll(async () => {
    servers.push(await startServer(() => ctx.open(), { seed: SEED }));
    servers.push(await startServer(() => ctx.open(), { seed: false }));
    servers.push(await startServer(() => ctx.open(), { seed: false }));
  });
  afterAll(async () => {
    for (const server of servers.reverse()) await server.close();
  });

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
  let a: TestServer;
  let b: TestServer;
  beforeAll(async () => {
    a = await startServer(() => ctx.open(), { seed: SEED });
    b = await startServer(() => ctx.open(), { seed: false });
  });
  afterAll(async () => {
    await b.close();
    await a.close();
  });

  it('resumes from its cursor on the restarted instance and misses nothing written on the other two meanwhile', async () => {
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
