import { testContext } from '../support/contexts.js';
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DEFAULT_LIMITS } from '../../src/plan/build-read.js';
import { ANONYMOUS } from '../../src/plan/principal.js';
import { resolveGraphqlOptions } from '../../src/graphql/graphql-options.js';
import { createGraphqlHandler, type GraphqlHttpResponse, type JsonMedia } from '../../src/graphql/handle-graphql.js';
import { paramsFromJson } from '../../src/graphql/http/graphql-params.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql, gqlGet } from './graphql-client.js';

/**
 * Operation templates: the same document again with other values must
 * answer exactly as the full path would. The first request of a document
 * compiles it; every later one in these tests runs from its template.
 */

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const SELECTION = `{ id name posts(first: 10) { title } followers(first: 10) { name } }`;
const BY_VARIABLE = `query($id: ID!) { user(id: $id) ${SELECTION} }`;
const byLiteral = (id: string): string => `{ user(id: ${JSON.stringify(id)}) ${SELECTION} }`;

describeEachDialect('GraphQL operation templates', (ctx) => {
  let server: TestServer;
  let users: { readonly id: string; readonly postsCount: number }[];

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
    const listed = await gql(server.url, `{ users(first: 60) { id postsCount } }`);
    users = listed.json.data.users;
  });
  afterAll(async () => {
    await server.close();
  });

  /** A handler that has never seen a request: what the full path answers. */
  function cold(query: string, variables: Record<string, unknown>, media: JsonMedia = 'application/json'): Promise<GraphqlHttpResponse> {
    const handler = createGraphqlHandler(server.engine, DEFAULT_LIMITS, resolveGraphqlOptions({}));
    return handler.handle({ method: 'POST', params: paramsFromJson({ query, variables }), media, ifNoneMatch: undefined, context: testContext(ANONYMOUS) });
  }

  function idAt(index: number): string {
    return (users[index % users.length] as { id: string }).id;
  }

  it("answers each id with that user's own data, many times over, unknown ids included", async () => {
    const ids = [idAt(0), idAt(1), 'does-not-exist', idAt(2), idAt(3), 'does-not-exist', idAt(0), idAt(4)];
    const expected = new Map<string, string>();
    for (const id of new Set(ids)) expected.set(id, (await gql(server.url, byLiteral(id))).text);
    expect(JSON.parse(expected.get('does-not-exist') ?? '')).toEqual({ data: { user: null } });

    for (let round = 0; round < 3; round++) {
      for (const id of ids) {
        const response = round === 1 ? await gqlGet(server.url, { query: BY_VARIABLE, variables: { id } }) : await gql(server.url, BY_VARIABLE, { id });
        expect(response.status).toBe(200);
        expect(response.text).toBe(expected.get(id));
        if (id === 'does-not-exist') continue;
        const rest = await http(server.url, 'GET', `/users/${id}?fields=id,name`);
        expect(response.json.data.user).toMatchObject(rest.json);
      }
    }
  });

  it('coerces an integer id as graphql-js does, from the template too', async () => {
    await gql(server.url, BY_VARIABLE, { id: idAt(5) });
    const numeric = await gql(server.url, BY_VARIABLE, { id: 12345 });
    expect(numeric.text).toBe((await gql(server.url, byLiteral('12345'))).text);
    expect(numeric.json).toEqual({ data: { user: null } });
  });

  it('gives the right page sizes when a non-slot variable changes', async () => {
    const query = `query($id: ID!, $n: Int!) { user(id: $id) { posts(first: $n) { id } } users(first: $n) { id } }`;
    const authors = users.filter((user) => user.postsCount >= 3);
    expect(authors.length).toBeGreaterThan(1);
    const steps = [3, 1, 0, 2, 3, 1, 0, 3];
    for (const [index, n] of steps.entries()) {
      const author = authors[index % authors.length] as { id: string; postsCount: number };
      const response = await gql(server.url, query, { id: author.id, n });
      expect(response.json.errors).toBeUndefined();
      expect(response.json.data.user.posts).toHaveLength(Math.min(n, author.postsCount));
      expect(response.json.data.users).toHaveLength(n);
      const literal = await gql(server.url, `{ user(id: "${author.id}") { posts(first: ${n}) { id } } users(first: ${n}) { id } }`);
      expect(response.text).toBe(literal.text);
    }
  });

  it('refuses a wrong id value after the template exists exactly as a cold server does', async () => {
    await gql(server.url, BY_VARIABLE, { id: idAt(6) });
    await gql(server.url, BY_VARIABLE, { id: idAt(7) });
    const bad: Record<string, unknown>[] = [{ id: true }, { id: { a: 1 } }, { id: null }, { id: 1.5 }, { id: [idAt(0)] }, {}];
    for (const variables of bad) {
      for (const media of ['application/json', 'application/graphql-response+json'] as const) {
        const warm = await gql(server.url, BY_VARIABLE, variables, { accept: media });
        const reference = await cold(BY_VARIABLE, variables, media);
        expect(warm.status).toBe(reference.status);
        expect(warm.text).toBe(reference.body);
        expect(warm.json.errors[0].extensions.code).toBe('GRAPHQL_VALIDATION_FAILED');
        expect(warm.json.data).toBeUndefined();
      }
    }
    // The template is still there and still right.
    const again = await gql(server.url, BY_VARIABLE, { id: idAt(8) });
    expect(again.text).toBe((await gql(server.url, byLiteral(idAt(8)))).text);
  });

  it('refuses a wrong non-slot value after the template exists exactly as a cold server does', async () => {
    const query = `query($id: ID!, $n: Int!) { user(id: $id) { posts(first: $n) { id } } }`;
    await gql(server.url, query, { id: idAt(0), n: 2 });
    await gql(server.url, query, { id: idAt(1), n: 2 });
    for (const variables of [{ id: idAt(2), n: 'two' }, { id: idAt(2), n: -1 }, { id: idAt(2), n: 1000 }, { id: idAt(2) }]) {
      const warm = await gql(server.url, query, variables);
      const reference = await cold(query, variables);
      expect(warm.status).toBe(reference.status);
      expect(warm.text).toBe(reference.body);
      expect(warm.json.errors).toHaveLength(1);
    }
  });

  it('does not treat a variable used twice as a slot, and answers it right', async () => {
    const documents = [
      `query($id: ID!) { a: user(id: $id) { id name } b: user(id: $id) { id } }`,
      `query($id: ID!) { user(id: $id) { id } users(filter: { id: { eq: $id } }) { id } }`,
      `query($id: ID!) { user(id: $id) { id } ...Same } fragment Same on Query { users(filter: { id: { eq: $id } }) { id } }`,
    ];
    for (const [round, document] of documents.entries()) {
      for (let index = 0; index < 5; index++) {
        const id = idAt(round * 5 + index);
        const response = await gql(server.url, document, { id });
        expect(response.json.errors).toBeUndefined();
        const { data } = response.json;
        if ('a' in data) expect([data.a.id, data.b.id]).toEqual([id, id]);
        else expect([data.user.id, data.users]).toEqual([id, [{ id }]]);
      }
    }
  });

  it('binds several slots, and a slot whose field @include leaves out', async () => {
    const pair = `query($a: ID!, $b: ID!) { x: user(id: $a) { id } y: user(id: $b) { id } }`;
    for (let index = 0; index < 4; index++) {
      const response = await gql(server.url, pair, { a: idAt(index), b: idAt(index + 10) });
      expect(response.json).toEqual({ data: { x: { id: idAt(index) }, y: { id: idAt(index + 10) } } });
    }
    const optional = `query($id: ID!, $with: Boolean!) { user(id: $id) @include(if: $with) { id } usersCount }`;
    for (let index = 0; index < 6; index++) {
      const withUser = index % 2 === 0;
      const response = await gql(server.url, optional, { id: idAt(index), with: withUser });
      expect(response.json.errors).toBeUndefined();
      expect(response.json.data.user).toEqual(withUser ? { id: idAt(index) } : undefined);
    }
    const wrong = await gql(server.url, optional, { id: false, with: false });
    expect(wrong.text).toBe((await cold(optional, { id: false, with: false })).body);
  });

  it('uses a default id when the variable is absent, and the given one otherwise', async () => {
    const query = `query($id: ID = "nobody") { user(id: $id) { id } }`;
    const sequence: [Record<string, unknown>, unknown][] = [
      [{}, null],
      [{ id: idAt(0) }, { id: idAt(0) }],
      [{}, null],
      [{ id: idAt(1) }, { id: idAt(1) }],
    ];
    for (const [variables, user] of sequence) expect((await gql(server.url, query, variables)).json).toEqual({ data: { user } });
    const nulled = await gql(server.url, query, { id: null });
    expect(nulled.text).toBe((await cold(query, { id: null })).body);
    expect(nulled.json.errors[0].extensions.code).toBeDefined();
  });

  it('GET: 304 while unchanged, 200 after a write, per id, from the template', async () => {
    const query = `query($id: ID!) { user(id: $id) { name bio } }`;
    const [a, b] = [idAt(20), idAt(21)];
    const first = await gqlGet(server.url, { query, variables: { id: a } });
    const second = await gqlGet(server.url, { query, variables: { id: b } });
    const [etagA, etagB] = [first.headers.get('etag') ?? '', second.headers.get('etag') ?? ''];
    expect(etagA).toMatch(/^"/);
    expect(etagB).toMatch(/^"/);
    expect(etagA).not.toBe(etagB);
    expect(second.json.data.user.name).toBe((await http(server.url, 'GET', `/users/${b}`)).json.name);

    const check = async (id: string, etag: string): Promise<HttpResponse> => gqlGet(server.url, { query, variables: { id } }, { 'if-none-match': etag });
    expect((await check(a, etagA)).status).toBe(304);
    expect((await check(b, etagB)).status).toBe(304);
    // The key still varies with the variables: A's answer is not B's.
    const crossed = await check(a, etagB);
    expect(crossed.status).toBe(200);
    expect(crossed.text).toBe(first.text);

    const bio = `changed ${Date.now()}`;
    const changed = await gql(server.url, `mutation($id: ID!, $bio: String) { updateUser(id: $id, input: { bio: $bio }) { bio } }`, { id: b, bio });
    expect(changed.json.data.updateUser.bio).toBe(bio);
    const afterB = await check(b, etagB);
    expect(afterB.status).toBe(200);
    expect(afterB.json.data.user.bio).toBe(bio);
    expect(afterB.headers.get('etag')).not.toBe(etagB);
    // A did not change: revalidated, still the same representation.
    expect((await check(a, etagA)).status).toBe(304);
    expect((await check(b, afterB.headers.get('etag') ?? '')).status).toBe(304);
  });

  it('automatic persisted query by hash: 304 while unchanged, 200 after a write', async () => {
    const query = `query Profile($id: ID!) { user(id: $id) { name location } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    const [a, b] = [idAt(30), idAt(31)];
    const registered = await http(server.url, 'POST', '/graphql', { body: { query, extensions, variables: { id: a } } });
    expect(registered.json.data.user.name).toEqual(expect.any(String));

    const byHash = async (id: string, etag?: string): Promise<HttpResponse> =>
      gqlGet(server.url, { extensions, operationName: 'Profile', variables: { id } }, etag === undefined ? {} : { 'if-none-match': etag });
    const first = await byHash(a);
    expect(first.text).toBe(registered.text);
    const second = await byHash(b);
    expect(second.json.data.user.name).toBe((await http(server.url, 'GET', `/users/${b}`)).json.name);
    const etagB = second.headers.get('etag') ?? '';
    for (let i = 0; i < 3; i++) {
      expect((await byHash(a, first.headers.get('etag') ?? '')).status).toBe(304);
      expect((await byHash(b, etagB)).status).toBe(304);
    }
    const location = `somewhere ${Date.now()}`;
    await http(server.url, 'PATCH', `/users/${b}`, { body: { location }, headers: { 'content-type': 'application/merge-patch+json' } });
    const after = await byHash(b, etagB);
    expect(after.status).toBe(200);
    expect(after.json.data.user.location).toBe(location);
  });
});
