/**
 * Issue 40: the admin API in both styles, through a real server on both
 * databases. Each action gives the same outcome in REST and GraphQL; a
 * caller without the admin role gets the same refusal in both and learns
 * nothing; a revoked key is refused at once; a suspension ends the
 * account's live read; secrets appear only in the answer that made them,
 * never later nor in the log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { openEventSource } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const ADMIN_KEY = 'admin-api-test-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const codeOf = (response: HttpResponse): string | undefined => (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;

describeEachDialect('admin API', (ctx) => {
  let server: TestServer;
  const logged: string[] = [];
  let member: Record<string, string>;
  let memberId: string;
  let memberKey: Record<string, string>;

  const graphql = (headers: Record<string, string>, query: string, variables?: Record<string, unknown>): Promise<HttpResponse> =>
    http(server.url, 'POST', '/graphql', { headers, body: { query, variables } });
  /** A GraphQL field's data, failing the test with the errors when there are any. */
  const data = async (headers: Record<string, string>, query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>> => {
    const response = await graphql(headers, query, variables);
    expect(response.json?.errors, response.text).toBeUndefined();
    return response.json.data as Record<string, unknown>;
  };

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 2, Post: 2, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 },
      server: {
        auth: { adminKey: ADMIN_KEY },
        accounts: { passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 } },
        logger: { level: 'debug', stream: { write: (line) => logged.push(line) } },
        schemaSources: [{ file: '/somewhere/private/schema.graphql', text: 'type User @allow(read: "true") { id: ID! }' }],
      },
    });
    const session = await http(server.url, 'POST', '/auth/sign-up', { body: { name: 'Member', email: `member-${ctx.dialect}@example.com`, password: 'a-long-password-1' } });
    expect(session.status, session.text).toBe(201);
    member = { authorization: `Bearer ${String(session.json.accessToken)}` };
    memberId = String(session.json.accountId);
    const key = await http(server.url, 'POST', '/admin/api-keys', { headers: admin, body: { name: 'member-key', role: 'MEMBER' } });
    expect(key.status, key.text).toBe(201);
    memberKey = { authorization: `Bearer ${String(key.json.key)}` };
  });
  afterAll(() => server.close());

  describe('API keys', () => {
    it('creates a key in each style, shows its secret once, lists and revokes it alike', async () => {
      const rest = await http(server.url, 'POST', '/admin/api-keys', { headers: admin, body: { name: 'ci-rest', role: 'ADMIN' } });
      expect(rest.status, rest.text).toBe(201);
      expect(rest.headers.get('location')).toBe(`/admin/api-keys/${String(rest.json.id)}`);
      expect(rest.headers.get('cache-control')).toBe('no-store');
      expect(rest.json).toMatchObject({ name: 'ci-rest', role: 'ADMIN', revokedAt: null });
      expect(rest.json.key).toMatch(/^dk_[A-Za-z0-9_-]{43}$/);
      const gql = (await data(admin, 'mutation { k: adminCreateApiKey(name: "ci-graphql", role: "ADMIN") { id name role revokedAt key } }'))['k'] as Record<string, unknown>;
      expect(gql).toMatchObject({ name: 'ci-graphql', role: 'ADMIN', revokedAt: null });
      expect(gql['key']).toMatch(/^dk_/);

      // The keys work as credentials; neither listing shows a key, in either style.
      const restKey = { authorization: `Bearer ${String(rest.json.key)}` };
      expect((await http(server.url, 'GET', '/admin/api-keys', { headers: restKey })).status).toBe(200);
      const listed = await http(server.url, 'GET', '/admin/api-keys', { headers: admin });
      const names = (listed.json.data as { name: string }[]).map((key) => key.name);
      expect(names).toEqual(expect.arrayContaining(['ci-rest', 'ci-graphql', 'member-key']));
      expect(listed.text).not.toContain(String(rest.json.key));
      expect(listed.text).not.toContain(String(gql['key']));
      const gqlList = await graphql(admin, '{ adminApiKeys { id name role createdAt revokedAt } }');
      expect(gqlList.json.data.adminApiKeys).toEqual(listed.json.data);
      expect(gqlList.text).not.toContain('dk_');

      // Revoked in one style, each style sees the same record; the key is refused on its very next request.
      const revoked = await http(server.url, 'DELETE', `/admin/api-keys/${String(rest.json.id)}`, { headers: admin });
      expect(revoked.status, revoked.text).toBe(200);
      expect(revoked.json.revokedAt).toEqual(expect.any(String));
      const refused = await http(server.url, 'GET', '/admin/api-keys', { headers: restKey });
      expect(refused.status).toBe(401);
      expect(codeOf(refused)).toBe('UNAUTHENTICATED');
      const again = (await data(admin, `mutation { adminRevokeApiKey(id: ${JSON.stringify(gql['id'])}) { id revokedAt } }`))['adminRevokeApiKey'] as Record<string, unknown>;
      expect(again['revokedAt']).toEqual(expect.any(String));
      const one = await http(server.url, 'GET', `/admin/api-keys/${String(gql['id'])}`, { headers: admin });
      expect((await data(admin, `{ adminApiKey(id: ${JSON.stringify(gql['id'])}) { id name role createdAt revokedAt } }`))['adminApiKey']).toEqual(one.json);

      // No secret of either key reached the log.
      expect(logged.join('\n')).not.toContain(String(rest.json.key));
      expect(logged.join('\n')).not.toContain(String(gql['key']));
    });

    it('refuses a revoked key at once although it was trusted a moment before, and ends the live read it opened', async () => {
      const made = await http(server.url, 'POST', '/admin/api-keys', { headers: admin, body: { name: 'live-reader', role: 'MEMBER' } });
      const bearer = { authorization: `Bearer ${String(made.json.key)}` };
      // Looked up once: from here on the server trusts it from memory (auth.apiKeyCacheMs, 5 s by default).
      expect((await http(server.url, 'GET', '/posts', { headers: bearer })).status).toBe(200);
      const live = openEventSource(`${server.url}/posts`, bearer);
      await live.opened;
      expect((await live.events.next()).type).toBe('update');
      expect((await graphql(admin, `mutation { adminRevokeApiKey(id: ${JSON.stringify(made.json.id)}) { id } }`)).json.errors).toBeUndefined();
      const ended = await live.events.next();
      expect(ended.type).toBe('problem');
      expect(ended.data.code).toBe('UNAUTHENTICATED');
      live.close();
      expect((await http(server.url, 'GET', '/posts', { headers: bearer })).status).toBe(401);
    });

    it('reports every problem of a create with the same pointers in both styles, and a taken name as a conflict', async () => {
      const rest = await http(server.url, 'POST', '/admin/api-keys', { headers: admin, body: { name: '-bad name', role: 'EMPEROR', extra: 1 } });
      expect(rest.status).toBe(400);
      expect(rest.json.code).toBe('VALIDATION_FAILED');
      const pointers = (rest.json.errors as { pointer: string }[]).map((error) => error.pointer).sort();
      expect(pointers).toEqual(['/extra', '/name', '/role']);
      const gql = await graphql(admin, 'mutation { adminCreateApiKey(name: "-bad name", role: "EMPEROR") { id } }');
      expect(codeOf(gql)).toBe('VALIDATION_FAILED');
      expect((gql.json.errors[0].extensions.errors as { pointer: string }[]).map((error) => error.pointer).sort()).toEqual(['/name', '/role']);
      const missing = await graphql(admin, 'mutation { adminCreateApiKey { id } }');
      expect(missing.json.errors[0].extensions.errors.map((error: { pointer: string }) => error.pointer).sort()).toEqual(['/name', '/role']);
      const taken = await http(server.url, 'POST', '/admin/api-keys', { headers: admin, body: { name: 'member-key', role: 'MEMBER' } });
      expect(taken.status).toBe(409);
      expect(taken.json.errors[0].pointer).toBe('/name');
      expect(codeOf(await graphql(admin, 'mutation { adminCreateApiKey(name: "member-key", role: "MEMBER") { id } }'))).toBe('UNIQUE_VIOLATION');
    });
  });

  describe('who may', () => {
    const requests: { readonly name: string; readonly rest: readonly [string, string, unknown?]; readonly graphql: string }[] = [
      { name: 'list keys', rest: ['GET', '/admin/api-keys'], graphql: '{ adminApiKeys { id } }' },
      { name: 'create a key', rest: ['POST', '/admin/api-keys', { name: 'sneaky', role: 'ADMIN' }], graphql: 'mutation { adminCreateApiKey(name: "sneaky", role: "ADMIN") { key } }' },
      { name: 'revoke a key', rest: ['DELETE', '/admin/api-keys/NOSUCHKEY'], graphql: 'mutation { adminRevokeApiKey(id: "NOSUCHKEY") { id } }' },
      { name: 'list endpoints', rest: ['GET', '/admin/webhooks'], graphql: '{ adminWebhookEndpoints { name } }' },
      { name: 'add an endpoint', rest: ['POST', '/admin/webhooks', { name: 'x', url: 'http://127.0.0.1:9/', events: ['*'] }], graphql: 'mutation { adminCreateWebhookEndpoint(input: { name: "x", url: "http://127.0.0.1:9/", events: ["*"] }) { secret } }' },
      { name: 'list deliveries', rest: ['GET', '/admin/deliveries?status=dead'], graphql: '{ adminDeliveries(status: "dead") { id } }' },
      { name: 'read the schema', rest: ['GET', '/admin/schema'], graphql: '{ adminSchema { graphql } }' },
      { name: 'suspend an account', rest: ['PUT', '/admin/accounts/NOSUCHUSER/suspension', {}], graphql: 'mutation { adminSuspendAccount(id: "NOSUCHUSER") { suspended } }' },
    ];
    const callers = (): { readonly name: string; readonly headers: Record<string, string>; readonly code: string }[] => [
      { name: 'anonymous', headers: {}, code: 'UNAUTHENTICATED' },
      { name: 'a member’s token', headers: member, code: 'FORBIDDEN' },
      { name: 'an API key without the admin role', headers: memberKey, code: 'FORBIDDEN' },
    ];

    it('refuses everyone but the admin role with the same code in both styles, and no data', async () => {
      for (const caller of callers()) {
        for (const request of requests) {
          const [method, path, body] = request.rest;
          const rest = await http(server.url, method, path, { headers: caller.headers, ...(body === undefined ? {} : { body }) });
          expect([caller.name, request.name, codeOf(rest)]).toEqual([caller.name, request.name, caller.code]);
          expect(rest.json.data).toBeUndefined();
          if (caller.code === 'UNAUTHENTICATED') expect(rest.headers.get('www-authenticate')).toMatch(/^Bearer/);
          const gql = await graphql(caller.headers, request.graphql);
          expect([caller.name, request.name, codeOf(gql)]).toEqual([caller.name, request.name, caller.code]);
          expect(gql.json.data).toBeNull();
        }
      }
      // Nothing was made by the refused calls.
      const keys = await http(server.url, 'GET', '/admin/api-keys', { headers: admin });
      expect((keys.json.data as { name: string }[]).some((key) => key.name === 'sneaky')).toBe(false);
    });

    it('tells a stranger nothing: an existing key and a missing one, a good body and a bad one, get the same refusal', async () => {
      const real = ((await http(server.url, 'GET', '/admin/api-keys', { headers: admin })).json.data as { id: string }[])[0]?.id ?? '';
      const answers = await Promise.all([
        http(server.url, 'GET', `/admin/api-keys/${real}`, { headers: member }),
        http(server.url, 'GET', '/admin/api-keys/NOSUCHKEY', { headers: member }),
        http(server.url, 'POST', '/admin/api-keys', { headers: member, body: { name: '!!', role: 'nobody' } }),
        http(server.url, 'POST', '/admin/api-keys', { headers: member, raw: 'name=x', ...{} }),
      ]);
      const shapes = answers.map((answer) => [answer.status, answer.json.code, answer.json.errors]);
      expect(new Set(shapes.map((shape) => JSON.stringify(shape))).size).toBe(1);
      expect(shapes[0]).toEqual([403, 'FORBIDDEN', undefined]);
    });
  });

  describe('accounts', () => {
    it('suspends and lifts a suspension in either style with the same answer, and ends the account’s live read at once', async () => {
      const live = openEventSource(`${server.url}/users/${memberId}`, member);
      await live.opened;
      expect((await live.events.next()).type).toBe('update');
      const suspended = await http(server.url, 'PUT', `/admin/accounts/${memberId}/suspension`, { headers: admin, body: { reason: 'spam' } });
      expect(suspended.status, suspended.text).toBe(200);
      expect(suspended.json).toEqual({ accountId: memberId, suspended: true, reason: 'spam' });
      // The live read ends at once, with what a request with the token now gets.
      let ended = await live.events.next();
      // The suspension is a write: an update of the record may come first.
      if (ended.type === 'update') ended = await live.events.next();
      expect(ended.type).toBe('problem');
      expect(ended.data.code).toBe('ACCOUNT_SUSPENDED');
      live.close();
      expect(codeOf(await http(server.url, 'GET', '/me', { headers: member }))).toBe('ACCOUNT_SUSPENDED');
      const state = (await data(admin, `{ adminSuspension(id: ${JSON.stringify(memberId)}) { accountId suspended reason } }`))['adminSuspension'];
      expect(state).toEqual(suspended.json);
      const lifted = (await data(admin, `mutation { adminUnsuspendAccount(id: ${JSON.stringify(memberId)}) { accountId suspended reason } }`))['adminUnsuspendAccount'];
      expect(lifted).toEqual({ accountId: memberId, suspended: false, reason: null });
      expect((await http(server.url, 'GET', `/admin/accounts/${memberId}/suspension`, { headers: admin })).json).toEqual(lifted);
      expect((await http(server.url, 'GET', '/me', { headers: member })).status).toBe(200);
    });

    it('answers 404 for an account that does not exist, in both styles', async () => {
      expect(codeOf(await http(server.url, 'PUT', '/admin/accounts/NOSUCHUSER/suspension', { headers: admin, body: {} }))).toBe('NOT_FOUND');
      expect(codeOf(await graphql(admin, 'mutation { adminSuspendAccount(id: "NOSUCHUSER") { suspended } }'))).toBe('NOT_FOUND');
    });
  });

  describe('schema', () => {
    it('gives the schema as written (without the server’s folders), the GraphQL SDL and the model, the same in both styles', async () => {
      const rest = await http(server.url, 'GET', '/admin/schema', { headers: admin });
      expect(rest.status).toBe(200);
      expect(rest.json.sdl).toEqual([{ file: 'schema.graphql', text: 'type User @allow(read: "true") { id: ID! }' }]);
      expect(rest.text).not.toContain('/somewhere/private');
      expect(rest.json.graphql).toContain('type Query');
      const user = (rest.json.model.types as { name: string; path: string; fields: { name: string; kind: string; target: string | null }[] }[]).find((type) => type.name === 'User');
      expect(user?.path).toBe('/users');
      expect(user?.fields.find((field) => field.name === 'posts')).toMatchObject({ kind: 'toMany', target: 'Post', list: true });
      expect(user?.fields.find((field) => field.name === 'followers')).toMatchObject({ kind: 'manyToMany', target: 'User' });
      expect(rest.json.model.roles).toEqual({ enum: 'Role', values: ['MEMBER', 'MODERATOR', 'ADMIN'], admin: 'ADMIN' });
      const gql = await data(
        admin,
        '{ adminSchema { sdl { file text } graphql model { types { name plural path description fields { name kind type list nullable unique readonly target inverse description deprecated } } enums { name values } roles { enum values admin } account { type identifier suspended verified } } } }',
      );
      expect(gql['adminSchema']).toEqual(rest.json);
    });
  });

  describe('introspection', () => {
    it('shows the admin fields to every caller (one schema for all), and none of them among the live queries', async () => {
      const query = '{ __schema { queryType { fields { name } } subscriptionType { fields { name } } } }';
      const anonymous = await data({}, query);
      const schema = anonymous['__schema'] as { queryType: { fields: { name: string }[] }; subscriptionType: { fields: { name: string }[] } };
      expect(schema.queryType.fields.map((field) => field.name)).toEqual(expect.arrayContaining(['adminApiKeys', 'adminSchema', 'adminDeliveries']));
      expect(schema.subscriptionType.fields.some((field) => field.name.startsWith('admin'))).toBe(false);
      expect(await data(admin, query)).toEqual(anonymous);
    });
  });
});
