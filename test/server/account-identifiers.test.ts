/**
 * Issue 36, finding 4: an account identifier is one account whatever its
 * case. Through a real server on both databases, in both styles: a case
 * variant of a taken identifier is a conflict (sign-up and plain create), it
 * signs in, resets and is limited as the same account — so guesses at one
 * spelling can no longer be cleared by signing in to another. And at
 * migration: existing rows equal but for case are reported with their ids,
 * never merged.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadSchema } from '../../src/schema/load-schema.js';
import type { Model } from '../../src/schema/model.js';
import { migrate } from '../../src/storage/migrate/migrate.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const FAILURES = 3;
const codeOf = (response: HttpResponse): string | undefined => (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;

describeEachDialect('account identifiers compare case-insensitively', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: {
        accounts: {
          passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 },
          limits: { failuresPerIdentifier: { points: FAILURES, seconds: 600 }, signInsPerAddress: { points: 10_000, seconds: 600 }, signUpsPerAddress: { points: 10_000, seconds: 600 } },
        },
      },
    });
  });
  afterAll(() => server.close());

  const signUp = (style: 'rest' | 'graphql', email: string, password = 'a-long-password-1'): Promise<HttpResponse> =>
    style === 'rest'
      ? http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Case', email, password } })
      : http(server.url, 'POST', '/graphql', {
          body: { query: 'mutation($input: CreateUserInput!, $password: String!) { signUp(input: $input, password: $password) { accountId } }', variables: { input: { name: 'Case', email }, password } },
        });
  const signIn = (style: 'rest' | 'graphql', email: string, password: string): Promise<HttpResponse> =>
    style === 'rest'
      ? http(server.url, 'POST', '/auth/sign-in', { body: { email, password } })
      : http(server.url, 'POST', '/graphql', {
          body: { query: 'mutation($email: String!, $password: String!) { signIn(email: $email, password: $password) { accountId } }', variables: { email, password } },
        });

  it('refuses a case variant of a taken identifier at sign-up and at a plain create, in both styles', async () => {
    const email = `Barbara.Lovelace-${ctx.dialect}@Example.com`;
    expect((await signUp('rest', email)).status).toBe(201);
    for (const variant of [email.toLowerCase(), email.toUpperCase()]) {
      expect(codeOf(await signUp('rest', variant))).toBe('UNIQUE_VIOLATION');
      expect(codeOf(await signUp('graphql', variant))).toBe('UNIQUE_VIOLATION');
      const created = await http(server.url, 'POST', '/users', { body: { name: 'Squatter', email: variant } });
      expect(created.status, created.text).toBe(409);
      const mutation = await http(server.url, 'POST', '/graphql', { body: { query: 'mutation($email: String!) { createUser(input: { name: "Squatter", email: $email }) { id } }', variables: { email: variant } } });
      expect(codeOf(mutation)).toBe('UNIQUE_VIOLATION');
    }
    const rows = await server.db.all<{ id: string }>(`SELECT id FROM users WHERE lower(email) = lower(?)`.replace('?', ctx.dialect === 'postgres' ? '$1' : '?'), [email]);
    expect(rows).toHaveLength(1);
  });

  it('signs in with any spelling of the identifier, in both styles', async () => {
    const email = `Ada.Byron-${ctx.dialect}@Example.com`;
    const created = await signUp('graphql', email, 'ada-password-123');
    const accountId = String(created.json?.data?.signUp?.accountId);
    for (const style of ['rest', 'graphql'] as const) {
      for (const spelling of [email, email.toLowerCase(), email.toUpperCase()]) {
        const response = await signIn(style, spelling, 'ada-password-123');
        expect(codeOf(response), response.text).toBeUndefined();
        expect(response.json?.accountId ?? response.json?.data?.signIn?.accountId).toBe(accountId);
      }
    }
  });

  it('counts wrong guesses at every spelling against one account, which no case variant can clear', async () => {
    for (const style of ['rest', 'graphql'] as const) {
      const email = `Victim-${style}-${ctx.dialect}@Example.com`;
      expect((await signUp('rest', email, 'victim-password-1')).status).toBe(201);
      // The attacker's own "variant" account cannot exist…
      expect(codeOf(await signUp('rest', email.toLowerCase(), 'attacker-password-1'))).toBe('UNIQUE_VIOLATION');
      // …and guesses at any spelling count together.
      const spellings = [email, email.toLowerCase(), email.toUpperCase()];
      for (let i = 0; i < FAILURES; i++) expect(codeOf(await signIn(style, spellings[i % spellings.length] as string, `wrong-guess-${i}`))).toBe('INVALID_CREDENTIALS');
      for (const spelling of spellings) expect(codeOf(await signIn(style, spelling, 'attacker-password-1'))).toBe('RATE_LIMITED');
    }
  });

  it('sends a reset for any spelling of the identifier to the one account', async () => {
    const email = `Reset.Me-${ctx.dialect}@Example.com`;
    const accountId = String((await signUp('rest', email)).json?.accountId);
    const placeholder = ctx.dialect === 'postgres' ? '$1' : '?';
    const count = async (): Promise<number> =>
      (await server.db.all<{ id: string }>(`SELECT id FROM _diglot_events WHERE type = 'account.password_reset_requested' AND record_id = ${placeholder}`, [accountId])).length;
    const before = await count();
    expect((await http(server.url, 'POST', '/auth/password-reset/request', { body: { email: email.toUpperCase() } })).status).toBeLessThan(300);
    const graphql = await http(server.url, 'POST', '/graphql', { body: { query: 'mutation($email: String!) { requestPasswordReset(email: $email) }', variables: { email: email.toLowerCase() } } });
    expect(graphql.json?.errors).toBeUndefined();
    expect(await count()).toBe(before + 2);
  });
});

const SDL = `
type User @account(identifier: "email") @allow(read: "true", create: "true") {
  id: ID!
  email: String! @unique
  name: String!
}
`;

function accountModel(): Model {
  const result = loadSchema([{ file: 'case.graphql', text: SDL }]);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.model;
}

describeEachDialect('migrating to case-insensitive identifiers', (ctx) => {
  it('reports rows equal but for case with their ids and merges nothing; once they differ, makes the index, and is then idempotent', async () => {
    const db = await ctx.open();
    const model = accountModel();
    await migrate(db, model);
    const p = (i: number): string => db.sql.placeholder(i);
    // As an earlier version left it: a plain unique index, which let case variants in.
    await db.run('DROP INDEX users_email_key');
    await db.run('CREATE UNIQUE INDEX users_email_key ON users (email)');
    for (const [id, email] of [['u1', 'Ann@Example.com'], ['u2', 'ann@example.com'], ['u3', 'bob@example.com'], ['u4', 'ANN@EXAMPLE.COM']]) {
      await db.run(`INSERT INTO users (id, email, name) VALUES (${p(0)}, ${p(1)}, ${p(2)})`, [id as string, email as string, 'n']);
    }
    const plan = await migrate(db, model, { dryRun: true });
    expect(plan.steps.find((step) => step.problem !== undefined)?.problem).toContain('"ann@example.com" (ids u1, u2, u4)');
    await expect(migrate(db, model)).rejects.toThrow(/users\.email must be unique whatever its case.*"ann@example\.com" \(ids u1, u2, u4\)/);
    // Nothing changed: every row is still there, as it was.
    expect((await db.all<{ email: string }>('SELECT email FROM users ORDER BY id')).map((row) => row.email)).toEqual(['Ann@Example.com', 'ann@example.com', 'bob@example.com', 'ANN@EXAMPLE.COM']);

    await db.run(`UPDATE users SET email = ${p(0)} WHERE id = ${p(1)}`, ['ann+2@example.com', 'u2']);
    await db.run(`DELETE FROM users WHERE id = ${p(0)}`, ['u4']);
    expect((await migrate(db, model)).applied).toBe(true);
    expect((await migrate(db, model, { dryRun: true })).steps).toEqual([]);
    await expect(db.run(`INSERT INTO users (id, email, name) VALUES (${p(0)}, ${p(1)}, ${p(2)})`, ['u5', 'BOB@example.com', 'n'])).rejects.toMatchObject({ code: 'UNIQUE_VIOLATION' });
  });
});
