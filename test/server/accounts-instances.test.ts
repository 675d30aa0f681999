/**
 * Two instances on one PostgreSQL database share the sign-in limits: an
 * attacker who spreads guesses at one account over the instances behind a
 * load balancer gets no more guesses than against one.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const CHEAP_HASH = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
const LIMITS = { failuresPerIdentifier: { points: 4, seconds: 60 }, signInsPerAddress: { points: 10_000, seconds: 60 }, signUpsPerAddress: { points: 10_000, seconds: 60 } };

describePostgres('Sign-in limits across instances', (ctx) => {
  let first: TestServer;
  let second: TestServer;

  beforeAll(async () => {
    first = await startServer(() => ctx.open(), { rules: true, seed: false, server: { accounts: { passwordHash: CHEAP_HASH, limits: LIMITS } } });
    second = await startServer(() => ctx.open(), { rules: true, seed: false, server: { accounts: { passwordHash: CHEAP_HASH, limits: LIMITS } } });
  });
  afterAll(async () => {
    await second.close();
    await first.close();
  });

  it('counts failed sign-ins at one account on both instances together', async () => {
    const email = 'shared-limit@example.com';
    const signedUp = await http(first.url, 'POST', '/auth/sign-up', { body: { name: 'Shared', email, password: 'correct horse battery staple' } });
    expect(signedUp.status).toBe(201);
    const codes: unknown[] = [];
    for (let i = 0; i < 6; i++) {
      const server = i % 2 === 0 ? first : second;
      const answer = await http(server.url, 'POST', '/auth/sign-in', { body: { email, password: `wrong guess ${i}` } });
      codes.push(answer.json?.code);
    }
    // Four failures between them, then both refuse: each alone would have allowed four.
    expect(codes).toEqual(['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'INVALID_CREDENTIALS', 'RATE_LIMITED', 'RATE_LIMITED']);
    const right = await http(second.url, 'POST', '/auth/sign-in', { body: { email, password: 'correct horse battery staple' } });
    expect(right.status).toBe(429);
  });
});
