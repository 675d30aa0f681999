/**
 * The principal at the HTTP edge. Over real sockets, on both databases: a
 * request without credentials is anonymous and served; a bad, expired or
 * revoked credential is 401 UNAUTHENTICATED with an RFC 6750 challenge on
 * every route — problem+json in REST, the GraphQL envelope on /graphql —
 * and never reaches the log. In process (inject, a test-only route): the
 * principal each kind of credential sets on the request.
 */
import { generateKeyPairSync } from 'node:crypto';
import { SignJWT } from 'jose';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateApiKey } from '../../src/auth/api-key.js';
import { createAuthenticator } from '../../src/auth/authenticator.js';
import { issueToken } from '../../src/auth/issue-token.js';
import { principalOf } from '../../src/auth/request-principal.js';
import { ApiKeyStore } from '../../src/storage/api-keys.js';
import { installErrorHandling } from '../../src/server/error-handler.js';
import { createContextFactory, installRequestContext } from '../../src/server/request-context.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SECRET = 'edge-test-secret-edge-test-secret-0123456789';
const ADMIN_KEY = 'edge-test-admin-key-0123456789';

const member = (claims: Record<string, unknown> = {}): Promise<string> => issueToken(SECRET, { sub: '42', role: 'MEMBER', ...claims }, 3600);

async function expired(): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT({ sub: '42' }).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(now - 7200).setExpirationTime(now - 3600).sign(new TextEncoder().encode(SECRET));
}

function expectChallenge(response: HttpResponse, description: string): void {
  expect(response.status, response.text).toBe(401);
  expect(response.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", error_description="${description}"`);
}

function expectProblem(response: HttpResponse, detail: string): void {
  expectChallenge(response, detail);
  expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  expect(response.json).toMatchObject({ status: 401, code: 'UNAUTHENTICATED', title: 'Unauthenticated', detail });
}

describeEachDialect('authentication at the edge', (ctx) => {
  let server: TestServer;
  let store: ApiKeyStore;
  const logged: string[] = [];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 50, Post: 5, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1, pictures: 1 },
      // Every request logged, at the level that logs the most, to look for credentials in it.
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY, apiKeyCacheMs: 0 }, logger: { level: 'trace', stream: { write: (line) => logged.push(line) } } },
    });
    store = new ApiKeyStore(server.db);
  });
  afterAll(() => server.close());

  const gql = (headers: Record<string, string>): Promise<HttpResponse> =>
    http(server.url, 'POST', '/graphql', { body: { query: '{ user(id: "42") { name } }' }, headers: { accept: 'application/graphql-response+json', ...headers } });

  it('serves a request without credentials as before', async () => {
    expect((await http(server.url, 'GET', '/users/42?fields=name')).status).toBe(200);
    const response = await gql({});
    expect(response.status).toBe(200);
    expect(response.json.data.user.name).toEqual(expect.any(String));
  });

  it('serves a valid token, the admin key and an API key, in both styles', async () => {
    const { key, hash } = generateApiKey();
    expect(await store.insert({ id: `edge-${ctx.dialect}`, name: 'edge', role: 'MEMBER', hash, createdAt: new Date().toISOString() })).toBe(true);
    for (const credential of [await member(), ADMIN_KEY, key]) {
      const authorization = `Bearer ${credential}`;
      expect((await http(server.url, 'GET', '/users/42', { headers: { authorization } })).status).toBe(200);
      expect((await gql({ authorization })).json).toMatchObject({ data: { user: { name: expect.any(String) } } });
    }
  });

  it('answers an expired token with 401 problem+json and the RFC 6750 challenge in REST', async () => {
    const response = await http(server.url, 'GET', '/users/42', { headers: { authorization: `Bearer ${await expired()}` } });
    expectProblem(response, 'The token has expired');
  });

  it('answers it in the GraphQL envelope on /graphql, with the same code and challenge, in either media type', async () => {
    const authorization = `Bearer ${await expired()}`;
    const response = await gql({ authorization });
    expectChallenge(response, 'The token has expired');
    expect(response.headers.get('content-type')).toMatch(/^application\/graphql-response\+json/);
    expect(response.json).toEqual({ errors: [{ message: 'The token has expired', extensions: { code: 'UNAUTHENTICATED' } }] });
    const json = await gql({ authorization, accept: 'application/json' });
    expectChallenge(json, 'The token has expired');
    expect(json.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
    const get = await http(server.url, 'GET', `/graphql?query=${encodeURIComponent('{ usersCount }')}`, { headers: { authorization, accept: 'application/json' } });
    expectChallenge(get, 'The token has expired');
    expect(get.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });

  it('refuses a bad credential on every route: writes, files, docs, the OpenAPI document, health, unknown paths', async () => {
    const authorization = 'Bearer not-a-token';
    const description = 'The credential is neither a JWT nor an API key of this server';
    const picture = (await http(server.url, 'GET', '/users/1?fields=profilePicture')).json.profilePicture as string;
    for (const [method, path] of [
      ['PATCH', '/users/42'],
      ['POST', '/users'],
      ['DELETE', '/users/42'],
      ['GET', picture],
      ['GET', '/docs'],
      ['GET', '/openapi.json'],
      ['GET', '/healthz'],
      ['GET', '/no-such-route'],
    ] as const) {
      const response = await http(server.url, method, path, { headers: { authorization }, ...(method === 'GET' || method === 'DELETE' ? {} : { body: { name: 'x' } }) });
      expectProblem(response, description);
    }
    // The write was refused before it ran.
    expect((await http(server.url, 'GET', '/users/42')).status).toBe(200);
  });

  it('refuses a token signed with another key, alg none, a wrong-audience token, and garbage', async () => {
    const forged = await issueToken('another-secret-another-secret-another-secret', { sub: '42', role: 'ADMIN' }, 3600);
    expectProblem(await http(server.url, 'GET', '/users/42', { headers: { authorization: `Bearer ${forged}` } }), "The token's signature does not verify");
    const header = Buffer.from('{"alg":"none"}').toString('base64url');
    const body = Buffer.from(JSON.stringify({ sub: '42', role: 'ADMIN' })).toString('base64url');
    expectProblem(await http(server.url, 'GET', '/users/42', { headers: { authorization: `Bearer ${header}.${body}.` } }), "The token's algorithm is not accepted");
    expectProblem(await http(server.url, 'GET', '/users/42', { headers: { authorization: 'Bearer a.b.c' } }), 'The token is malformed');
  });

  it('answers another scheme with 401 and the bare challenge (RFC 6750 §3.1)', async () => {
    const response = await http(server.url, 'GET', '/users/42', { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer');
    expect(response.json).toMatchObject({ code: 'UNAUTHENTICATED' });
  });

  it('refuses an API key once it is revoked', async () => {
    const { key, hash } = generateApiKey();
    expect(await store.insert({ id: `revoked-${ctx.dialect}`, name: 'to-revoke', role: 'MEMBER', hash, createdAt: new Date().toISOString() })).toBe(true);
    expect((await http(server.url, 'GET', '/users/42', { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);
    expect(await store.revoke('to-revoke', new Date().toISOString())).toBe('revoked');
    expectProblem(await http(server.url, 'GET', '/users/42', { headers: { authorization: `Bearer ${key}` } }), 'The API key has been revoked');
  });

  it('never writes a credential to the log', async () => {
    const token = await member({ marker: 'log-check' });
    const { key, hash } = generateApiKey();
    expect(await store.insert({ id: `logged-${ctx.dialect}`, name: 'logged', role: 'MEMBER', hash, createdAt: new Date().toISOString() })).toBe(true);
    const before = logged.length;
    for (const credential of [token, await expired(), ADMIN_KEY, key, 'garbage-credential-value']) {
      await http(server.url, 'GET', '/users/42', { headers: { authorization: `Bearer ${credential}` } });
      await gql({ authorization: `Bearer ${credential}` });
    }
    const text = logged.slice(before).join('');
    // The log saw these requests (with the header redacted), and no credential.
    expect(text).toContain('[redacted]');
    for (const secret of [token.split('.')[2] ?? token, ADMIN_KEY, key, 'garbage-credential-value', SECRET]) expect(text).not.toContain(secret);
  });
});

describe('request.principal', () => {
  let app: FastifyInstance;
  let verifiedTokens = 0;

  beforeAll(async () => {
    app = Fastify({ logger: false });
    installErrorHandling(app, { exposeInternals: false });
    const authenticator = createAuthenticator({ adminRole: 'ADMIN', jwtSecret: SECRET, adminKey: ADMIN_KEY, roleClaim: 'app_metadata.role' });
    installRequestContext(app, authenticator, createContextFactory(undefined, authenticator.lifetimeOf));
    // A test-only route: what a front-end will read.
    app.get('/whoami', (request) => {
      verifiedTokens = authenticator.verifications;
      return principalOf(request);
    });
    await app.ready();
  });
  afterAll(() => app.close());

  const whoami = async (authorization?: string) => {
    const response = await app.inject({ method: 'GET', url: '/whoami', headers: authorization === undefined ? {} : { authorization } });
    return { status: response.statusCode, body: response.json<Record<string, unknown>>(), headers: response.headers };
  };

  it('is anonymous without an Authorization header', async () => {
    expect((await whoami()).body).toEqual({ id: null, role: null, claims: {}, admin: false, via: 'anonymous' });
  });

  it("is the token's subject and role (from the configured claim path), with its claims", async () => {
    const token = await issueToken(SECRET, { sub: '42', app_metadata: { role: 'MODERATOR' } }, 3600);
    const { body } = await whoami(`Bearer ${token}`);
    expect(body).toMatchObject({ id: '42', role: 'MODERATOR', admin: false, via: 'jwt', claims: { sub: '42', app_metadata: { role: 'MODERATOR' } } });
    // The second request with the same token is answered from the cache.
    await whoami(`Bearer ${token}`);
    expect(verifiedTokens).toBe(1);
  });

  it('is the admin for the admin key and for a token with the admin role', async () => {
    expect((await whoami(`Bearer ${ADMIN_KEY}`)).body).toMatchObject({ admin: true, role: 'ADMIN', via: 'admin-key' });
    const token = await issueToken(SECRET, { sub: '1', app_metadata: { role: 'ADMIN' } }, 3600);
    expect((await whoami(`Bearer ${token}`)).body).toMatchObject({ id: '1', admin: true, via: 'jwt' });
  });

  it('is never set for a refused credential: the route does not run', async () => {
    const response = await whoami('Bearer garbage');
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(response.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
  });
});

describe('an issuer whose key set does not answer', () => {
  it('is 503 AUTHENTICATION_UNAVAILABLE with Retry-After, not a 401 and not a 500', async () => {
    const app = Fastify({ logger: false });
    installErrorHandling(app, { exposeInternals: false });
    // Port 1 on the loopback: nothing listens, the fetch is refused at once.
    const unreachable = createAuthenticator({ adminRole: 'ADMIN', jwksUrl: 'http://127.0.0.1:1/jwks.json' });
    installRequestContext(app, unreachable, createContextFactory(undefined, unreachable.lifetimeOf));
    app.get('/whoami', (request) => principalOf(request));
    await app.ready();
    try {
      const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
      const token = await new SignJWT({ sub: '1' }).setProtectedHeader({ alg: 'ES256', kid: 'k1' }).setExpirationTime('1h').sign(privateKey);
      const response = await app.inject({ method: 'GET', url: '/whoami', headers: { authorization: `Bearer ${token}` } });
      expect(response.statusCode).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.json()).toMatchObject({ code: 'AUTHENTICATION_UNAVAILABLE' });
    } finally {
      await app.close();
    }
  });
});
