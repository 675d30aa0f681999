/**
 * The accounts flows write and read the `@account` type like any other
 * route: a sign-up naming a deprecated or renamed field, or a session's
 * `account` selecting one, tells the client as every other request does
 * (REST `Deprecation`/`Sunset`/`Link` headers, GraphQL
 * `extensions.deprecations`), and is counted, on both databases.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readDeprecationUses } from '../../src/storage/deprecation-uses.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { modelOf } from '../support/model-of.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SCHEMA = `
type Member @account(identifier: "email") @allow(read: "true", create: "true", update: "id == auth.id", delete: "id == auth.id") {
  id: ID!
  email: String! @unique @allow(read: "id == auth.id")
  displayName: String @renamed(from: "nick")
  handle: String @deprecated(reason: "Use displayName.", sunset: "2027-06-30")
}
`;
const CHEAP_HASH = { memoryCost: 1024, timeCost: 1, parallelism: 1 };
const PASSWORD = 'a long enough password';
const SUNSET = 'Wed, 30 Jun 2027 00:00:00 GMT';

describeEachDialect('deprecated uses in the accounts flows', (ctx) => {
  let server: TestServer;
  let count = 0;
  const email = (): string => `member-${++count}-${ctx.dialect}@example.com`;
  const graphql = (query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) => http(server.url, 'POST', '/graphql', { headers, body: { query, variables } });

  beforeAll(async () => {
    await ctx.reset();
    server = await startServer(() => ctx.open(), {
      model: modelOf(SCHEMA),
      seed: false,
      files: false,
      server: { accounts: { passwordHash: CHEAP_HASH, limits: { signUpsPerAddress: { points: 10_000, seconds: 60 } } } },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  describe('REST /auth/sign-up', () => {
    it('naming a renamed field by its old name carries Deprecation and a Link to its docs', async () => {
      const response = await http(server.url, 'POST', '/auth/sign-up', { body: { email: email(), password: PASSWORD, nick: 'Ada' } });
      expect(response.status, response.text).toBe(201);
      expect(response.headers.get('deprecation')).toMatch(/^@\d+$/);
      expect(response.headers.get('link')).toContain('</docs/deprecations#Member.nick>; rel="deprecation"');
      expect(response.headers.get('sunset')).toBeNull();
      const me = await http(server.url, 'GET', '/me?fields=displayName', { headers: { authorization: `Bearer ${String(response.json.accessToken)}` } });
      expect(me.json).toEqual({ displayName: 'Ada' });
    });

    it('naming a deprecated field carries its Sunset too, and a refusal after planning keeps them', async () => {
      const address = email();
      const response = await http(server.url, 'POST', '/auth/sign-up', { body: { email: address, password: PASSWORD, handle: 'ada' } });
      expect(response.status, response.text).toBe(201);
      expect(response.headers.get('sunset')).toBe(SUNSET);
      expect(response.headers.get('link')).toContain('</docs/deprecations#Member.handle>; rel="sunset"');
      const again = await http(server.url, 'POST', '/auth/sign-up', { body: { email: address, password: PASSWORD, handle: 'ada' } });
      expect(again.status).toBe(409);
      expect(again.headers.get('sunset')).toBe(SUNSET);
    });

    it('using nothing deprecated carries none', async () => {
      const response = await http(server.url, 'POST', '/auth/sign-up', { body: { email: email(), password: PASSWORD, displayName: 'Bo' } });
      expect(response.status, response.text).toBe(201);
      expect(response.headers.get('deprecation')).toBeNull();
      expect(response.headers.get('link') ?? '').not.toContain('rel="deprecation"');
    });
  });

  describe('GraphQL', () => {
    const SIGN_UP = 'mutation ($input: CreateMemberInput!, $password: String!) { signUp(input: $input, password: $password) { accountId account { id } } }';

    it('signUp naming an old or deprecated field says so in extensions.deprecations', async () => {
      const response = await graphql(SIGN_UP, { input: { email: email(), nick: 'Cy', handle: 'cy' }, password: PASSWORD });
      expect(response.json.errors).toBeUndefined();
      expect(response.json.extensions.deprecations).toEqual([
        { kind: 'field', coordinate: 'Member.handle', reason: 'Use displayName.', sunset: '2027-06-30' },
        { kind: 'field', coordinate: 'Member.nick', reason: 'Renamed to displayName', sunset: null },
      ]);
      const plain = await graphql(SIGN_UP, { input: { email: email(), displayName: 'Di' }, password: PASSWORD });
      expect(plain.json.errors).toBeUndefined();
      expect(plain.json).not.toHaveProperty('extensions');
    });

    it("signIn selecting a deprecated field of the session's account says so", async () => {
      const address = email();
      expect((await http(server.url, 'POST', '/auth/sign-up', { body: { email: address, password: PASSWORD, displayName: 'Ed' } })).status).toBe(201);
      const response = await graphql('mutation ($email: String!, $password: String!) { signIn(email: $email, password: $password) { account { nick handle } } }', { email: address, password: PASSWORD });
      expect(response.json.errors).toBeUndefined();
      expect(response.json.data.signIn.account).toEqual({ nick: 'Ed', handle: null });
      expect(response.json.extensions.deprecations.map((entry: { coordinate: string }) => entry.coordinate)).toEqual(['Member.handle', 'Member.nick']);
    });
  });

  it('counts each use per client, as for any other route', async () => {
    await server.engine.deprecationUsage.flush();
    const before = await readDeprecationUses(server.db);
    await http(server.url, 'POST', '/auth/sign-up', { headers: { 'x-client-name': 'signup-app' }, body: { email: email(), password: PASSWORD, nick: 'Fy' } });
    await graphql(SIGN_UP_WITH_OLD_NAME, { input: { email: email(), nick: 'Gu' }, password: PASSWORD }, { 'x-client-name': 'signup-app' });
    await server.engine.deprecationUsage.flush();
    const usesOf = (rows: typeof before): number => rows.filter((row) => row.coordinate === 'Member.nick' && row.client === 'signup-app').reduce((sum, row) => sum + row.uses, 0);
    expect(usesOf(await readDeprecationUses(server.db)) - usesOf(before)).toBe(2);
  });
});

const SIGN_UP_WITH_OLD_NAME = 'mutation ($input: CreateMemberInput!, $password: String!) { signUp(input: $input, password: $password) { accountId } }';
