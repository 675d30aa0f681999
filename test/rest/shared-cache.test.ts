import { Agent, cacheStores, interceptors, request, type Dispatcher } from 'undici';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

/**
 * A real RFC 9111 shared cache (undici's cache interceptor) in front of the
 * server: reads go through it, writes go around it straight to the server
 * (as another client's would). The cache must never show data older than the
 * last write, and it must still be doing its job (revalidating, not refetching).
 */
describeEachDialect('REST behind a shared HTTP cache', (ctx) => {
  let server: TestServer;
  let cache: Dispatcher;
  const statuses: number[] = [];

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
    // What the origin actually answered (the cache turns 304s into 200s for its client).
    server.app.server.on('request', (_request: unknown, response: { statusCode: number; on(event: 'finish', listener: () => void): void }) => {
      response.on('finish', () => statuses.push(response.statusCode));
    });
    cache = new Agent().compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore(), type: 'shared' }));
  });
  afterAll(async () => {
    await cache.close();
    await server.close();
  });

  const viaCache = async (path: string): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await request(`${server.url}${path}`, { dispatcher: cache });
    return { status: response.statusCode, body: (await response.body.json()) as Record<string, unknown> };
  };

  it('never serves a user older than the last write, and revalidates without re-reading', async () => {
    const created = await http(server.url, 'POST', '/users', { body: { name: 'Cached', email: 'cached@example.org' } });
    const path = `/users/${created.json.id as string}`;
    const listPath = `/users?filter[id]=${created.json.id as string}&fields=id,bio`;
    for (let round = 0; round < 5; round++) {
      const bio = `round ${round}`;
      const write = await http(server.url, 'PATCH', path, { body: { bio } });
      expect(write.status).toBe(200);
      expect((await viaCache(path)).body['bio']).toBe(bio);
      expect(((await viaCache(listPath)).body['data'] as { bio: string }[])[0]?.bio).toBe(bio);
      // A second read of unchanged data is a revalidation the server answers from its clocks.
      const before = statuses.length;
      expect((await viaCache(path)).body['bio']).toBe(bio);
      expect(statuses.slice(before)).toEqual([304]);
    }
  });

  it('sees writes to embedded relations and deletes', async () => {
    // A user of their own, with posts and no orders (a user with orders cannot be deleted: Order.customer is RESTRICT).
    const user = (await http(server.url, 'POST', '/users', { body: { name: 'Cached', email: `cached-${ctx.dialect}@example.com` } })).json.id as string;
    await http(server.url, 'POST', '/posts', { body: { title: 'Already there', body: 'b', author: user } });
    const path = `/users/${user}?fields=name&include=posts&posts.fields=title&posts.limit=100`;
    const before = (await viaCache(path)).body['posts'] as { title: string }[];
    const post = await http(server.url, 'POST', '/posts', { body: { title: 'Through the cache', body: 'b', author: user } });
    const withPost = (await viaCache(path)).body['posts'] as { title: string }[];
    expect(withPost).toHaveLength(before.length + 1);
    await http(server.url, 'DELETE', `/posts/${post.json.id as string}`);
    expect((await viaCache(path)).body['posts']).toHaveLength(before.length);
    expect((await http(server.url, 'DELETE', `/users/${user}`)).status).toBe(204);
    expect((await viaCache(path)).status).toBe(404);
  });
});

describeEachDialect('Answers under permission rules behind a shared HTTP cache', (ctx) => {
  const secret = 'shared-cache-test-secret-0123456789abcdef';
  let server: TestServer;
  let cache: Dispatcher;
  let owner: string;
  const tokens = new Map<string, string>();

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { rules: true, server: { auth: { jwtSecret: secret } } });
    owner = ((await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data as { id: string }[])[0]?.id as string;
    const { SignJWT } = await import('jose');
    for (const [name, sub] of [
      ['owner', owner],
      ['stranger', `not-${owner}`],
    ] as const) {
      tokens.set(name, await new SignJWT({ sub, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(secret)));
    }
    cache = new Agent().compose(interceptors.cache({ store: new cacheStores.MemoryCacheStore(), type: 'shared' }));
  });
  afterAll(async () => {
    await cache.close();
    await server.close();
  });

  const viaCache = async (path: string, who?: string): Promise<Record<string, unknown>> => {
    const headers = who === undefined ? {} : { authorization: `Bearer ${tokens.get(who) ?? ''}` };
    const response = await request(`${server.url}${path}`, { dispatcher: cache, headers });
    expect(response.statusCode).toBe(200);
    return (await response.body.json()) as Record<string, unknown>;
  };

  it('never hands one person’s answer to another, in either order, in either style', async () => {
    const path = `/users/${owner}?fields=name,email`;
    const profile = `/users/${owner}`;
    const query = `/graphql?query=${encodeURIComponent(`{ user(id: "${owner}") { name email } }`)}`;
    for (let round = 0; round < 2; round++) {
      // The owner first, then the others, then the owner again: each sees only what is theirs.
      expect((await viaCache(path, 'owner'))['email']).toMatch(/@/);
      expect((await viaCache(path, 'stranger'))['email']).toBeNull();
      expect(await viaCache(profile)).not.toHaveProperty('email');
      expect((await viaCache(profile, 'owner'))['email']).toMatch(/@/);
      const ownerGraphql = (await viaCache(query, 'owner'))['data'] as { user: { email: string } };
      expect(ownerGraphql.user.email).toMatch(/@/);
      const strangerGraphql = (await viaCache(query, 'stranger'))['data'] as { user: { email: string | null } };
      expect(strangerGraphql.user.email).toBeNull();
      const anonymousGraphql = await viaCache(query);
      expect((anonymousGraphql['errors'] as { extensions: { code: string } }[])[0]?.extensions.code).toBe('FIELD_FORBIDDEN');
    }
  });
});
