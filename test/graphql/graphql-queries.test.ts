import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from './graphql-client.js';

describeEachDialect('GraphQL queries', (ctx) => {
  let server: TestServer;
  let firstId: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
    const rows = await server.db.all<{ id: string }>(`SELECT id FROM users ORDER BY id LIMIT 1`);
    firstId = (rows[0] as { id: string }).id;
    await server.db.run(`UPDATE users SET profile_picture = 'abc123' WHERE id = ${server.db.sql.placeholder(0)}`, [firstId]);
  });
  afterAll(async () => {
    await server.close();
  });

  it("answers the brief's query with exactly data.user.{name, profilePicture}", async () => {
    const response = await gql(server.url, `{ user(id: "${firstId}") { name profilePicture(size: 64) } }`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(Object.keys(response.json)).toEqual(['data']);
    expect(Object.keys(response.json.data)).toEqual(['user']);
    expect(Object.keys(response.json.data.user)).toEqual(['name', 'profilePicture']);
    expect(response.json.data.user.name).toEqual(expect.any(String));
    expect(response.json.data.user.profilePicture).toBe('/files/abc123/64');
    expect(response.text).toBe(`{"data":{"user":{"name":${JSON.stringify(response.json.data.user.name)},"profilePicture":"/files/abc123/64"}}}`);
  });

  it('snaps image sizes up to the allow-list, as REST does', async () => {
    const response = await gql(server.url, `{ user(id: "${firstId}") { a: profilePicture(size: 50) b: profilePicture(size: 9999) c: profilePicture } }`);
    expect(response.json.data.user).toEqual({ a: '/files/abc123/64', b: '/files/abc123/256', c: '/files/abc123' });
  });

  it('gives null for an unknown id, without errors', async () => {
    const response = await gql(server.url, `{ user(id: "unknown") { name } }`);
    expect(response.status).toBe(200);
    expect(response.json).toEqual({ data: { user: null } });
  });

  it('runs a nested query of lists in one SQL statement', async () => {
    const query = `{ users(first: 12) { name posts(first: 5) { title } followers(first: 5) { name posts(first: 2) { title } } } }`;
    const before = server.db.statementCount;
    const response = await gql(server.url, query);
    expect(server.db.statementCount - before).toBe(1);
    expect(response.json.errors).toBeUndefined();
    const users = response.json.data.users as { name: string; posts: { title: string }[]; followers: { posts: unknown[] }[] }[];
    expect(users).toHaveLength(12);
    expect(users.some((user) => user.posts.length > 0)).toBe(true);
    expect(users.every((user) => user.posts.length <= 5 && user.followers.length <= 5)).toBe(true);
    expect(users.flatMap((user) => user.followers).every((follower) => follower.posts.length <= 2)).toBe(true);
    expect(Object.keys(users[0] ?? {})).toEqual(['name', 'posts', 'followers']);
  });

  it('gives nested pages in their order, from the start and from the end, for one-to-many and many-to-many', async () => {
    const p = (i: number): string => server.db.sql.placeholder(i);
    const [busiest] = await server.db.all<{ id: string }>(
      `SELECT author_id AS id FROM posts GROUP BY author_id ORDER BY count(*) DESC, author_id LIMIT 1`,
    );
    const id = (busiest as { id: string }).id;
    // The expected orders, worked out here from plain rows: newest first, ties by id descending; followers by id.
    const posts = (await server.db.all<{ id: string; createdAt: string }>(`SELECT id, created_at AS "createdAt" FROM posts WHERE author_id = ${p(0)}`, [id]))
      .map((row) => ({ id: row.id, at: new Date(row.createdAt).getTime() }))
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .map((row) => row.id);
    const followers = (await server.db.all<{ id: string }>(`SELECT target_id AS id FROM users_followers WHERE source_id = ${p(0)}`, [id]))
      .map((row) => row.id)
      .sort();
    expect(posts.length).toBeGreaterThan(4);
    expect(followers.length).toBeGreaterThan(2);

    const newest = `orderBy: [{ field: createdAt, direction: DESC }]`;
    const response = await gql(
      server.url,
      `{ user(id: "${id}") { first: posts(first: 4, ${newest}) { id } last: posts(last: 4, ${newest}) { id } firstFollowers: followers(first: 2) { id } lastFollowers: followers(last: 2) { id } } }`,
    );
    expect(response.json.errors).toBeUndefined();
    const ids = (list: { id: string }[]): string[] => list.map((item) => item.id);
    const user = response.json.data.user as Record<'first' | 'last' | 'firstFollowers' | 'lastFollowers', { id: string }[]>;
    expect(ids(user.first)).toEqual(posts.slice(0, 4));
    expect(ids(user.last)).toEqual(posts.slice(-4));
    expect(ids(user.firstFollowers)).toEqual(followers.slice(0, 2));
    expect(ids(user.lastFollowers)).toEqual(followers.slice(-2));
  });

  it('runs one statement per root field', async () => {
    const before = server.db.statementCount;
    const response = await gql(server.url, `{ a: users(first: 2) { id } b: posts(first: 2) { id } usersCount }`);
    expect(server.db.statementCount - before).toBe(3);
    expect(Object.keys(response.json.data)).toEqual(['a', 'b', 'usersCount']);
    const rows = await server.db.all<{ n: unknown }>('SELECT count(*) AS n FROM users');
    expect(response.json.data.usersCount).toBe(Number(rows[0]?.n));
  });

  it('expands fragments and inline fragments, merges fields and keeps selection order', async () => {
    const query = `
      query Q($withEmail: Boolean!, $skipBio: Boolean = true) {
        user(id: "${firstId}") {
          ...Names
          email @include(if: $withEmail)
          bio @skip(if: $skipBio)
          ... on User { id handle: username }
          name
          posts(first: 1) { title }
          posts(first: 1) { id }
        }
      }
      fragment Names on User { name __typename }`;
    const response = await gql(server.url, query, { withEmail: true });
    expect(response.json.errors).toBeUndefined();
    expect(Object.keys(response.json.data.user)).toEqual(['name', '__typename', 'email', 'id', 'handle', 'posts']);
    expect(response.json.data.user.__typename).toBe('User');
    expect(Object.keys(response.json.data.user.posts[0])).toEqual(['title', 'id']);
    const without = await gql(server.url, query, { withEmail: false, skipBio: false });
    expect(Object.keys(without.json.data.user)).toEqual(['name', '__typename', 'bio', 'id', 'handle', 'posts']);
  });

  it('takes variables for arguments at any depth', async () => {
    const query = `query($id: ID!, $n: Int!, $order: [PostOrder!]) { user(id: $id) { posts(first: $n, orderBy: $order) { title } } }`;
    const response = await gql(server.url, query, { id: firstId, n: 3, order: [{ field: 'title', direction: 'DESC' }] });
    const titles = (response.json.data.user.posts as { title: string }[]).map((post) => post.title);
    expect(titles).toHaveLength(3);
    expect([...titles].sort().reverse()).toEqual(titles);
  });

  it('pages with _cursor: after the last cursor comes the next page', async () => {
    const all = await gql(server.url, `{ users(first: 6, orderBy: [{ field: name }]) { id } }`);
    const ids = (all.json.data.users as { id: string }[]).map((user) => user.id);
    const page1 = await gql(server.url, `{ users(first: 3, orderBy: [{ field: name }]) { id _cursor } }`);
    const last = page1.json.data.users[2]._cursor as string;
    const page2 = await gql(server.url, `query($after: String) { users(first: 3, after: $after, orderBy: [{ field: name }]) { id } }`, { after: last });
    expect([...page1.json.data.users.map((u: { id: string }) => u.id), ...page2.json.data.users.map((u: { id: string }) => u.id)]).toEqual(ids);
    const back = await gql(server.url, `query($before: String) { users(last: 2, before: $before, orderBy: [{ field: name }]) { id } }`, { before: last });
    expect(back.json.data.users.map((u: { id: string }) => u.id)).toEqual(ids.slice(0, 2));
    // `before` alone pages backward too: the rows just before the cursor, not the list's first ones.
    const forty = (await gql(server.url, `{ users(first: 40, orderBy: [{ field: name }]) { id _cursor } }`)).json.data.users as { id: string; _cursor: string }[];
    const fortieth = (forty[39] as { _cursor: string })._cursor;
    const before = await gql(server.url, `query($before: String) { users(before: $before, orderBy: [{ field: name }]) { id } }`, { before: fortieth });
    expect(before.json.data.users.map((u: { id: string }) => u.id)).toEqual(forty.slice(19, 39).map((u) => u.id));
    // With first:, the first rows before it, as Relay's algorithm says.
    const firstBefore = await gql(server.url, `query($before: String) { users(first: 2, before: $before, orderBy: [{ field: name }]) { id } }`, { before: fortieth });
    expect(firstBefore.json.data.users.map((u: { id: string }) => u.id)).toEqual(forty.slice(0, 2).map((u) => u.id));
  });

  it('filters with the planner operators and counts', async () => {
    const response = await gql(
      server.url,
      `{ users(filter: { or: [{ role: { eq: ADMIN } }, { role: { in: [MODERATOR] } }] }, first: 100) { role } usersCount(filter: { role: { ne: MEMBER } }) }`,
    );
    expect(response.json.errors).toBeUndefined();
    const roles = (response.json.data.users as { role: string }[]).map((user) => user.role);
    expect(roles.every((role) => role === 'ADMIN' || role === 'MODERATOR')).toBe(true);
    expect(response.json.data.usersCount).toBe(roles.length);
    const nested = await gql(server.url, `{ user(id: "${firstId}") { postsCount p: postsCount(filter: { status: { eq: PUBLISHED } }) posts(first: 100, filter: { status: { eq: PUBLISHED } }) { id } } }`);
    expect(nested.json.data.user.p).toBe(nested.json.data.user.posts.length);
    expect(nested.json.data.user.postsCount).toBeGreaterThanOrEqual(nested.json.data.user.p);
  });

  it('answers the same data as REST for the same question', async () => {
    const rest = await http(server.url, 'GET', `/users/${firstId}?fields=name,email,role,createdAt&include=posts&posts.fields=title,status&posts.limit=3&posts.sort=-createdAt`);
    const graph = await gql(server.url, `{ user(id: "${firstId}") { name email role createdAt posts(first: 3, orderBy: [{ field: createdAt, direction: DESC }]) { title status } } }`);
    expect(graph.json.data.user).toEqual(rest.json);
    const restList = await http(server.url, 'GET', '/posts?fields=title,author&limit=5&sort=title&filter[status]=PUBLISHED');
    const graphList = await gql(server.url, `{ posts(first: 5, orderBy: [{ field: title }], filter: { status: { eq: PUBLISHED } }) { title author { id } } }`);
    expect(graphList.json.data.posts.map((p: { title: string; author: { id: string } }) => ({ title: p.title, author: p.author.id }))).toEqual(restList.json.data);
  });

  it('reports planner errors as field errors with registry codes', async () => {
    const cursor = await gql(server.url, `{ users(after: "nonsense") { id } }`);
    expect(cursor.status).toBe(200);
    expect(cursor.json.data).toBeNull();
    expect(cursor.json.errors[0]).toMatchObject({ path: ['users'], extensions: { code: 'QUERY_INVALID_CURSOR' }, locations: [{ line: 1, column: 3 }] });
    const page = await gql(server.url, `{ user(id: "${firstId}") { name } users(first: 1000) { id } }`);
    expect(page.json.errors[0].extensions.code).toBe('QUERY_PAGE_TOO_LARGE');
    const filter = await gql(server.url, `{ users(filter: { name: { eq: null } }) { id } }`);
    expect(filter.json.errors[0].extensions.code).toBe('QUERY_INVALID_FILTER');
    const typed = await gql(server.url, `{ users(filter: { name: { eq: 42 } }) { id } }`);
    expect(typed.json.errors[0].extensions.code).toBe('QUERY_INVALID_FILTER');
    expect(typed.json.data).toBeUndefined();
  });

  it('keeps a nullable root field error to that field', async () => {
    const response = await gql(server.url, `{ ok: user(id: "${firstId}") { name } bad: user(id: "${firstId}") { posts(after: "zz") { id } } }`);
    expect(response.json.data.ok.name).toEqual(expect.any(String));
    expect(response.json.data.bad).toBeNull();
    expect(response.json.errors).toHaveLength(1);
    expect(response.json.errors[0].path).toEqual(['bad']);
  });

  it('answers introspection and __typename through graphql-js', async () => {
    const response = await gql(
      server.url,
      `{ __typename __schema { queryType { name } mutationType { name } } __type(name: "User") { name fields { name } } user(id: "${firstId}") { __typename } }`,
    );
    expect(response.json.errors).toBeUndefined();
    expect(Object.keys(response.json.data)).toEqual(['__typename', '__schema', '__type', 'user']);
    expect(response.json.data.__typename).toBe('Query');
    expect(response.json.data.__schema).toEqual({ queryType: { name: 'Query' }, mutationType: { name: 'Mutation' } });
    const fields = (response.json.data.__type.fields as { name: string }[]).map((field) => field.name);
    expect(fields).toEqual(expect.arrayContaining(['name', 'profilePicture', 'posts', 'postsCount', '_cursor']));
    expect(response.json.data.user).toEqual({ __typename: 'User' });
  });

  it('refuses invalid documents before running anything, with codes', async () => {
    const before = server.db.statementCount;
    const unknown = await gql(server.url, `{ user(id: "x") { nmae } }`);
    expect(unknown.status).toBe(200);
    expect(unknown.json.data).toBeUndefined();
    expect(unknown.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
    expect(unknown.json.errors[0].message).toContain('Did you mean "name"?');
    const syntax = await gql(server.url, `{ user(id: "x") { name }`, undefined, { accept: 'application/graphql-response+json' });
    expect(syntax.status).toBe(400);
    expect(syntax.headers.get('content-type')).toBe('application/graphql-response+json; charset=utf-8');
    expect(syntax.json.errors[0].extensions.code).toBe('GRAPHQL_PARSE_FAILED');
    expect(server.db.statementCount).toBe(before);
  });
});
