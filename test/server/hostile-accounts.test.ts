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

describeEachDialect('Accounts under attack: sign-in limits', (ctx) => {
  let server: TestServer;
  const FAILURES = 3;
  const SIGN_UPS = 4;
  const logLines: string[] = [];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: {
        logger: { level: 'info', stream: { write: (line: string) => void logLines.push(line) } },
        accounts: {
          passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
          limits: { failuresPerIdentifier: { points: FAILURES, seconds: 600 }, signInsPerAddress: { points: 10_000, seconds: 600 }, signUpsPerAddress: { points: SIGN_UPS, seconds: 600 } },
        },
      },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('counts concurrent wrong guesses at one account against its failure limit (no burst gets more guesses than the limit)', async () => {
    const guesses = 12;
    for (const style of ['rest', 'graphql'] as const) {
      const email = `burst-${style}-${ctx.dialect}@example.com`;
      const signUp = await http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Burst', email, password: 'the-right-password-1' } });
      expect(signUp.status).toBe(201);
      const codes = await Promise.all(
        Array.from({ length: guesses }, async (_, i) => {
          const password = `wrong-guess-${i}`;
          const response =
            style === 'rest'
              ? await http(server.url, 'POST', '/auth/sign-in', { body: { email, password } })
              : await http(server.url, 'POST', '/graphql', {
                  body: { query: 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { accessToken } }', variables: { email, password } },
                });
          return (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string;
        }),
      );
      expect(codes.filter((code) => code === 'INVALID_CREDENTIALS').length, `${style}: ${codes.join(', ')}`).toBe(FAILURES);
      expect(codes.filter((code) => code === 'RATE_LIMITED').length).toBe(guesses - FAILURES);
    }
  });

  it('keeps the log line of a failed sign-in small when the identifier is half a megabyte', async () => {
    const email = `${'h'.repeat(500_000)}@example.com`;
    const before = logLines.length;
    const rest = await http(server.url, 'POST', '/auth/sign-in', { body: { email, password: 'any-password-1' } });
    expect(rest.json?.code).toBe('INVALID_CREDENTIALS');
    const graphql = await http(server.url, 'POST', '/graphql', {
      body: { query: 'mutation($email: String!) { signIn(email: $email, password: "any-password-1") { accessToken } }', variables: { email } },
    });
    expect(graphql.json?.errors?.[0]?.extensions?.code).toBe('INVALID_CREDENTIALS');
    const written = logLines.slice(before);
    expect(written.filter((line) => line.includes('sign-in failed'))).toHaveLength(2);
    expect(Math.max(...written.map((line) => line.length))).toBeLessThan(10_000);
  });

  it('limits sign-ups per address, in both styles, before any password is hashed or record written (429 with Retry-After)', async () => {
    const signUp = async (style: 'rest' | 'graphql', i: number): Promise<{ code: string | undefined; retryAfter: string | undefined }> => {
      const email = `flood-${style}-${i}-${ctx.dialect}@example.com`;
      const response =
        style === 'rest'
          ? await http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Flood', email, password: 'a-long-password-1' } })
          : await http(server.url, 'POST', '/graphql', {
              body: { query: 'mutation($input: CreateUserInput!) { signUp(input: $input, password: "a-long-password-1") { accessToken } }', variables: { input: { name: 'Flood', email } } },
            });
      return { code: (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined, retryAfter: response.headers.get('retry-after') ?? undefined };
    };
    const outcomes = [];
    for (let i = 0; i < SIGN_UPS; i++) outcomes.push(await signUp(i % 2 === 0 ? 'rest' : 'graphql', i));
    const rest = await signUp('rest', 100);
    const graphql = await signUp('graphql', 101);
    expect(rest.code).toBe('RATE_LIMITED');
    expect(graphql.code).toBe('RATE_LIMITED');
    expect(Number(rest.retryAfter)).toBeGreaterThan(0);
    // Nothing of the refused sign-ups was written; the accepted ones were.
    const flooded = await server.db.all<{ email: string }>("SELECT email FROM users WHERE email LIKE 'flood-%'");
    expect(flooded.map((row) => row.email).filter((email) => /-10[01]-/.test(email))).toEqual([]);
    expect(flooded.length).toBe(outcomes.filter((outcome) => outcome.code === undefined).length);
    expect(outcomes.filter((outcome) => outcome.code === 'RATE_LIMITED').length).toBeGreaterThan(0);
  });
});
