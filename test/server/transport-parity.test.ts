/**
 * The transport parity table: one set of expectations run through every
 * way an operation can arrive — HTTP POST, HTTP GET, graphql-ws,
 * graphql-sse (POST and a stream opened by GET) and a REST event stream —
 * with the same expected outcome and code in each cell, on both databases.
 * Each transport passes through the one request context built at the edge,
 * so none can skip who is asking, their budget, their client key or the
 * site the request came from.
 */
import WebSocket from 'ws';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../src/auth/issue-token.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlSseClient, graphqlWsClient, type LiveGraphqlClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SECRET = 'transport-parity-secret-0123456789-0123456789';
const MEMBER_POINTS = 400;
const SIGN_INS_PER_ADDRESS = 4;
const MAX_LIVE_PER_CLIENT = 3;
/** What one run of a live read may cost here: the five users of the parity question fit, sixty do not. */
const LIVE_MAX_COST = 50;

type Single = 'http-post' | 'http-get' | 'graphql-ws' | 'graphql-sse' | 'graphql-sse-get';
type Live = 'graphql-ws' | 'graphql-sse' | 'graphql-sse-get' | 'rest-sse';
const SINGLE: readonly Single[] = ['http-post', 'http-get', 'graphql-ws', 'graphql-sse', 'graphql-sse-get'];
const LIVE: readonly Live[] = ['graphql-ws', 'graphql-sse', 'graphql-sse-get', 'rest-sse'];

/** What an operation came to: its data, or the code of its first error. */
interface Outcome {
  readonly code: string | undefined;
  readonly data: unknown;
}

/** The same question in both styles: a GraphQL selection and the REST GET that asks it. */
const USERS_QUERY = '{ users(first: 5) { id } }';
const USERS_LIVE = 'subscription { users(first: 5) { id } }';
const USERS_REST = '/users?limit=5&fields=id';

interface GraphqlBody {
  readonly data?: unknown;
  readonly errors?: readonly { readonly extensions?: { readonly code?: string } }[];
}

function outcomeOf(body: GraphqlBody | undefined): Outcome {
  return { code: body?.errors?.[0]?.extensions?.code, data: body?.data };
}

/** Undici's fetch from another loopback address (Linux routes all of 127/8 to loopback), or the default one. */
function fetchFrom(localAddress: string | undefined): (url: string, init?: Parameters<typeof undiciFetch>[1]) => ReturnType<typeof undiciFetch> {
  const dispatcher = localAddress === undefined ? undefined : new Agent({ localAddress });
  return (url, init) => undiciFetch(url, { ...init, ...(dispatcher === undefined ? {} : { dispatcher }) });
}

/** The first message of an event stream (`event:` and parsed `data:`), and the stream closed after it. */
async function firstEvent(response: Awaited<ReturnType<typeof undiciFetch>>): Promise<{ readonly event: string; readonly data: unknown }> {
  const reader = response.body?.getReader();
  if (reader === undefined) throw new Error('no body');
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const block = /(?:^|\n)event: ([^\n]+)\n(?:id: [^\n]*\n)?data: ([^\n]*)\n\n/.exec(text);
      if (block !== null) return { event: block[1] as string, data: JSON.parse(block[2] as string) as unknown };
      const { value, done } = await reader.read();
      if (done) throw new Error(`the stream ended without an event: ${text}`);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

describeEachDialect('transport parity', (ctx) => {
  let server: TestServer;
  const clients: LiveGraphqlClient[] = [];
  let accountNumber = 0;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 12, Post: 12, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1, pictures: 0 },
      engine: { live: { maxPerClient: MAX_LIVE_PER_CLIENT, maxCost: LIVE_MAX_COST } },
      server: {
        auth: { jwtSecret: SECRET },
        rateLimits: { anonymous: { points: 1_000_000, window: 3600 }, member: { points: MEMBER_POINTS, window: 3600 } },
        accounts: {
          passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
          limits: {
            failuresPerIdentifier: { points: 1000, seconds: 900 },
            signInsPerAddress: { points: SIGN_INS_PER_ADDRESS, seconds: 900 },
            signUpsPerAddress: { points: 1000, seconds: 900 },
          },
        },
      },
    });
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.dispose()));
    await server.close();
  });

  /** A token for a fresh account of its own: each cell spends a budget nobody else touches. */
  async function freshMember(claims: Record<string, unknown> = {}): Promise<{ readonly sub: string; readonly authorization: string }> {
    const sub = `parity-${accountNumber++}`;
    return { sub, authorization: `Bearer ${await issueToken(SECRET, { sub, role: 'MEMBER', ...claims }, 3600)}` };
  }

  function wsClient(authorization?: string, from?: string): LiveGraphqlClient {
    const client = graphqlWsClient(server.url, authorization, undefined, from);
    clients.push(client);
    return client;
  }

  function sseClient(authorization?: string, from?: string): LiveGraphqlClient {
    const client = graphqlSseClient(server.url, authorization, from);
    clients.push(client);
    return client;
  }

  /** One query or mutation through `transport`, as a client of it would send it. */
  async function run(transport: Single, query: string, variables: Record<string, unknown> = {}, authorization?: string, from?: string): Promise<Outcome> {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const search = `query=${encodeURIComponent(query)}&variables=${encodeURIComponent(JSON.stringify(variables))}`;
    switch (transport) {
      case 'http-post': {
        const response = await fetchFrom(from)(`${server.url}/graphql`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json', accept: 'application/graphql-response+json' },
          body: JSON.stringify({ query, variables }),
        });
        return outcomeOf((await response.json()) as GraphqlBody);
      }
      case 'http-get': {
        const response = await fetchFrom(from)(`${server.url}/graphql?${search}`, { headers: { ...headers, accept: 'application/graphql-response+json' } });
        return outcomeOf((await response.json()) as GraphqlBody);
      }
      case 'graphql-sse-get': {
        const response = await fetchFrom(from)(`${server.url}/graphql/stream?${search}`, { headers: { ...headers, accept: 'text/event-stream' } });
        return outcomeOf((await firstEvent(response)).data as GraphqlBody);
      }
      case 'graphql-ws':
      case 'graphql-sse': {
        const client = transport === 'graphql-ws' ? wsClient(authorization, from) : sseClient(authorization, from);
        const subscription = client.subscribe(query, variables);
        const result = await Promise.race([subscription.results.next(), subscription.ended.then(({ error }) => ({ errors: [{ extensions: { code: `ENDED ${String(error)}` } }] }))]);
        subscription.close();
        return outcomeOf(result as GraphqlBody);
      }
    }
  }

  /**
   * A live read through `transport` (the parity question, or the one of `size` users): its first message
   * (or the refusal of the request), `next` for the ones after it, `close` to end it.
   */
  async function watch(transport: Live, authorization?: string, size = 5): Promise<Outcome & { close(): void; next(): Promise<Outcome> }> {
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    const query = USERS_LIVE.replace('first: 5', `first: ${size}`);
    if (transport === 'rest-sse' || transport === 'graphql-sse-get') {
      const abort = new AbortController();
      const url = transport === 'rest-sse' ? `${server.url}${USERS_REST.replace('limit=5', `limit=${size}`)}` : `${server.url}/graphql/stream?query=${encodeURIComponent(query)}`;
      const response = await undiciFetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal: abort.signal });
      const close = (): void => abort.abort();
      if (response.status !== 200) {
        const problem = (await response.json()) as { code?: string };
        return { code: problem.code, data: undefined, close, next: () => Promise.reject(new Error('refused')) };
      }
      const reader = response.body?.getReader();
      if (reader === undefined) throw new Error('no body');
      let text = '';
      const next = async (): Promise<Outcome> => {
        for (;;) {
          const block = /(?:^|\n)event: ([^\n]+)\n(?:id: [^\n]*\n)?data: ([^\n]*)\n\n/.exec(text);
          if (block !== null) {
            text = text.slice(block.index + block[0].length);
            const data = JSON.parse(block[2] as string) as GraphqlBody & { code?: string };
            // REST sends the representation (`update`) or a problem; GraphQL a result.
            if (transport === 'rest-sse') return { code: block[1] === 'problem' ? data.code : undefined, data: block[1] === 'update' ? data : undefined };
            return outcomeOf(data);
          }
          const { value, done } = await reader.read();
          if (done) return { code: 'STREAM ENDED', data: undefined };
          text += new TextDecoder().decode(value);
        }
      };
      return { ...(await next()), close, next };
    }
    const client = transport === 'graphql-ws' ? wsClient(authorization) : sseClient(authorization);
    const subscription = client.subscribe(query);
    const ended = subscription.ended.then(({ error }) => ({ errors: [{ extensions: { code: error === undefined ? 'STREAM ENDED' : `ENDED ${String(error)}` } }] }));
    const next = async (): Promise<Outcome> => outcomeOf((await Promise.race([subscription.results.next(), ended])) as GraphqlBody);
    return { ...(await next()), close: () => subscription.close(), next };
  }

  /** Points left in a member's budget, read from an HTTP request's RateLimit field (that request costs one point). */
  async function remaining(authorization: string): Promise<number> {
    const response = await http(server.url, 'POST', '/graphql', { headers: { authorization }, body: { query: '{ __typename }' } });
    const match = /;r=(\d+);/.exec(response.headers.get('ratelimit') ?? '');
    if (match === null) throw new Error(`no RateLimit field: ${response.status} ${response.text}`);
    return Number(match[1]);
  }

  /** Spends all of a member's budget with one request that costs more than it allows. */
  async function exhaust(authorization: string): Promise<void> {
    const response = await http(server.url, 'GET', '/users?limit=100&include=posts,followers', { headers: { authorization } });
    expect(response.status, response.text).toBe(429);
  }

  describe('rate limits: the same question costs the same points on every transport, and over the budget each refuses it alike', () => {
    const spent = new Map<string, number>();

    it.each(SINGLE)('a query over %s', async (transport) => {
      const member = await freshMember();
      const outcome = await run(transport, USERS_QUERY, {}, member.authorization);
      expect(outcome.code).toBeUndefined();
      spent.set(transport, MEMBER_POINTS - (await remaining(member.authorization)));
    });

    it.each(LIVE)('the first answer of a live read over %s', async (transport) => {
      const member = await freshMember();
      const live = await watch(transport, member.authorization);
      expect(live.code).toBeUndefined();
      live.close();
      spent.set(`live ${transport}`, MEMBER_POINTS - (await remaining(member.authorization)));
    });

    it('charged every cell the same, and more than the probe alone', () => {
      const values = new Set(spent.values());
      expect([...spent.keys()].length).toBe(SINGLE.length + LIVE.length);
      expect(values.size, JSON.stringify(Object.fromEntries(spent))).toBe(1);
      expect([...values][0]).toBeGreaterThan(1);
    });

    it.each(SINGLE)('a member whose budget is spent is refused RATE_LIMITED over %s', async (transport) => {
      const member = await freshMember();
      await exhaust(member.authorization);
      expect((await run(transport, USERS_QUERY, {}, member.authorization)).code).toBe('RATE_LIMITED');
      const write = 'mutation { updateUser(id: "nobody", input: { bio: "spent" }) { id } }';
      expect((await run(transport, write, {}, member.authorization)).code).toBe(transport.endsWith('get') ? 'METHOD_NOT_ALLOWED' : 'RATE_LIMITED');
    });

    it.each(LIVE)('a member whose budget is spent cannot start a live read over %s', async (transport) => {
      const member = await freshMember();
      await exhaust(member.authorization);
      const live = await watch(transport, member.authorization);
      live.close();
      expect(live.code).toBe('RATE_LIMITED');
    });
  });

  describe('live reads: their re-runs count against their owner, and a heavy one is refused when it starts', () => {
    it.each(LIVE)('a live read over %s whose owner has spent the budget ends with RATE_LIMITED at its next run', async (transport) => {
      const member = await freshMember();
      const live = await watch(transport, member.authorization);
      try {
        expect(live.code).toBeUndefined();
        await exhaust(member.authorization);
        const admin = `Bearer ${await issueToken(SECRET, { sub: 'parity-admin', role: 'ADMIN' }, 3600)}`;
        const first = (live.data as { users?: { id: string }[]; data?: { id: string }[] }).users?.[0] ?? (live.data as { data: { id: string }[] }).data[0];
        const changed = await http(server.url, 'PATCH', `/users/${first?.id ?? ''}`, { headers: { authorization: admin }, body: { bio: `changed for ${transport}` } });
        expect(changed.status).toBe(200);
        expect((await live.next()).code).toBe('RATE_LIMITED');
        expect((await live.next()).code).toBe('STREAM ENDED');
      } finally {
        live.close();
      }
    });

    it.each(LIVE)('a live read over %s that costs more than live.maxCost a run is refused with QUERY_TOO_COMPLEX', async (transport) => {
      const member = await freshMember();
      const live = await watch(transport, member.authorization, 60);
      live.close();
      expect(live.code).toBe('QUERY_TOO_COMPLEX');
      // The same question is an ordinary read.
      expect((await run('http-post', '{ users(first: 60) { id } }', {}, member.authorization)).code).toBeUndefined();
    });
  });

  describe('mutations run only over POST: a stream opened by GET refuses them, and nothing is written', () => {
    const email = (transport: string): string => `parity-get-${transport}-${ctx.dialect}@example.com`;
    const create = (transport: string): string => `mutation { createUser(input: { name: "Mallory", email: "${email(transport)}" }) { id } }`;

    it.each(['http-get', 'graphql-sse-get'] as const)('%s', async (transport) => {
      expect((await run(transport, create(transport))).code).toBe('METHOD_NOT_ALLOWED');
    });

    it('/graphql itself, asked for an event stream by GET', async () => {
      const response = await undiciFetch(`${server.url}/graphql?query=${encodeURIComponent(create('graphql-accept'))}`, { headers: { accept: 'text/event-stream' } });
      expect(outcomeOf((await firstEvent(response)).data as GraphqlBody).code).toBe('METHOD_NOT_ALLOWED');
    });

    it('wrote none of them, while a POST would have', async () => {
      const admin = `Bearer ${await issueToken(SECRET, { sub: 'parity-admin', role: 'ADMIN' }, 3600)}`;
      const count = async (address: string): Promise<number> =>
        (await http(server.url, 'GET', `/users?filter[email][eq]=${encodeURIComponent(address)}&count=true&limit=1&fields=id`, { headers: { authorization: admin } })).json.totalCount as number;
      for (const transport of ['http-get', 'graphql-sse-get', 'graphql-accept']) expect(await count(email(transport))).toBe(0);
      expect((await run('graphql-sse', create('graphql-sse'))).code).toBeUndefined();
      expect(await count(email('graphql-sse'))).toBe(1);
    });
  });

  describe('a page of another site is refused a write on every transport', () => {
    it('HTTP POST with a form content type', async () => {
      const response = await http(server.url, 'POST', '/graphql', {
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain' },
        raw: JSON.stringify({ query: 'mutation { signOutEverywhere }' }),
      });
      expect(response.json.errors[0].extensions.code).toBe('CROSS_SITE_REQUEST_REFUSED');
    });

    it('graphql-sse POST with a form content type', async () => {
      const response = await http(server.url, 'POST', '/graphql/stream', {
        headers: { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site', 'content-type': 'text/plain', accept: 'text/event-stream' },
        raw: JSON.stringify({ query: 'mutation { signOutEverywhere }' }),
      });
      expect(response.status).toBe(403);
      expect(response.text).toContain('CROSS_SITE_REQUEST_REFUSED');
    });

    it('graphql-ws: the upgrade itself, which no preflight protects', async () => {
      const refused = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const socket = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { origin: 'https://evil.example' } });
        socket.on('unexpected-response', (_request, response) => {
          let body = '';
          response.on('data', (chunk: Buffer) => (body += chunk.toString()));
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
        });
        socket.on('open', () => reject(new Error('a cross-site WebSocket was opened')));
        socket.on('error', () => undefined);
      });
      expect(refused.status).toBe(403);
      expect(JSON.parse(refused.body)).toMatchObject({ code: 'CROSS_SITE_REQUEST_REFUSED' });
      // The page's own origin still opens one.
      const own = new WebSocket(`${server.url.replace(/^http/, 'ws')}/graphql`, 'graphql-transport-ws', { headers: { origin: server.url } });
      await new Promise<void>((resolve, reject) => {
        own.on('open', () => resolve());
        own.on('error', reject);
      });
      own.close();
    });
  });

  describe('live-read slots count per account, whatever the token and the transport', () => {
    it.each(LIVE)('the next live read over %s is refused once the account holds its slots on the others', async (transport) => {
      const member = await freshMember();
      const open: (() => void)[] = [];
      try {
        const others = LIVE.filter((other) => other !== transport);
        for (const [index, other] of others.entries()) {
          // Every slot with a token of its own: refreshed tokens differ only in iat, exp and sid.
          const token = `Bearer ${await issueToken(SECRET, { sub: member.sub, role: 'MEMBER', sid: `s${index}` }, 3600 + index)}`;
          const live = await watch(other, token);
          expect(live.code, other).toBeUndefined();
          open.push(() => live.close());
        }
        expect(open.length).toBe(MAX_LIVE_PER_CLIENT);
        const refused = await watch(transport, `Bearer ${await issueToken(SECRET, { sub: member.sub, role: 'MEMBER', sid: 'last' }, 7200)}`);
        open.push(() => refused.close());
        expect(refused.code).toBe('LIVE_READS_LIMIT');
      } finally {
        for (const close of open) close();
      }
    });
  });

  describe('account flows count sign-ins by the real client address on every transport', () => {
    const signIn = 'mutation ($email: String!) { signIn(email: $email, password: "not the password") { accessToken } }';

    it.each(SINGLE.filter((transport) => !transport.endsWith('get')))('an address at its sign-in limit over HTTP is limited over %s, and another address is not', async (transport) => {
      const address = `127.0.${SINGLE.indexOf(transport) + 10}.1`;
      const other = `127.0.${SINGLE.indexOf(transport) + 10}.2`;
      for (let attempt = 0; attempt < SIGN_INS_PER_ADDRESS; attempt++) {
        expect((await run('http-post', signIn, { email: `nobody-${attempt}@example.com` }, undefined, address)).code).toBe('INVALID_CREDENTIALS');
      }
      expect((await run(transport, signIn, { email: 'someone@example.com' }, undefined, address)).code).toBe('RATE_LIMITED');
      expect((await run(transport, signIn, { email: 'someone@example.com' }, undefined, other)).code).toBe('INVALID_CREDENTIALS');
    });
  });
});
