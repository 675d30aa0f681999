/**
 * Rate limits, over real sockets on both databases: a budget per principal
 * (a token's subject), per API key and per client address, charged by the
 * engine what a plan may read, so a REST include and the same GraphQL query
 * cost the same points; over it, 429 RATE_LIMITED with Retry-After and the
 * draft-ietf-httpapi-ratelimit-headers fields, in both styles, until the
 * window ends. On PostgreSQL two instances count against one budget, within
 * the bound docs/production.md states.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key.js';
import { issueToken } from '../../src/auth/issue-token.js';
import { WRITE_COST } from '../../src/engine/request-meter.js';
import { ApiKeyStore } from '../../src/storage/api-keys.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { describeEachDialect, describePostgres } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { graphqlWsClient } from '../support/live-clients.js';
import { startPgStatementCounter, type PgStatementCounter } from '../support/pg-statement-counter.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SECRET = 'rate-limit-test-secret-0123456789-0123456789';
const SEED = { counts: { User: 30, Post: 90, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 2, pictures: 0 };

/** A short window for the burst tests, a long one where points are compared. */
const RATE_LIMITS = {
  anonymous: { points: 30, window: 1 },
  member: { points: 100_000, window: 3600 },
  roles: { MODERATOR: { points: 20, window: 1 } },
};

const bearer = async (sub: string, role = 'MEMBER'): Promise<Record<string, string>> => ({
  authorization: `Bearer ${await issueToken(SECRET, { sub, role }, 3600)}`,
});

const GQL_JSON = { accept: 'application/graphql-response+json' };

/** `RateLimit: "<policy>";r=<remaining>;t=<seconds>` read back. */
function rateLimit(response: HttpResponse): { readonly policy: string; readonly remaining: number; readonly reset: number } {
  const field = response.headers.get('ratelimit') ?? '';
  const match = /^"([a-z_]+)";r=(\d+);t=(\d+)$/.exec(field);
  if (match === null) throw new Error(`no RateLimit field in ${response.status} ${JSON.stringify([...response.headers])}`);
  return { policy: match[1] as string, remaining: Number(match[2]), reset: Number(match[3]) };
}

/** Sends `count` requests at once (twice the budget and more: over it even if a window ends among them); one that was refused. */
async function exhaust(send: () => Promise<HttpResponse>, count: number): Promise<HttpResponse> {
  const responses = await Promise.all(Array.from({ length: count }, send));
  for (const response of responses) expect([200, 429], response.text).toContain(response.status);
  const refused = responses.find((response) => response.status === 429);
  if (refused === undefined) throw new Error(`no 429 among ${count} requests`);
  return refused;
}

/** Polls (a short sleep between tries) until `send` is served again: the window has ended. */
async function recovered(send: () => Promise<HttpResponse>): Promise<HttpResponse> {
  for (let tries = 0; tries < 100; tries++) {
    const response = await send();
    if (response.status !== 429) return response;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the window never ended');
}

/** A GET sent from another local address (Linux routes all of 127/8 to loopback). */
function fromAddress(url: string, localAddress: string): Promise<{ readonly status: number; readonly ratelimit: string | undefined }> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(url, { localAddress, agent: false }, (response) => {
      response.resume();
      response.on('end', () => {
        const field = response.headers['ratelimit'];
        resolve({ status: response.statusCode ?? 0, ratelimit: Array.isArray(field) ? field.join(', ') : field });
      });
    });
    sent.on('error', reject);
    sent.end();
  });
}

describeEachDialect('rate limits', (ctx) => {
  let server: TestServer;
  let userId: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: SEED, server: { auth: { jwtSecret: SECRET }, rateLimits: RATE_LIMITS } });
    userId = (await http(server.url, 'GET', '/users?limit=1', { headers: await bearer('setup') })).json.data[0].id as string;
  });
  afterAll(() => server.close());

  it('announces the policy and what is left on every answer, in both styles', async () => {
    const headers = await bearer('announce');
    const rest = await http(server.url, 'GET', `/users/${userId}`, { headers });
    expect(rest.headers.get('ratelimit-policy')).toBe('"member";q=100000;w=3600');
    expect(rateLimit(rest)).toMatchObject({ policy: 'member', remaining: 100_000 - 1 });
    const graphql = await http(server.url, 'POST', '/graphql', { body: { query: `{ user(id: "${userId}") { name } }` }, headers: { ...headers, ...GQL_JSON } });
    expect(graphql.headers.get('ratelimit-policy')).toBe('"member";q=100000;w=3600');
    expect(rateLimit(graphql)).toMatchObject({ policy: 'member', remaining: 100_000 - 2 });
  });

  it('answers a burst over the budget 429 with Retry-After and the RateLimit fields, then serves again after the window (REST)', async () => {
    const send = (): Promise<HttpResponse> => http(server.url, 'GET', `/users/${userId}?fields=name`);
    const refused = await exhaust(send, 2 * RATE_LIMITS.anonymous.points + 5);
    expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(refused.json).toMatchObject({ status: 429, code: 'RATE_LIMITED', title: 'Too many requests', policy: 'anonymous' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(refused.headers.get('ratelimit-policy')).toBe('"anonymous";q=30;w=1');
    expect(rateLimit(refused)).toMatchObject({ policy: 'anonymous', remaining: 0 });
    const again = await recovered(send);
    expect(again.status).toBe(200);
    // Served again, on a budget that may be down to its last point (the burst can straddle a window's end).
    expect(rateLimit(again)).toMatchObject({ policy: 'anonymous', remaining: expect.any(Number) });
  });

  it('answers a burst over the budget 429 with extensions.code in GraphQL, then serves again over GET and POST', async () => {
    const query = `{ user(id: "${userId}") { name } }`;
    const post = (): Promise<HttpResponse> => http(server.url, 'POST', '/graphql', { body: { query }, headers: GQL_JSON });
    const refused = await exhaust(post, 2 * RATE_LIMITS.anonymous.points + 5);
    expect(refused.json.data).toBeUndefined();
    expect(refused.json.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) })]);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(rateLimit(refused)).toMatchObject({ policy: 'anonymous', remaining: 0 });
    const get = (): Promise<HttpResponse> => http(server.url, 'GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: GQL_JSON });
    expect((await recovered(get)).json.data.user.name).toEqual(expect.any(String));
    expect((await recovered(post)).status).toBe(200);
  });

  it('charges a REST include and the same GraphQL query the same points, over GET and POST', async () => {
    const headers = await bearer('parity');
    const query = '{ users(first: 5) { id name posts { id title } } }';
    const rest = (): Promise<HttpResponse> => http(server.url, 'GET', '/users?limit=5&fields=id,name&include=posts&posts.fields=id,title', { headers });
    const post = (): Promise<HttpResponse> => http(server.url, 'POST', '/graphql', { body: { query }, headers: { ...headers, ...GQL_JSON } });
    const get = (): Promise<HttpResponse> => http(server.url, 'GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: { ...headers, ...GQL_JSON } });
    const start = rateLimit(await rest()).remaining;
    const afterRest = rateLimit(await rest()).remaining;
    const afterPost = rateLimit(await post()).remaining;
    const afterGet = rateLimit(await get()).remaining;
    const restCost = start - afterRest;
    // Five users, each with its page of (up to 20) posts: the include is charged, not only the five rows.
    expect(restCost).toBe(5 * (1 + 20));
    expect(afterRest - afterPost).toBe(restCost);
    expect(afterPost - afterGet).toBe(restCost);
    // A revalidation answered 304 is charged the same: the budget, not the cache, decides.
    const etag = (await get()).headers.get('etag') ?? '';
    const before = rateLimit(await rest()).remaining;
    const revalidated = await http(server.url, 'GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: { ...headers, ...GQL_JSON, 'if-none-match': etag } });
    expect(revalidated.status).toBe(304);
    expect(before - rateLimit(revalidated).remaining).toBe(restCost);
  });

  it('charges a write the same fixed cost in both styles', async () => {
    const headers = await bearer('writer');
    const created = await http(server.url, 'POST', '/users', { body: { name: 'Writer', email: 'writer@example.org' }, headers });
    expect(created.status, created.text).toBe(201);
    const afterRest = rateLimit(created).remaining;
    const mutation = await http(server.url, 'POST', '/graphql', {
      body: { query: 'mutation { createUser(input: { name: "Writer 2", email: "writer2@example.org" }) { id } }' },
      headers: { ...headers, ...GQL_JSON },
    });
    expect(mutation.json.errors, mutation.text).toBeUndefined();
    expect(afterRest - rateLimit(mutation).remaining).toBe(WRITE_COST);
    expect(100_000 - afterRest).toBe(WRITE_COST);
  });

  it("keeps budgets apart: one moderator's exhaustion leaves another, a member, an API key and another address served", async () => {
    const first = await bearer('moderator-1', 'MODERATOR');
    const refused = await exhaust(() => http(server.url, 'GET', `/users/${userId}`, { headers: first }), 2 * RATE_LIMITS.roles.MODERATOR.points + 5);
    expect(refused.json.code).toBe('RATE_LIMITED');
    expect(refused.headers.get('ratelimit-policy')).toBe('"moderator";q=20;w=1');

    const second = await http(server.url, 'GET', `/users/${userId}`, { headers: await bearer('moderator-2', 'MODERATOR') });
    expect(second.status).toBe(200);
    expect(rateLimit(second)).toMatchObject({ policy: 'moderator', remaining: 19 });
    expect((await http(server.url, 'GET', `/users/${userId}`, { headers: await bearer('member-1') })).status).toBe(200);

    const { key, hash } = generateApiKey();
    await new ApiKeyStore(server.db).insert({ id: `limits-${ctx.dialect}`, name: 'limits', role: 'MODERATOR', hash, createdAt: new Date().toISOString() });
    const byKey = await http(server.url, 'GET', `/users/${userId}`, { headers: { authorization: `Bearer ${key}` } });
    expect(byKey.status).toBe(200);
    expect(rateLimit(byKey)).toMatchObject({ policy: 'moderator', remaining: 19 });

    // Anonymous callers are counted by address: one at 127.0.0.2 has a budget of its own.
    const elsewhere = await fromAddress(`${server.url}/users/${userId}`, '127.0.0.2');
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.ratelimit).toMatch(/^"anonymous";r=29;t=\d+$/);
  });

  it('refuses a request that costs more than a whole budget, in both styles and over GraphQL GET, saying so', async () => {
    const headers = await bearer('moderator-big', 'MODERATOR');
    // 5 × (1 + 20) = 105 points, against a budget of 20.
    const query = '{ users(first: 5) { id posts { id } } }';
    const rest = await http(server.url, 'GET', '/users?limit=5&fields=id&include=posts&posts.fields=id', { headers });
    expect(rest.status).toBe(429);
    expect(rest.json.detail).toMatch(/costs 105 points, more than the 20/);
    for (const answer of [
      await http(server.url, 'GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: { ...headers, ...GQL_JSON } }),
      await http(server.url, 'POST', '/graphql', { body: { query }, headers: { ...headers, ...GQL_JSON } }),
    ]) {
      expect(answer.status).toBe(429);
      expect(answer.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(answer.json.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/costs 105 points/), extensions: expect.objectContaining({ code: 'RATE_LIMITED' }) })]);
    }
  });

  it('leaves the admin unlimited by default', async () => {
    const admin = await http(server.url, 'GET', `/users/${userId}`, { headers: await bearer('root', 'ADMIN') });
    expect(admin.status).toBe(200);
    expect(admin.headers.get('ratelimit')).toBeNull();
    expect(admin.headers.get('ratelimit-policy')).toBeNull();
  });

  it('sends the admin Server-Timing with the plan, database and render times in both styles, errors included; nobody else', async () => {
    const timing = /^plan;dur=\d+\.\d\d, db;dur=\d+\.\d\d, render;dur=\d+\.\d\d$/;
    // Server-side detail: a stranger could time what a rule hides (a draft that exists, an account that does).
    for (const asker of [{}, await bearer('timing')]) {
      expect((await http(server.url, 'GET', `/users/${userId}`, { headers: asker })).headers.get('server-timing')).toBeNull();
      const graphql = await http(server.url, 'POST', '/graphql', { body: { query: `{ user(id: "${userId}") { name } }` }, headers: { ...asker, ...GQL_JSON } });
      expect(graphql.headers.get('server-timing')).toBeNull();
    }
    const headers = await bearer('root', 'ADMIN');
    const query = `{ user(id: "${userId}") { name } }`;
    const answers = [
      await http(server.url, 'GET', `/users/${userId}`, { headers }),
      await http(server.url, 'POST', '/graphql', { body: { query }, headers: { ...headers, ...GQL_JSON } }),
      await http(server.url, 'GET', `/graphql?query=${encodeURIComponent(query)}`, { headers: { ...headers, ...GQL_JSON } }),
      await http(server.url, 'GET', '/users/no-such-user', { headers }),
      await http(server.url, 'POST', '/graphql', { body: { query: '{ nope }' }, headers: { ...headers, ...GQL_JSON } }),
    ];
    for (const answer of answers) expect(answer.headers.get('server-timing')).toMatch(timing);
    const [read] = answers;
    expect(Number(/db;dur=([\d.]+)/.exec(read?.headers.get('server-timing') ?? '')?.[1])).toBeGreaterThan(0);
  });

  it('gives GraphQL GET answers the Last-Modified of REST answers over the same tables, and honours If-Modified-Since', async () => {
    const headers = await bearer('modified');
    // Last-Modified is sent once the last change is a second old (its resolution): the test before this one wrote.
    let rest = await http(server.url, 'GET', '/users?limit=3&fields=id', { headers });
    for (let tries = 0; rest.headers.get('last-modified') === null && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      rest = await http(server.url, 'GET', '/users?limit=3&fields=id', { headers });
    }
    const query = '{ users(first: 3) { id } }';
    const url = `/graphql?query=${encodeURIComponent(query)}`;
    const graphql = await http(server.url, 'GET', url, { headers: { ...headers, ...GQL_JSON } });
    const lastModified = graphql.headers.get('last-modified');
    expect(lastModified).toMatch(/GMT$/);
    expect(lastModified).toBe(rest.headers.get('last-modified'));
    const unchanged = await http(server.url, 'GET', url, { headers: { ...headers, ...GQL_JSON, 'if-modified-since': lastModified ?? '' } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('last-modified')).toBe(lastModified);
  });
});

describePostgres('rate limits shared by two instances', (ctx) => {
  const budget = 200;
  const interval = 0.2;
  const options = { auth: { jwtSecret: SECRET }, rateLimits: { member: { points: budget, window: 3600 }, exchangeInterval: interval } };
  const counters: PgStatementCounter[] = [];
  let a: TestServer;
  let b: TestServer;

  /** An instance whose every statement is seen on the wire. */
  const instance = async (seed: typeof SEED | false): Promise<TestServer> => {
    const target = new URL(ctx.url);
    const counter = await startPgStatementCounter({ host: target.hostname, port: Number(target.port || 5432) });
    counters.push(counter);
    target.port = String(counter.port);
    return startServer(() => openDatabase(target.toString()), { seed, server: options });
  };

  beforeAll(async () => {
    a = await instance(SEED);
    b = await instance(false);
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    for (const counter of counters) await counter.close();
  });

  it('shares one budget within the documented bound, trading counts at most once an interval per instance', async () => {
    const headers = await bearer('shared');
    const id = (await http(a.url, 'GET', '/users?limit=1&fields=id', { headers: await bearer('setup') })).json.data[0].id as string;
    const exchanges = (): number[] => counters.map((counter) => counter.statements.filter((text) => text.includes('rate_counts')).length);
    const exchangesBefore = exchanges();
    // One client, one cheap read at a time, to each instance in turn, until both refuse it.
    let admitted = 0;
    let refusedBy = new Set<string>();
    const started = performance.now();
    let lastAdmitted = started;
    for (let turn = 0; refusedBy.size < 2; turn++) {
      if (turn > 4 * budget) throw new Error(`still served after ${turn} requests`);
      const server = turn % 2 === 0 ? a : b;
      const response = await http(server.url, 'GET', `/users/${id}?fields=name`, { headers });
      expect([200, 429], response.text).toContain(response.status);
      if (response.status === 200) {
        admitted++;
        lastAdmitted = performance.now();
        refusedBy = new Set();
      } else refusedBy.add(server.url);
    }
    const seconds = (lastAdmitted - started) / 1000;
    // docs/production.md: N instances, an exchange every I seconds, a client spending R points a second over all of them
    // can overspend by R × 2I × (N − 1) / N, plus what arrives while an exchange runs: here a third interval for that, and
    // a request's worth either side of a window's count.
    const rate = admitted / seconds;
    const bound = Math.ceil(rate * 3 * interval * (1 / 2)) + 2;
    expect(admitted, `${admitted} admitted at ${rate.toFixed(0)} a second`).toBeGreaterThanOrEqual(budget);
    expect(admitted, `${admitted} admitted at ${rate.toFixed(0)} a second, bound ${budget} + ${bound}`).toBeLessThanOrEqual(budget + bound);
    // Shared, not two budgets side by side.
    expect(admitted).toBeLessThan(2 * budget);
    const traded = exchanges().map((count, index) => count - (exchangesBefore[index] ?? 0));
    for (const count of traded) {
      expect(count).toBeGreaterThan(0);
      expect(count, `${count} exchanges in ${seconds.toFixed(2)} s`).toBeLessThanOrEqual(Math.ceil((performance.now() - started) / 1000 / interval) + 1);
    }
  });
});

describeEachDialect('the client address behind trusted proxies', (ctx) => {
  const limits = { anonymous: { points: 1000, window: 3600 }, member: false as const };
  let trusting: TestServer;
  let plain: TestServer;
  let userId: string;

  beforeAll(async () => {
    trusting = await startServer(() => ctx.open(), { seed: SEED, server: { rateLimits: limits, trustProxy: ['127.0.0.1'] }, engine: { live: { maxPerClient: 1 } } });
    plain = await startServer(() => ctx.open(), { seed: false, server: { rateLimits: limits } });
    userId = (await http(trusting.url, 'GET', '/users?limit=1&fields=id')).json.data[0].id as string;
  });
  afterAll(async () => {
    await plain.close();
    await trusting.close();
  });

  const remaining = async (server: TestServer, forwardedFor: string, style: 'rest' | 'graphql'): Promise<number> => {
    const headers = { 'x-forwarded-for': forwardedFor };
    const response =
      style === 'rest'
        ? await http(server.url, 'GET', `/users/${userId}?fields=name`, { headers })
        : await http(server.url, 'POST', '/graphql', { body: { query: `{ user(id: "${userId}") { name } }` }, headers });
    expect(response.status).toBe(200);
    return rateLimit(response).remaining;
  };

  it('counts each client a trusted proxy names on its own budget, in both styles', async () => {
    const first = await remaining(trusting, '203.0.113.7', 'rest');
    expect(await remaining(trusting, '203.0.113.7', 'graphql')).toBe(first - 1);
    expect(await remaining(trusting, '198.51.100.9', 'graphql')).toBe(first);
  });

  it('ignores X-Forwarded-For from a client it does not trust: a client cannot pick its own budget', async () => {
    const first = await remaining(plain, '203.0.113.7', 'rest');
    // Not a fresh budget: the same one, less this request (and on PostgreSQL, whatever the other instance traded in meanwhile).
    expect(await remaining(plain, '198.51.100.9', 'rest')).toBeLessThanOrEqual(first - 1);
  });

  it('counts live reads over a WebSocket by the address the proxy names too', async () => {
    const a = graphqlWsClient(trusting.url, undefined, { 'x-forwarded-for': '203.0.113.7' });
    const b = graphqlWsClient(trusting.url, undefined, { 'x-forwarded-for': '198.51.100.9' });
    try {
      const query = `subscription { user(id: "${userId}") { name } }`;
      const mine = a.subscribe(query);
      expect(((await mine.results.next()) as { data: unknown }).data).toEqual({ user: { name: expect.any(String) } });
      // The same client's second live read is over its limit of one; another client behind the proxy has its own.
      const again = a.subscribe(query);
      expect(JSON.stringify(await again.results.next())).toContain('LIVE_READS_LIMIT');
      const theirs = b.subscribe(query);
      expect(((await theirs.results.next()) as { data: unknown }).data).toEqual({ user: { name: expect.any(String) } });
      mine.close();
      theirs.close();
    } finally {
      await a.dispose();
      await b.dispose();
    }
  });
});
