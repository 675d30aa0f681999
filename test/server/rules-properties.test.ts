import fc from 'fast-check';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'rules-properties-secret-0123456789abcdef';
const ADMIN_KEY = 'rules-properties-admin-key-0123';

interface Post {
  readonly id: string;
  readonly author: string;
  readonly status: string;
}

/**
 * Random principals asking random questions, in both styles: no answer ever
 * holds a post its asker may not read, nor a user's private field that is
 * not theirs. The truth is read once by the admin.
 */
describeEachDialect('Rules hold for any asker and any question', (ctx) => {
  let server: TestServer;
  let posts: Map<string, Post>;
  let userIds: string[];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 12, Post: 60, Product: 2, Order: 4, OrderItem: 6 }, linksPerRecord: 3 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    const admin = { authorization: `Bearer ${ADMIN_KEY}` };
    posts = new Map(((await http(server.url, 'GET', '/posts?limit=100&fields=id,author,status', { headers: admin })).json.data as Post[]).map((post) => [post.id, post]));
    userIds = ((await http(server.url, 'GET', '/users?limit=100&fields=id', { headers: admin })).json.data as { id: string }[]).map((user) => user.id);
  });
  afterAll(async () => {
    await server.close();
  });

  type Asker = { readonly id: string | null; readonly role: 'MEMBER' | 'MODERATOR' | null };
  const asker = (): fc.Arbitrary<Asker> =>
    fc.oneof(
      fc.constant<Asker>({ id: null, role: null }),
      fc.record({ id: fc.constantFrom(...userIds), role: fc.constantFrom<'MEMBER' | 'MODERATOR'>('MEMBER', 'MODERATOR') }),
    );
  const headersOf = async (who: Asker): Promise<Record<string, string>> => {
    if (who.id === null) return {};
    const token = await new SignJWT({ sub: who.id, role: who.role }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    return { authorization: `Bearer ${token}` };
  };
  const mayRead = (who: Asker, post: Post): boolean => post.status === 'PUBLISHED' || post.author === who.id || who.role === 'MODERATOR';

  type Kind = 'post' | 'user' | undefined;
  /** The kind of record under a key: ids of different types overlap (user 1, post 1), so a record is known by where it sits. */
  const KINDS: Readonly<Record<string, Kind>> = { posts: 'post', post: 'post', users: 'user', user: 'user', author: 'user' };

  /** Every post and user object anywhere in an answer. */
  function collect(value: unknown, kind: Kind, found: { posts: Record<string, unknown>[]; users: Record<string, unknown>[] }): void {
    if (Array.isArray(value)) {
      for (const item of value) collect(item, kind, found);
    } else if (typeof value === 'object' && value !== null) {
      const record = value as Record<string, unknown>;
      if (kind === 'post' && typeof record['id'] === 'string') found.posts.push(record);
      if (kind === 'user' && typeof record['id'] === 'string') found.users.push(record);
      for (const [key, item] of Object.entries(record)) collect(item, key === 'data' ? kind : KINDS[key], found);
    }
  }

  const questions = (): fc.Arbitrary<{ style: 'rest' | 'graphql'; path: string }> => fc.oneof(
    fc.record({ style: fc.constant('rest' as const), path: fc.constantFrom('/posts?limit=100&fields=id,status', '/posts?limit=100&filter[status][ne]=PUBLISHED&fields=id', '/posts?limit=100&sort=-createdAt&fields=id&count=true') }),
    fc.record({ style: fc.constant('rest' as const), path: fc.constantFrom(...[0, 1, 2, 3].map((i) => `/users/${userIds[i] ?? ''}?fields=id,name&include=posts&posts.limit=100&posts.fields=id`)) }),
    fc.record({ style: fc.constant('rest' as const), path: fc.constantFrom(...[0, 5, 10, 20, 30].map((i) => `/posts/${[...posts.keys()][i] ?? ''}?fields=id,status`)) }),
    fc.record({ style: fc.constant('rest' as const), path: fc.constantFrom('/users?limit=100&fields=id,email,phone', '/users?limit=100') }),
    fc.record({
      style: fc.constant('graphql' as const),
      path: fc.constantFrom('{ posts(first: 100) { id } }', '{ users(first: 100) { id posts(first: 100) { id } } }', '{ users(first: 100) { id email } }', '{ posts(first: 100, filter: { status: { eq: DRAFT } }) { id author { id } } }'),
    }),
  );

  it('never shows a post or a private field its asker may not read', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(asker(), questions(), async (who, ask) => {
        const headers = await headersOf(who);
        const response = ask.style === 'rest' ? await http(server.url, 'GET', ask.path, { headers }) : await gql(server.url, ask.path, undefined, headers);
        expect(response.status).toBeLessThan(500);
        const found = { posts: [] as Record<string, unknown>[], users: [] as Record<string, unknown>[] };
        collect(response.json, ask.style === 'graphql' ? undefined : ask.path.startsWith('/posts') ? 'post' : 'user', found);
        for (const post of found.posts) expect(mayRead(who, posts.get(post['id'] as string) as Post), `${ask.path} showed post ${String(post['id'])}`).toBe(true);
        checked += found.posts.length + found.users.length;
        for (const user of found.users) {
          if (user['id'] === who.id) continue;
          expect(user['email'] ?? null, `${ask.path} showed another user's email`).toBeNull();
          expect(user['phone'] ?? null).toBeNull();
        }
      }),
      { numRuns: 60, seed: 26_027 },
    );
    // The answers held records to check, not only refusals.
    expect(checked).toBeGreaterThan(500);
  });
});
