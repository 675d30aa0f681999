/**
 * Issue 36, finding 8c: a suspension takes effect at once. Through a real
 * server on both databases, in both styles: once an admin suspends an
 * account, its still-valid access token is refused on the next request
 * (403 ACCOUNT_SUSPENDED; it can no longer clear its own suspension), and its
 * refresh tokens are revoked, so lifting the suspension does not revive them;
 * and its open streams end at once on every transport.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { graphqlSseClient, graphqlWsClient, openEventSource } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const ADMIN_KEY = 'suspension-test-admin-key-0123456789';
const codeOf = (response: HttpResponse): string | undefined => (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;

describeEachDialect('suspension ends an account at once', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { auth: { adminKey: ADMIN_KEY }, accounts: { passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 } } },
    });
  });
  afterAll(() => server.close());

  it('refuses the suspended account’s unexpired token in both styles, keeps it from clearing its suspension, and revokes its refresh token', async () => {
    const email = `suspend-me-${ctx.dialect}@example.com`;
    const session = await http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Mod', email, password: 'a-long-password-1' } });
    expect(session.status, session.text).toBe(201);
    const id = String(session.json?.accountId);
    const bearer = { authorization: `Bearer ${String(session.json?.accessToken)}` };
    expect((await http(server.url, 'GET', `/users/${id}`, { headers: bearer })).status).toBe(200);

    const suspend = await http(server.url, 'PATCH', `/users/${id}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: { suspendedReason: 'spam' } });
    expect(suspend.status, suspend.text).toBe(200);

    const rest = await http(server.url, 'GET', `/users/${id}`, { headers: bearer });
    expect(rest.status).toBe(403);
    expect(codeOf(rest)).toBe('ACCOUNT_SUSPENDED');
    const graphql = await http(server.url, 'POST', '/graphql', { headers: bearer, body: { query: `{ user(id: ${JSON.stringify(id)}) { id } }` } });
    expect(codeOf(graphql)).toBe('ACCOUNT_SUSPENDED');
    const clear = await http(server.url, 'PATCH', `/users/${id}`, { headers: bearer, body: { suspendedReason: null } });
    expect(clear.status).toBe(403);
    const clearGraphql = await http(server.url, 'POST', '/graphql', {
      headers: bearer,
      body: { query: `mutation { updateUser(id: ${JSON.stringify(id)}, input: { suspendedReason: null }) { id } }` },
    });
    expect(codeOf(clearGraphql)).toBe('ACCOUNT_SUSPENDED');
    const row = await server.db.all<{ suspended_reason: string | null }>(`SELECT suspended_reason FROM users WHERE id = ${server.db.sql.placeholder(0)}`, [id]);
    expect(row[0]?.suspended_reason).toBe('spam');

    // Lifted: the old token works again until it expires, but the refresh token the suspension revoked does not.
    expect((await http(server.url, 'PATCH', `/users/${id}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: { suspendedReason: null } })).status).toBe(200);
    expect((await http(server.url, 'GET', `/users/${id}`, { headers: bearer })).status).toBe(200);
    expect(codeOf(await http(server.url, 'POST', '/auth/refresh', { body: { refreshToken: session.json?.refreshToken } }))).toBe('REFRESH_TOKEN_INVALID');
  });

  it('ends the suspended account’s open streams at once: REST SSE with a 403 problem, graphql-sse with ACCOUNT_SUSPENDED, graphql-ws by closing the socket (4403)', async () => {
    const email = `streams-suspended-${ctx.dialect}@example.com`;
    const session = await http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Watcher', email, password: 'a-long-password-2' } });
    expect(session.status, session.text).toBe(201);
    const id = String(session.json?.accountId);
    const bearer = `Bearer ${String(session.json?.accessToken)}`;
    const rest = openEventSource(`${server.url}/users/${id}?fields=name`, { authorization: bearer });
    const sse = graphqlSseClient(server.url, bearer);
    const ws = graphqlWsClient(server.url, bearer);
    const query = `subscription { user(id: ${JSON.stringify(id)}) { name } }`;
    try {
      expect((await rest.events.next()).data).toEqual({ name: 'Watcher' });
      const overSse = sse.subscribe(query);
      const overWs = ws.subscribe(query);
      expect((await overSse.results.next()).data).toEqual({ user: { name: 'Watcher' } });
      expect((await overWs.results.next()).data).toEqual({ user: { name: 'Watcher' } });

      // The token stays good for 15 more minutes; the suspension ends the streams now, with nothing of the new data.
      const suspend = await http(server.url, 'PATCH', `/users/${id}`, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: { suspendedReason: 'spam', name: 'Suspended watcher' } });
      expect(suspend.status, suspend.text).toBe(200);
      const problem = await rest.events.next();
      expect(problem.type).toBe('problem');
      expect(problem.data.code).toBe('ACCOUNT_SUSPENDED');
      expect(((await overSse.results.next()) as { errors?: { extensions?: { code?: string } }[] }).errors?.[0]?.extensions?.code).toBe('ACCOUNT_SUSPENDED');
      // The operation ends (with ACCOUNT_SUSPENDED, or by the socket closing with 4403); a new one with that token is refused.
      await overWs.ended;
      const again = ws.subscribe(query);
      expect(String(((await again.ended).error as { code?: number } | undefined)?.code)).toBe('4403');
      expect(JSON.stringify([overSse.results.received, overWs.results.received])).not.toContain('Suspended watcher');
    } finally {
      rest.close();
      await sse.dispose();
      await ws.dispose();
    }
  });
});
