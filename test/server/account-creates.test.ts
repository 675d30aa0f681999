/**
 * Issue 36, finding 8a: sign-up's per-address limit holds for every create of
 * the `@account` type — `POST /users`, GraphQL `createUser` over HTTP and over
 * graphql-ws, and `/auth/sign-up` alike, counted together — and a create
 * refused for a taken identifier (a 409 that tells the identifier exists)
 * counts against it too. Through a real server, on both databases.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { graphqlWsClient } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SIGN_UPS = 4;
const codeOf = (response: HttpResponse): string | undefined => (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;

describeEachDialect('sign-up limits on every create of the account type', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { accounts: { passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 }, limits: { signUpsPerAddress: { points: SIGN_UPS, seconds: 600 } } } },
    });
  });
  afterAll(() => server.close());

  const createRest = (email: string): Promise<HttpResponse> => http(server.url, 'POST', '/users', { body: { name: 'Squat', email } });
  const CREATE = 'mutation($email: String!) { createUser(input: { name: "Squat", email: $email }) { id } }';
  const createGraphql = (email: string): Promise<HttpResponse> => http(server.url, 'POST', '/graphql', { body: { query: CREATE, variables: { email } } });

  it('counts anonymous creates and identifier conflicts in both styles against the address, then refuses every way in', async () => {
    const taken = `taken-${ctx.dialect}@example.com`;
    const first = await createRest(taken);
    expect(first.status, first.text).toBe(201);
    expect(codeOf(await createGraphql(`second-${ctx.dialect}@example.com`))).toBeUndefined();
    // Probes of a taken identifier: each 409 is counted.
    expect((await createRest(taken)).status).toBe(409);
    expect(codeOf(await createGraphql(taken))).toBe('UNIQUE_VIOLATION');

    const rest = await createRest(`fifth-${ctx.dialect}@example.com`);
    expect(rest.status, rest.text).toBe(429);
    expect(Number(rest.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(codeOf(await createGraphql(`sixth-${ctx.dialect}@example.com`))).toBe('RATE_LIMITED');
    // A probe past the limit learns nothing: 429, not 409.
    expect((await createRest(taken)).status).toBe(429);
    expect(codeOf(await http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Late', email: `late-${ctx.dialect}@example.com`, password: 'a-long-password-1' } }))).toBe('RATE_LIMITED');
    const ws = graphqlWsClient(server.url);
    try {
      const answer = await ws.subscribe(CREATE, { email: `socket-${ctx.dialect}@example.com` }).results.next();
      expect(answer.errors?.[0]?.extensions?.code).toBe('RATE_LIMITED');
    } finally {
      await ws.dispose();
    }
    const placeholder = ctx.dialect === 'postgres' ? '$1' : '?';
    const written = await server.db.all(`SELECT id FROM users WHERE email LIKE ${placeholder}`, [`%-${ctx.dialect}@example.com`]);
    expect(written).toHaveLength(2);
  });
});
