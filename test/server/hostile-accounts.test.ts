import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

/**
 * Hostile requests to the accounts flows, in both styles on both databases,
 * for defects found by attacking a running server (see the test names).
 */
describeEachDialect('Accounts under attack', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      // A hash that always fails (argon2 refuses t=0): any password work a request does shows as a 500.
      server: { accounts: { passwordHash: { memoryCost: 1024, timeCost: 0, parallelism: 1 } } },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('refuses an unknown reset token before hashing the new password (no argon2 work for strangers)', async () => {
    const password = 'a-perfectly-good-new-password';
    const rest = await http(server.url, 'POST', '/auth/password-reset/confirm', { body: { token: 'dot_made-up', password } });
    expect(rest.status).toBe(400);
    expect(rest.json?.code).toBe('ONE_TIME_TOKEN_INVALID');
    const graphql = await http(server.url, 'POST', '/graphql', {
      body: { query: 'mutation($token: String!, $password: String!) { resetPassword(token: $token, password: $password) }', variables: { token: 'dot_made-up', password } },
    });
    expect(graphql.json?.errors?.[0]?.extensions?.code).toBe('ONE_TIME_TOKEN_INVALID');
  });
});
