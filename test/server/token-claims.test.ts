/**
 * Issue 36, finding 8i: a token's times are checked at the edge, through a
 * real server on both databases, in both styles: a signed JWT without `exp`
 * (which would never expire, nor would its streams) is refused, and so is one
 * issued in the future beyond the documented 60 s tolerance.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SECRET = 'token-claims-secret-token-claims-secret-0123';

function sign(times: { iat?: number; exp?: number }): Promise<string> {
  const jwt = new SignJWT({ sub: '1', role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' });
  if (times.iat !== undefined) jwt.setIssuedAt(times.iat);
  if (times.exp !== undefined) jwt.setExpirationTime(times.exp);
  return jwt.sign(new TextEncoder().encode(SECRET));
}

describeEachDialect('token times at the edge', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 }, server: { auth: { jwtSecret: SECRET } } });
  });
  afterAll(() => server.close());

  const both = async (token: string): Promise<{ rest: HttpResponse; graphql: HttpResponse }> => ({
    rest: await http(server.url, 'GET', '/users?limit=1', { headers: { authorization: `Bearer ${token}` } }),
    graphql: await http(server.url, 'POST', '/graphql', { headers: { authorization: `Bearer ${token}` }, body: { query: '{ users(first: 1) { id } }' } }),
  });
  const now = (): number => Math.floor(Date.now() / 1000);

  it('refuses a signed token without exp, twice (it is not remembered either), in both styles', async () => {
    const token = await sign({ iat: now() });
    for (let attempt = 0; attempt < 2; attempt++) {
      const { rest, graphql } = await both(token);
      expect(rest.status, rest.text).toBe(401);
      expect(rest.json).toMatchObject({ code: 'UNAUTHENTICATED', detail: 'The token has no exp claim, which is required' });
      expect(graphql.json?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
      expect(graphql.json?.errors?.[0]?.message).toContain('no exp claim');
    }
  });

  it('refuses a token issued 6,000 s in the future, and accepts one within the 60 s tolerance', async () => {
    const future = await both(await sign({ iat: now() + 6000, exp: now() + 9000 }));
    expect(future.rest.status).toBe(401);
    expect(future.rest.json?.detail).toBe('The token was issued in the future');
    expect(future.graphql.json?.errors?.[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    const ahead = await both(await sign({ iat: now() + 30, exp: now() + 3600 }));
    expect(ahead.rest.status, ahead.rest.text).toBe(200);
    expect(ahead.graphql.json?.errors).toBeUndefined();
  });
});
