import { request as httpRequest, type IncomingMessage } from 'node:http';
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

  it('lets a client hold only a few graphql-sse reservations that never connect (each was kept for ever)', async () => {
    const reserve = (): Promise<Response> => fetch(`${server.url}/graphql/stream`, { method: 'PUT', headers: { accept: 'text/plain' } });
    const tokens: string[] = [];
    let refused: Response | undefined;
    for (let i = 0; i < 20 && refused === undefined; i++) {
      const response = await reserve();
      if (response.status === 201) tokens.push(await response.text());
      else refused = response;
    }
    // The first test reserved two; this client's limit is eight.
    expect(tokens.length).toBe(6);
    expect(refused?.status).toBe(429);
    expect(await refused?.text()).toContain('LIVE_READS_LIMIT');

    // A reservation connected and closed is let go, and the client may reserve again.
    const abort = new AbortController();
    const stream = await fetch(`${server.url}/graphql/stream`, { headers: { accept: 'text/event-stream', 'x-graphql-event-stream-token': tokens[0] as string }, signal: abort.signal });
    expect(stream.status).toBe(200);
    abort.abort();
    let again = await reserve();
    for (let i = 0; i < 100 && again.status !== 201; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      again = await reserve();
    }
    expect(again.status).toBe(201);
  });

  it('ends a graphql-sse change-event stream whose reader stopped reading, once 1,000 events wait, with LIVE_READS_LIMIT and the cursor to resume from', async () => {
    const author = (await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data[0].id as string;
    const body = 'x'.repeat(20_000);
    const url = new URL('/graphql/stream', server.url);
    // A distinct-connection stream read by hand, so that reading can stop: its head comes once the subscription is registered.
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers: { accept: 'text/event-stream', 'content-type': 'application/json' } }, resolve);
      req.on('error', reject);
      req.end(JSON.stringify({ query: 'subscription { postCreated { id body } }' }));
    });
    expect(response.statusCode).toBe(200);
    response.pause();
    const posts = 1_300;
    for (let i = 0; i < posts; i += 50) {
      await Promise.all(Array.from({ length: 50 }, () => http(server.url, 'POST', '/posts', { body: { title: 'Flood', body, author } })));
    }
    let text = '';
    response.setEncoding('utf8');
    response.on('data', (chunk: string) => (text += chunk));
    response.resume();
    await new Promise((resolve) => response.once('end', resolve));
    const messages = text.split('\n\n').filter((block) => block.startsWith('event: next'));
    const last = JSON.parse((messages.at(-1) ?? '').replace(/^event: next\ndata: /, '')) as { payload?: unknown; errors?: { extensions?: { code?: string } }[]; extensions?: { event?: { cursor?: string } } };
    // Fewer events than were written: the stream was ended, not buffered without a bound.
    expect(messages.length).toBeLessThan(posts);
    expect(last.errors?.[0]?.extensions?.code).toBe('LIVE_READS_LIMIT');
    expect(last.extensions?.event?.cursor).toMatch(/^\d+$/);
  }, 60_000);
});
