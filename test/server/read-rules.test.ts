import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql, gqlGet } from '../graphql/graphql-client.js';

const SECRET = 'read-rules-test-secret-0123456789abcdef';
const ADMIN_KEY = 'read-rules-admin-key-0123456789';

type Asker = 'anonymous' | 'owner' | 'stranger' | 'moderator' | 'admin';

interface Post {
  readonly id: string;
  readonly author: string;
  readonly status: string;
}

/**
 * The example schema's read rules, enforced by the planner, asked through
 * both styles with the same outcome: who sees which users' private fields,
 * which posts (embedded and counted too) and which orders.
 */
describeEachDialect('Read rules, the same in REST and GraphQL', (ctx) => {
  let server: TestServer;
  let tokens: Record<Asker, string | undefined>;
  let posts: Post[];
  let orders: { id: string; customer: string }[];
  /** A user with both published posts and drafts: the owner in these tests. */
  let owner: string;
  let stranger: string;

  const headers = (asker: Asker): Record<string, string> => (tokens[asker] === undefined ? {} : { authorization: `Bearer ${tokens[asker]}` });
  const rest = (asker: Asker, path: string): Promise<HttpResponse> => http(server.url, 'GET', path, { headers: headers(asker) });
  const graphql = (asker: Asker, query: string): Promise<HttpResponse> => gql(server.url, query, undefined, headers(asker));

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      // Few enough posts and orders that one page holds them all.
      seed: { counts: { User: 20, Post: 80, Product: 5, Order: 12, OrderItem: 30 }, linksPerRecord: 3 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    const sign = (sub: string, role: string): Promise<string> =>
      new SignJWT({ sub, role }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    tokens = { anonymous: undefined, owner: undefined, stranger: undefined, moderator: undefined, admin: ADMIN_KEY };
    // The data as it is, seen by the admin, from which each asker's view is worked out.
    posts = (await rest('admin', '/posts?limit=100&fields=id,author,status')).json.data as Post[];
    const byAuthor = new Map<string, Set<string>>();
    for (const post of posts) byAuthor.set(post.author, (byAuthor.get(post.author) ?? new Set()).add(post.status));
    owner = [...byAuthor].find(([, statuses]) => statuses.has('PUBLISHED') && statuses.size > 1)?.[0] as string;
    stranger = [...byAuthor.keys()].find((id) => id !== owner) as string;
    orders = (await rest('admin', '/orders?limit=100&fields=id,customer')).json.data;
    tokens.owner = await sign(owner, 'MEMBER');
    tokens.stranger = await sign(stranger, 'MEMBER');
    tokens.moderator = await sign('moderator-without-posts', 'MODERATOR');
  });
  afterAll(async () => {
    await server.close();
  });

  function visiblePosts(asker: Asker, author?: string): Post[] {
    const mine = asker === 'owner' ? owner : asker === 'stranger' ? stranger : undefined;
    return posts.filter(
      (post) => (author === undefined || post.author === author) && (post.status === 'PUBLISHED' || post.author === mine || asker === 'moderator' || asker === 'admin'),
    );
  }

  describe('private fields', () => {
    it('leaves them out of a stranger’s default view, and refuses them by name, in both styles', async () => {
      const profile = await rest('anonymous', `/users/${owner}`);
      expect(profile.status).toBe(200);
      expect(profile.json.name).toEqual(expect.any(String));
      for (const field of ['email', 'phone', 'birthday', 'preferences']) expect(profile.json).not.toHaveProperty(field);
      const named = await rest('anonymous', `/users/${owner}?fields=name,email`);
      expect(named.status).toBe(403);
      expect(named.json.code).toBe('FIELD_FORBIDDEN');
      // GraphQL: the error at the field's own path, the field null, the rest of the record there.
      const query = await graphql('anonymous', `{ user(id: "${owner}") { name email } }`);
      expect(query.status).toBe(200);
      expect(query.json.errors).toEqual([expect.objectContaining({ path: ['user', 'email'], extensions: expect.objectContaining({ code: 'FIELD_FORBIDDEN' }) })]);
      expect(query.json.data.user).toEqual({ name: profile.json.name, email: null });
    });

    it('answers each refused field in a GraphQL list and embedded record at its path, with list indexes', async () => {
      const query = await graphql(
        'anonymous',
        `{ users(first: 2) { id phone } post(id: "${posts.find((post) => post.status === 'PUBLISHED')?.id}") { title author { name birthday preferences } } }`,
      );
      expect(query.status).toBe(200);
      expect(query.json.data.users).toHaveLength(2);
      for (const user of query.json.data.users) expect(user.phone).toBeNull();
      expect(query.json.data.post.title).toEqual(expect.any(String));
      expect(query.json.data.post.author).toEqual({ name: expect.any(String), birthday: null, preferences: null });
      const places = (query.json.errors as { path: unknown[]; extensions: { code: string } }[]).map((error) => [error.extensions.code, error.path]);
      expect(places).toEqual([
        ['FIELD_FORBIDDEN', ['users', 0, 'phone']],
        ['FIELD_FORBIDDEN', ['users', 1, 'phone']],
        ['FIELD_FORBIDDEN', ['post', 'author', 'birthday']],
        ['FIELD_FORBIDDEN', ['post', 'author', 'preferences']],
      ]);
    });

    it('reports a refused field the same way over GET (the cached path) and in a mutation’s answer', async () => {
      const get = await gqlGet(server.url, { query: `{ user(id: "${owner}") { name phone } }` });
      expect(get.status).toBe(200);
      expect(get.json.data.user).toEqual({ name: expect.any(String), phone: null });
      expect(get.json.errors.map((error: { path: unknown[] }) => error.path)).toEqual([['user', 'phone']]);
      // Anyone may sign up; the new user's email is theirs, not the anonymous caller's to read back.
      const created = await graphql('anonymous', `mutation { createUser(input: { name: "Withheld", email: "withheld-${Date.now()}@example.com" }) { name email } }`);
      expect(created.json.data.createUser).toEqual({ name: 'Withheld', email: null });
      expect(created.json.errors).toEqual([expect.objectContaining({ path: ['createUser', 'email'], extensions: expect.objectContaining({ code: 'FIELD_FORBIDDEN' }) })]);
    });

    it('declares the private fields nullable in the GraphQL schema, so a refused one nulls only itself', async () => {
      const query = await graphql('anonymous', '{ __type(name: "User") { fields { name type { kind } } } }');
      const kinds = new Map((query.json.data.__type.fields as { name: string; type: { kind: string } }[]).map((field) => [field.name, field.type.kind]));
      expect(kinds.get('email')).toBe('SCALAR');
      expect(kinds.get('name')).toBe('NON_NULL');
    });

    it('shows them to the user themself and to the admin', async () => {
      for (const asker of ['owner', 'admin'] as const) {
        const restView = await rest(asker, `/users/${owner}?fields=name,email`);
        expect(restView.status).toBe(200);
        expect(restView.json.email).toMatch(/@/);
        const graphqlView = await graphql(asker, `{ user(id: "${owner}") { email } }`);
        expect(graphqlView.json.data.user.email).toBe(restView.json.email);
      }
    });

    it('masks them on other users’ records for a signed-in member', async () => {
      const list = await rest('owner', `/users?limit=100&fields=id,email`);
      expect(list.status).toBe(200);
      for (const user of list.json.data as { id: string; email: string | null }[]) {
        if (user.id === owner) expect(user.email).toMatch(/@/);
        else expect(user.email).toBeNull();
      }
      const query = await graphql('owner', `{ users(first: 100) { id email } }`);
      expect(query.json.data.users).toEqual(list.json.data);
    });

    it('refuses filtering and sorting on them where they are hidden', async () => {
      for (const path of ['/users?filter[email][eq]=a@b.c', '/users?sort=email']) {
        const response = await rest('stranger', path);
        expect(response.status).toBe(403);
        expect(response.json.code).toBe('FIELD_FORBIDDEN');
      }
      const query = await graphql('stranger', `{ users(filter: { email: { eq: "a@b.c" } }) { id } }`);
      expect(query.json.errors[0].extensions.code).toBe('FIELD_FORBIDDEN');
      expect((await rest('admin', '/users?filter[email][eq]=a@b.c')).status).toBe(200);
    });
  });

  describe('rows', () => {
    it('lists only the posts each asker may read, in both styles, with counts to match', async () => {
      for (const asker of ['anonymous', 'owner', 'stranger', 'moderator', 'admin'] as const) {
        const expected = visiblePosts(asker).map((post) => post.id).sort();
        const list = await rest(asker, '/posts?limit=100&fields=id&count=true');
        expect((list.json.data as { id: string }[]).map((post) => post.id).sort()).toEqual(expected);
        expect(list.json.totalCount).toBe(expected.length);
        const query = await graphql(asker, '{ posts(first: 100) { id } postsCount }');
        expect((query.json.data.posts as { id: string }[]).map((post) => post.id).sort()).toEqual(expected);
        expect(query.json.data.postsCount).toBe(expected.length);
      }
    });

    it('filters embedded posts, sub-collections and relation counts by Post’s rule', async () => {
      for (const asker of ['anonymous', 'owner', 'stranger'] as const) {
        const expected = visiblePosts(asker, owner).map((post) => post.id).sort();
        const embedded = await rest(asker, `/users/${owner}?fields=id&include=posts&posts.limit=100&posts.fields=id`);
        expect((embedded.json.posts as { id: string }[]).map((post) => post.id).sort()).toEqual(expected);
        const sub = await rest(asker, `/users/${owner}/posts?limit=100&fields=id&count=true`);
        expect((sub.json.data as { id: string }[]).map((post) => post.id).sort()).toEqual(expected);
        expect(sub.json.totalCount).toBe(expected.length);
        const query = await graphql(asker, `{ user(id: "${owner}") { posts(first: 100) { id } postsCount } }`);
        expect((query.json.data.user.posts as { id: string }[]).map((post) => post.id).sort()).toEqual(expected);
        expect(query.json.data.user.postsCount).toBe(expected.length);
      }
    });

    it('answers 404 for a record that exists but may not be seen, as for one that does not', async () => {
      const draft = posts.find((post) => post.status !== 'PUBLISHED' && post.author === owner) as Post;
      const missing = await rest('stranger', `/posts/${draft.id}`);
      const nothing = await rest('stranger', '/posts/no-such-post');
      expect(missing.status).toBe(404);
      expect(missing.json.code).toBe(nothing.json.code);
      expect((await graphql('stranger', `{ post(id: "${draft.id}") { id } }`)).json.data.post).toBeNull();
      expect((await rest('owner', `/posts/${draft.id}`)).status).toBe(200);
      expect((await graphql('owner', `{ post(id: "${draft.id}") { id } }`)).json.data.post.id).toBe(draft.id);
    });

    it('shows orders and their items only to their customer and the admin', async () => {
      const order = orders[0] as { id: string; customer: string };
      const customer = await new SignJWT({ sub: order.customer, role: 'MEMBER' })
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(SECRET));
      const asCustomer = { authorization: `Bearer ${customer}` };
      expect((await rest('anonymous', '/orders?limit=100')).json.data).toEqual([]);
      expect((await rest('anonymous', `/orders/${order.id}`)).status).toBe(404);
      expect((await rest('anonymous', '/order-items?limit=100')).json.data).toEqual([]);
      const own = await http(server.url, 'GET', '/orders?limit=100&fields=id,customer', { headers: asCustomer });
      expect(own.json.data).toEqual(orders.filter((candidate) => candidate.customer === order.customer));
      const items = await http(server.url, 'GET', `/orders/${order.id}/items?limit=100&fields=id&include=order&order.fields=customer`, { headers: asCustomer });
      expect(items.status).toBe(200);
      const query = await gql(server.url, `{ order(id: "${order.id}") { id customer { id } } }`, undefined, asCustomer);
      expect(query.json.data.order).toEqual({ id: order.id, customer: { id: order.customer } });
      expect((await graphql('stranger', `{ order(id: "${order.id}") { id } }`)).json.data.order).toBeNull();
      expect((await graphql('anonymous', '{ orders(first: 100) { id } }')).json.data.orders).toEqual([]);
    });

    it('turns a to-one relation to a record the asker may not see into null', async () => {
      const item = (await rest('admin', '/order-items?limit=1&fields=id,order')).json.data[0] as { id: string; order: string };
      const adminView = await graphql('admin', `{ orderItem(id: "${item.id}") { order { id } } }`);
      expect(adminView.json.data.orderItem.order.id).toBe(item.order);
      // A stranger cannot see the item at all, nor its order through it.
      expect((await graphql('stranger', `{ orderItem(id: "${item.id}") { order { id } } }`)).json.data.orderItem).toBeNull();
    });
  });

  describe('caching per person', () => {
    it('keeps a signed-in answer private and varies every answer by Authorization', async () => {
      const anonymous = await rest('anonymous', `/users/${owner}`);
      expect(anonymous.headers.get('vary')).toContain('Authorization');
      expect(anonymous.headers.get('cache-control')).toMatch(/^public/);
      const own = await rest('owner', `/users/${owner}`);
      expect(own.headers.get('vary')).toContain('Authorization');
      expect(own.headers.get('cache-control')).toMatch(/^private/);
      // The owner's ETag is not the stranger's: a 304 never crosses from one to the other.
      expect(own.headers.get('etag')).not.toBe(anonymous.headers.get('etag'));
      const revalidated = await http(server.url, 'GET', `/users/${owner}`, { headers: { 'if-none-match': own.headers.get('etag') as string } });
      expect(revalidated.status).toBe(200);
      expect(revalidated.json).not.toHaveProperty('email');
    });
  });

  it('refuses a bad credential with 401 in both styles', async () => {
    const bad = { authorization: 'Bearer not-a-token' };
    const restAnswer = await http(server.url, 'GET', `/users/${owner}`, { headers: bad });
    expect(restAnswer.status).toBe(401);
    expect(restAnswer.json.code).toBe('UNAUTHENTICATED');
    const graphqlAnswer = await gql(server.url, '{ users(first: 1) { id } }', undefined, bad);
    expect(graphqlAnswer.json.errors[0].extensions.code).toBe('UNAUTHENTICATED');
  });
});
