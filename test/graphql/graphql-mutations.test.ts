import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from './graphql-client.js';

describeEachDialect('GraphQL mutations', (ctx) => {
  let server: TestServer;
  let someone: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
    const rows = await server.db.all<{ id: string }>(`SELECT id FROM users ORDER BY id LIMIT 1`);
    someone = (rows[0] as { id: string }).id;
  });
  afterAll(async () => {
    await server.close();
  });

  it('creates, updates and deletes, returning any selection', async () => {
    const created = await gql(
      server.url,
      `mutation($input: CreateUserInput!) { createUser(input: $input) { id name role isVerified interests createdAt postsCount } }`,
      { input: { name: 'Ada Lovelace', email: 'ada@example.com', interests: ['maths'] } },
    );
    expect(created.json.errors).toBeUndefined();
    const user = created.json.data.createUser;
    expect(user).toMatchObject({ name: 'Ada Lovelace', role: 'MEMBER', isVerified: false, interests: ['maths'], postsCount: 0 });
    expect(Object.keys(user)).toEqual(['id', 'name', 'role', 'isVerified', 'interests', 'createdAt', 'postsCount']);
    // On PostgreSQL the create renders its selection in its own statement: it must be what a query reads afterwards.
    const read = await gql(server.url, `{ user(id: "${user.id as string}") { id name role isVerified interests createdAt postsCount } }`);
    expect(read.json.data.user).toEqual(user);

    const post = await gql(server.url, `mutation { createPost(input: { title: "Hi", body: "First", author: "${user.id as string}" }) { title status author { name } } }`);
    expect(post.json.data.createPost).toEqual({ title: 'Hi', status: 'DRAFT', author: { name: 'Ada Lovelace' } });

    const updated = await gql(server.url, `mutation { updateUser(id: "${user.id as string}", input: { bio: "Analyst", role: ADMIN }) { name bio role } }`);
    expect(updated.json.data.updateUser).toEqual({ name: 'Ada Lovelace', bio: 'Analyst', role: 'ADMIN' });
    const rest = await http(server.url, 'GET', `/users/${user.id as string}?fields=bio,role`);
    expect(rest.json).toEqual({ bio: 'Analyst', role: 'ADMIN' });

    const deleted = await gql(server.url, `mutation { deleteUser(id: "${user.id as string}") { name bio } }`);
    expect(deleted.json).toEqual({ data: { deleteUser: { name: 'Ada Lovelace', bio: 'Analyst' } } });
    const gone = await gql(server.url, `{ user(id: "${user.id as string}") { id } }`);
    expect(gone.json.data.user).toBeNull();
    const again = await gql(server.url, `mutation { deleteUser(id: "${user.id as string}") { name } }`);
    expect(again.json.data).toEqual({ deleteUser: null });
    expect(again.json.errors[0]).toMatchObject({ path: ['deleteUser'], extensions: { code: 'NOT_FOUND' } });
  });

  it('follows and unfollows (many-to-many), idempotently', async () => {
    const made = await gql(server.url, `mutation { a: createUser(input: { name: "A", email: "a@example.com" }) { id } }`);
    const id = made.json.data.a.id as string;
    const add = `mutation { addUserFollowing(id: "${id}", targetId: "${someone}") { followingCount following { id } } }`;
    expect((await gql(server.url, add)).json.data.addUserFollowing).toEqual({ followingCount: 1, following: [{ id: someone }] });
    expect((await gql(server.url, add)).json.data.addUserFollowing.followingCount).toBe(1);
    const remove = await gql(server.url, `mutation { removeUserFollowing(id: "${id}", targetId: "${someone}") { followingCount } }`);
    expect(remove.json.data.removeUserFollowing).toEqual({ followingCount: 0 });
    const missing = await gql(server.url, `mutation { addUserFollowing(id: "${id}", targetId: "nobody") { id } }`);
    expect(missing.json.data).toBeNull();
    expect(missing.json.errors[0].extensions.code).toBe('NOT_FOUND');
  });

  it('runs root mutations in order, one after another', async () => {
    const response = await gql(
      server.url,
      `mutation { first: createUser(input: { name: "One", email: "one@example.com" }) { id } count: updateUser(id: "${someone}", input: { bio: "x" }) { bio } second: createUser(input: { name: "Two", email: "two@example.com" }) { id } }`,
    );
    expect(Object.keys(response.json.data)).toEqual(['first', 'count', 'second']);
    expect(response.json.data.first.id < response.json.data.second.id).toBe(true);
  });

  it('validates input with the same codes as REST', async () => {
    const cases: { rest: unknown; graphql: string; code: string }[] = [
      { rest: { email: 'x@example.com' }, graphql: `createUser(input: { email: "x@example.com" })`, code: 'INPUT_REQUIRED_FIELD' },
      { rest: { name: 'X', email: 'x@example.com', nmae: 'y' }, graphql: `createUser(input: { name: "X", email: "x@example.com", nmae: "y" })`, code: 'INPUT_UNKNOWN_FIELD' },
      { rest: { name: 'X', email: 'x@example.com', suspendedReason: 'y' }, graphql: `createUser(input: { name: "X", email: "x@example.com", suspendedReason: "y" })`, code: 'INPUT_READONLY_FIELD' },
      { rest: { name: 'X', email: 'x@example.com', birthday: 'yesterday' }, graphql: `createUser(input: { name: "X", email: "x@example.com", birthday: "yesterday" })`, code: 'INPUT_WRONG_TYPE' },
      { rest: { name: 'X', email: 'x@example.com', isPrivate: 'yes' }, graphql: `createUser(input: { name: "X", email: "x@example.com", isPrivate: "yes" })`, code: 'INPUT_WRONG_TYPE' },
      { rest: { name: null, email: 'x@example.com' }, graphql: `createUser(input: { name: null, email: "x@example.com" })`, code: 'INPUT_REQUIRED_FIELD' },
    ];
    for (const item of cases) {
      const rest = await http(server.url, 'POST', '/users', { body: item.rest });
      expect(rest.json.code).toBe(item.code);
      const graph = await gql(server.url, `mutation { ${item.graphql} { id } }`);
      expect(graph.json.errors.map((error: { extensions: { code: string } }) => error.extensions.code)).toEqual([item.code]);
    }
    const patch = await http(server.url, 'PATCH', `/users/${someone}`, { body: { name: null } });
    const update = await gql(server.url, `mutation { updateUser(id: "${someone}", input: { name: null }) { id } }`);
    expect(update.json.errors[0].extensions.code).toBe(patch.json.code);
    expect(update.json.errors[0].extensions.errors).toEqual(patch.json.errors);
  });

  it('maps variable coercion errors in inputs to the same codes', async () => {
    const query = `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`;
    const missing = await gql(server.url, query, { input: { email: 'v@example.com' } });
    expect(missing.json.errors[0].extensions.code).toBe('INPUT_REQUIRED_FIELD');
    const unknown = await gql(server.url, query, { input: { name: 'V', email: 'v@example.com', colour: 'red' } });
    expect(unknown.json.errors[0].extensions.code).toBe('INPUT_UNKNOWN_FIELD');
    const wrong = await gql(server.url, query, { input: { name: 'V', email: 'v@example.com', isPrivate: 'yes' } });
    expect(wrong.json.errors[0].extensions.code).toBe('INPUT_WRONG_TYPE');
  });

  it('reports database conflicts with their codes', async () => {
    const email = 'same@example.com';
    await gql(server.url, `mutation { createUser(input: { name: "S", email: "${email}" }) { id } }`);
    const duplicate = await gql(server.url, `mutation { createUser(input: { name: "T", email: "${email}" }) { id } }`);
    expect(duplicate.json.data).toBeNull();
    expect(duplicate.json.errors[0].extensions.code).toBe('UNIQUE_VIOLATION');
    const orphan = await gql(server.url, `mutation { createPost(input: { title: "t", body: "b", author: "nobody" }) { id } }`);
    expect(orphan.json.errors[0].extensions.code).toBe('RELATION_TARGET_NOT_FOUND');
    expect(JSON.stringify(orphan.json)).not.toMatch(/SELECT|INSERT|at .*\.ts/);
  });
});
