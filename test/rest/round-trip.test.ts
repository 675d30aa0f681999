import { afterAll, beforeAll, expect, it } from 'vitest';
import { gql } from '../graphql/graphql-client.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

// Records go out as JSON the database wrote (SQLite's json_object, PostgreSQL's
// row_to_json) and come back into it from JSON the client wrote: these are the
// values where the two dialects, or a change in who writes the JSON, could
// disagree with what was sent.
const TRICKY = 'quote " backslash \\ newline \n tab \t control \u0001 \u001f unicode é ß 中文 emoji 😀 </script>';

describeEachDialect('records round-trip', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open());
  });
  afterAll(async () => {
    await server.close();
  });

  it('come back exactly as written: strings, numbers, floats, booleans, JSON, timestamps and nulls, over REST and GraphQL', async () => {
    const user = {
      name: TRICKY,
      email: 'tricky@example.org',
      bio: null,
      isPrivate: true,
      interests: ['a', 'b"c', TRICKY],
      preferences: { nested: { list: [1, 2.5, null, 'x', true], empty: {} }, text: TRICKY },
      birthday: '1990-02-03T04:05:06.789Z',
    };
    const created = await http(server.url, 'POST', '/users', { body: user });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject(user);
    const id = created.json.id as string;

    const one = await http(server.url, 'GET', `/users/${id}`);
    expect(one.json).toMatchObject({ ...user, isVerified: false, emailNotifications: true, role: 'MEMBER', handle: null });
    expect(one.json.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const listed = await http(server.url, 'GET', `/users?filter[email]=tricky@example.org`);
    expect(listed.json.data).toEqual([one.json]);

    const query = 'query($id: ID!) { user(id: $id) { name bio isPrivate interests preferences birthday } }';
    const viaGraphql = await gql(server.url, query, { id });
    expect(viaGraphql.json).toEqual({ data: { user: { name: TRICKY, bio: null, isPrivate: true, interests: user.interests, preferences: user.preferences, birthday: user.birthday } } });
  });

  it('floats and integers come back as the same JSON numbers on both databases', async () => {
    const prices = [0.1, 10, 2.5, 1234567.125, 0.0001];
    for (const [i, price] of prices.entries()) {
      const created = await http(server.url, 'POST', '/products', { body: { name: `Float ${i}`, sku: `float-${i}`, price, stock: i * 1000 } });
      expect(created.status).toBe(201);
      const read = await http(server.url, 'GET', `/products/${created.json.id as string}?fields=price,stock,available`);
      expect(read.json).toEqual({ price, stock: i * 1000, available: true });
      // The number's text too, not just its value: `10`, never `10.0`.
      expect(read.text).toBe(`{"price":${JSON.stringify(price)},"stock":${i * 1000},"available":true}`);
    }
  });

  it('embedded relations and counts carry the same values, and an empty or missing sub-collection page stays right', async () => {
    const author = await http(server.url, 'POST', '/users', { body: { name: 'Author', email: 'author@example.org' } });
    const authorId = author.json.id as string;
    const post = await http(server.url, 'POST', '/posts', { body: { title: TRICKY, body: 'b', author: authorId, tags: ['t'] } });
    expect(post.status).toBe(201);

    const withInclude = await http(server.url, 'GET', `/users/${authorId}?fields=name,posts&include=posts`);
    expect(withInclude.status).toBe(200);
    expect(withInclude.json.name).toBe('Author');
    expect(withInclude.json.posts).toEqual([expect.objectContaining({ title: TRICKY, author: authorId, tags: ['t'] })]);

    const posts = await http(server.url, 'GET', `/users/${authorId}/posts?fields=title,author`);
    expect(posts.json.data).toEqual([{ title: TRICKY, author: authorId }]);

    const nobody = await http(server.url, 'POST', '/users', { body: { name: 'Nobody', email: 'nobody@example.org' } });
    const empty = await http(server.url, 'GET', `/users/${nobody.json.id as string}/posts`);
    expect(empty.status).toBe(200);
    expect(empty.json.data).toEqual([]);
    expect((await http(server.url, 'GET', '/users/no-such-user/posts')).status).toBe(404);

    const counted = await http(server.url, 'GET', `/users/${authorId}/posts?fields=title&count=true`);
    expect(counted.json).toMatchObject({ data: [{ title: TRICKY }], totalCount: 1 });
    const emptyCounted = await http(server.url, 'GET', `/users/${nobody.json.id as string}/posts?count=true`);
    expect(emptyCounted.json).toMatchObject({ data: [], totalCount: 0 });
    // With the parent gone, the empty page's ETag no longer holds: 404, not 304.
    const etag = empty.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    expect((await http(server.url, 'GET', `/users/${nobody.json.id as string}/posts`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await http(server.url, 'DELETE', `/users/${nobody.json.id as string}`)).status).toBe(204);
    expect((await http(server.url, 'GET', `/users/${nobody.json.id as string}/posts`, { headers: { 'if-none-match': etag } })).status).toBe(404);

    const viaGraphql = await gql(server.url, 'query($id: ID!) { post(id: $id) { title author { name postsCount } } }', { id: post.json.id });
    expect(viaGraphql.json).toEqual({ data: { post: { title: TRICKY, author: { name: 'Author', postsCount: 1 } } } });
  });
});
