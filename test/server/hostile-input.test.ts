import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../src/rest/openapi/build-openapi-document.js';
import { gql, gqlGet } from '../graphql/graphql-client.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { incompressible } from '../support/hostile-requests.js';
import { createResponseValidator } from '../support/openapi-validator.js';
import { startServer, type TestServer } from '../support/start-server.js';

/** JSON text nested `depth` arrays deep, written out (JSON.stringify of such a value would overflow the test's own stack). */
function nested(depth: number): string {
  return `${'['.repeat(depth)}${']'.repeat(depth)}`;
}

/** POST /graphql with the variables spliced in as text. */
function gqlRaw(base: string, query: string, variablesJson: string): Promise<HttpResponse> {
  return http(base, 'POST', '/graphql', { raw: `{"query":${JSON.stringify(query)},"variables":${variablesJson}}`, headers: { 'content-type': 'application/json' } });
}

function codes(response: HttpResponse): string[] {
  return (response.json.errors as { extensions: { code: string } }[]).map((error) => error.extensions.code);
}

/**
 * Input meant to break the server — JSON nested past any use, query strings
 * past the parser's limits or naming `__proto__`, filters that would make
 * SQL too deep — is refused with a 4xx in both styles, nothing is stored,
 * nothing is logged as an internal error, and the server goes on answering.
 */
describeEachDialect('hostile input', (ctx) => {
  let server: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } },
    });
  });
  afterAll(async () => {
    // Whatever a test sent, nothing was an internal error with a stack in the log (pino level 50).
    expect(lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
    await server.close();
  });

  const stored = async (email: string): Promise<number> => {
    const response = await http(server.url, 'GET', `/users?filter[email]=${encodeURIComponent(email)}&fields=id`);
    expect(response.status).toBe(200);
    return (response.json.data as unknown[]).length;
  };

  describe('JSON values past their bounds', () => {
    const mutation = `mutation($input: CreateUserInput!) { createUser(input: $input) { id } }`;

    it('a create whose JSON field nests 1,001 or 5,000 levels is 400 VALIDATION_FAILED at /preferences in both styles, stores nothing, and lists still answer', async () => {
      for (const depth of [1001, 5000]) {
        const email = `deep${depth}@example.com`;
        const rest = await http(server.url, 'POST', '/users', {
          raw: `{"name":"p","email":"${email}","preferences":${nested(depth)}}`,
          headers: { 'content-type': 'application/json' },
        });
        expect(rest.status).toBe(400);
        expect(rest.json.code).toBe('VALIDATION_FAILED');
        expect(rest.json.errors).toEqual([{ pointer: '/preferences', code: 'VALIDATION_FAILED', detail: 'preferences nests deeper than 64 levels; the limit is 64' }]);

        const graph = await gqlRaw(server.url, mutation, `{"input":{"name":"p","email":"${email}","preferences":${nested(depth)}}}`);
        expect(graph.json.data).toBeNull();
        expect(codes(graph)).toEqual(['VALIDATION_FAILED']);
        expect(graph.json.errors[0].extensions.errors).toEqual(rest.json.errors);

        const asVariable = await gqlRaw(server.url, `mutation($p: JSON) { createUser(input: { name: "p", email: "${email}", preferences: $p }) { id } }`, `{"p":${nested(depth)}}`);
        expect(codes(asVariable)).toEqual(['VALIDATION_FAILED']);
        expect(asVariable.json.errors[0].extensions.errors[0].pointer).toBe('/preferences');

        expect(await stored(email)).toBe(0);
        expect((await http(server.url, 'GET', '/users')).status).toBe(200);
        expect((await gql(server.url, '{ users(first: 50) { preferences } }')).json.errors).toBeUndefined();
      }
    });

    it('an inline literal one level past the bound is refused the same way; one at the bound is stored and read back', async () => {
      const literal = await gql(server.url, `mutation { createUser(input: { name: "p", email: "literal@example.com", preferences: ${nested(65)} }) { id } }`);
      expect(codes(literal)).toEqual(['VALIDATION_FAILED']);
      expect(literal.json.errors[0].extensions.errors[0].pointer).toBe('/preferences');
      expect(await stored('literal@example.com')).toBe(0);

      const atBound = await http(server.url, 'POST', '/users', { raw: `{"name":"p","email":"bound@example.com","preferences":${nested(64)}}`, headers: { 'content-type': 'application/json' } });
      expect(atBound.status).toBe(201);
      expect(JSON.stringify(atBound.json.preferences)).toBe(nested(64));
      const list = await http(server.url, 'GET', '/users?filter[email]=bound@example.com&fields=preferences');
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.json.data[0].preferences)).toBe(nested(64));
    });

    it('a JSON value of more than 10,000 values is refused on create and update, in both styles', async () => {
      const wide = `[${Array(10_001).fill('0').join(',')}]`;
      const rest = await http(server.url, 'POST', '/users', { raw: `{"name":"w","email":"wide@example.com","preferences":${wide}}`, headers: { 'content-type': 'application/json' } });
      expect(rest.status).toBe(400);
      expect(rest.json.errors).toEqual([{ pointer: '/preferences', code: 'VALIDATION_FAILED', detail: 'preferences holds more than 10000 values; the limit is 10000' }]);
      const id = (await http(server.url, 'GET', '/users?fields=id&limit=1')).json.data[0].id as string;
      const patch = await http(server.url, 'PATCH', `/users/${id}`, { raw: `{"preferences":${wide}}`, headers: { 'content-type': 'application/json' } });
      expect(patch.status).toBe(400);
      expect(patch.json.errors[0].pointer).toBe('/preferences');
      const graph = await gqlRaw(server.url, `mutation($p: JSON) { updateUser(id: "${id}", input: { preferences: $p }) { id } }`, `{"p":${wide}}`);
      expect(codes(graph)).toEqual(['VALIDATION_FAILED']);
      expect(graph.json.errors[0].extensions.errors).toEqual(patch.json.errors);
      expect(await stored('wide@example.com')).toBe(0);
    });
  });

  describe('query strings qs cannot or should not read', () => {
    const refused: readonly (readonly [query: string, code: string])[] = [
      // Past the parser's limits: refused, never cut short.
      ['filter[not][not][not][not][not][not][name]=a', 'QUERY_TOO_COMPLEX'],
      ['posts.filter[not][not][not][not][not][not][title]=a&include=posts', 'QUERY_TOO_COMPLEX'],
      ['filter[or][99999999][name]=a', 'QUERY_TOO_COMPLEX'],
      [Array.from({ length: 101 }, () => 'fields[]=name').join('&'), 'QUERY_TOO_COMPLEX'],
      [Array.from({ length: 301 }, (_, i) => `p${i}=1`).join('&'), 'QUERY_TOO_COMPLEX'],
      // __proto__, however spelled, and the names of Object.prototype's members.
      ['__proto__[x]=1', 'QUERY_INVALID_ARGUMENT'],
      ['filter[__proto__][name]=a', 'QUERY_INVALID_ARGUMENT'],
      ['filter%5B%5F%5Fproto%5F%5F%5D%5Bname%5D=a', 'QUERY_INVALID_ARGUMENT'],
      ['toString=1', 'QUERY_INVALID_ARGUMENT'],
      ['filter[constructor][eq]=a', 'QUERY_UNKNOWN_FIELD'],
      ['filter[name][hasOwnProperty]=a', 'QUERY_INVALID_FILTER'],
      // Objects or lists where a string belongs.
      ['fields[][a]=name', 'QUERY_INVALID_ARGUMENT'],
      ['fields[a]=name', 'QUERY_INVALID_ARGUMENT'],
      ['include[][x]=posts', 'QUERY_INVALID_ARGUMENT'],
      ['limit[]=1', 'QUERY_INVALID_ARGUMENT'],
      ['after[x]=1', 'QUERY_INVALID_ARGUMENT'],
      ['sort[a][b]=name', 'QUERY_INVALID_ARGUMENT'],
      ['count[]=true', 'QUERY_INVALID_ARGUMENT'],
      ['filter=a', 'QUERY_INVALID_FILTER'],
      ['filter[name]=a&filter[name][eq]=b', 'QUERY_INVALID_FILTER'],
      ['filter[name][eq][x]=a', 'QUERY_INVALID_FILTER'],
      ['filter[or]=a', 'QUERY_INVALID_FILTER'],
    ];

    it('each is a 400 problem with a registered code and a detail, as the OpenAPI document describes, on lists and single records', async () => {
      const validator = createResponseValidator(buildOpenApiDocument(server.model));
      for (const [query, code] of refused) {
        const response = await http(server.url, 'GET', `/users?${query}`);
        expect(response.status, query).toBe(400);
        expect(response.json.code, query).toBe(code);
        expect(typeof response.json.detail).toBe('string');
        expect(validator.validate('GET', `/users?${query}`, response.status, response.headers.get('content-type'), response.json, response.headers), query).toEqual([]);
      }
      const one = await http(server.url, 'GET', '/users/1?fields[a][b][c][d][e][f][g]=name');
      expect(one.status).toBe(400);
      expect(one.json.code).toBe('QUERY_TOO_COMPLEX');
      expect(one.json.detail).toContain('more than 6 bracket levels');
      expect((await http(server.url, 'GET', '/users?filter[not][not][not][not][not][name]=a')).status).toBe(200);
    });
  });

  describe('filters past their bounds', () => {
    const count = 'query($f: UserFilter) { usersCount(filter: $f) }';
    const nots = (depth: number): string => `${'{"not":'.repeat(depth)}{"name":{"eq":"a"}}${'}'.repeat(depth)}`;

    it('a filter nested 33, 1,000 or 10,000 levels deep, or with more than 200 conditions, is QUERY_TOO_COMPLEX, not a database error', async () => {
      // `nots(n)` is n + 1 levels: n `not`s around the condition.
      expect((await gqlRaw(server.url, count, `{"f":${nots(31)}}`)).json).toEqual({ data: { usersCount: expect.any(Number) as number } });
      for (const depth of [32, 1000, 10_000]) {
        const response = await gqlRaw(server.url, count, `{"f":${nots(depth)}}`);
        expect(codes(response), String(depth)).toEqual(['QUERY_TOO_COMPLEX']);
      }
      const wide = { or: Array.from({ length: 1000 }, (_, i) => ({ name: { eq: `n${i}` } })) };
      expect(codes(await gql(server.url, count, { f: wide }))).toEqual(['QUERY_TOO_COMPLEX']);
      const manyValues = { or: Array.from({ length: 20 }, (_, i) => ({ name: { in: Array.from({ length: 500 }, (_, j) => `n${i}-${j}`) } })) };
      expect(codes(await gql(server.url, count, { f: manyValues }))).toEqual(['QUERY_TOO_COMPLEX']);
    });

    it('GET /graphql refuses variables nested past any use before reading them (400)', async () => {
      const response = await http(server.url, 'GET', `/graphql?query=${encodeURIComponent('{ usersCount }')}&variables={"x":${nested(5000)}}`);
      expect(response.status).toBe(400);
      expect(codes(response)).toEqual(['QUERY_TOO_COMPLEX']);
      expect((await gqlGet(server.url, { query: count, variables: { f: { not: { name: { eq: 'a' } } } } })).status).toBe(200);
    });
  });

  describe('unique violations', () => {
    it('name the type and point at the field, in both styles, on create and update', async () => {
      const email = 'taken@example.com';
      expect((await http(server.url, 'POST', '/users', { body: { name: 'First', email } })).status).toBe(201);
      const detail = 'Another User already has this email.';
      const expected = [{ pointer: '/email', code: 'UNIQUE_VIOLATION', detail }];

      const rest = await http(server.url, 'POST', '/users', { body: { name: 'Second', email } });
      expect(rest.status).toBe(409);
      expect(rest.json).toMatchObject({ code: 'UNIQUE_VIOLATION', detail, errors: expected });
      const graph = await gql(server.url, `mutation { createUser(input: { name: "Second", email: "${email}" }) { id } }`);
      expect(graph.json.errors).toMatchObject([{ message: detail, extensions: { code: 'UNIQUE_VIOLATION', errors: expected } }]);

      const other = (await http(server.url, 'POST', '/users', { body: { name: 'Other', email: 'other@example.com' } })).json.id as string;
      const patch = await http(server.url, 'PATCH', `/users/${other}`, { body: { email } });
      expect(patch.status).toBe(409);
      expect(patch.json).toMatchObject({ code: 'UNIQUE_VIOLATION', detail, errors: expected });
      const update = await gql(server.url, `mutation { updateUser(id: "${other}", input: { email: "${email}" }) { id } }`);
      expect(update.json.errors).toMatchObject([{ message: detail, extensions: { code: 'UNIQUE_VIOLATION', errors: expected } }]);
    });
  });

  describe('DateTimes past year 9999 once in UTC', () => {
    const late = '9999-12-31T23:59:59-23:59';
    const refusal = 'birthday must fall in the years 0001 to 9999 once converted to UTC';

    it('are 400 INPUT_WRONG_TYPE at the field in a create, in both styles, and store nothing', async () => {
      const rest = await http(server.url, 'POST', '/users', { body: { name: 'Late', email: 'late@example.com', birthday: late } });
      expect(rest.status).toBe(400);
      expect(rest.json).toMatchObject({ code: 'INPUT_WRONG_TYPE', errors: [{ pointer: '/birthday', code: 'INPUT_WRONG_TYPE', detail: refusal }] });
      const graph = await gql(server.url, 'mutation($d: DateTime) { createUser(input: { name: "Late", email: "late@example.com", birthday: $d }) { id } }', { d: late });
      expect(codes(graph)).toEqual(['INPUT_WRONG_TYPE']);
      expect(graph.json.errors[0].extensions.errors).toEqual(rest.json.errors);
      const early = await http(server.url, 'POST', '/users', { body: { name: 'Early', email: 'early@example.com', birthday: '0001-01-01T00:00:00+14:00' } });
      expect(early.json.errors[0]).toMatchObject({ pointer: '/birthday', code: 'INPUT_WRONG_TYPE' });
      expect(await stored('late@example.com')).toBe(0);
      expect(await stored('early@example.com')).toBe(0);
    });

    it('are 400 QUERY_INVALID_FILTER as filter operands, in both styles', async () => {
      const rest = await http(server.url, 'GET', `/users?filter[birthday][lte]=${encodeURIComponent(late)}`);
      expect(rest.status).toBe(400);
      expect(rest.json).toMatchObject({ code: 'QUERY_INVALID_FILTER', detail: `users.filter.birthday.lte: ${refusal}` });
      const graph = await gql(server.url, 'query($d: DateTime) { users(filter: { birthday: { lte: $d } }) { id } }', { d: late });
      expect(codes(graph)).toEqual(['QUERY_INVALID_FILTER']);
    });

    it('the last instant of year 9999 is stored and sorts after every earlier one', async () => {
      const last = await http(server.url, 'POST', '/users', { body: { name: 'Last', email: 'last@example.com', birthday: '9999-12-31T00:00:00-23:59' } });
      expect(last.status).toBe(201);
      expect(last.json.birthday).toBe('9999-12-31T23:59:00.000Z');
      const sorted = await http(server.url, 'GET', '/users?sort=-birthday&filter[birthday][isNull]=false&fields=email,birthday&limit=1');
      expect(sorted.json.data).toEqual([{ email: 'last@example.com', birthday: '9999-12-31T23:59:00.000Z' }]);
    });
  });

  describe('text too long for an index', () => {
    const long = incompressible(8000);

    it('an 8,000-character email, name or sku is 400 VALIDATION_FAILED at each field, in both styles, and nothing is stored', async () => {
      const rest = await http(server.url, 'POST', '/users', { body: { name: 'Long', email: long } });
      expect(rest.status).toBe(400);
      expect(rest.json).toMatchObject({
        code: 'VALIDATION_FAILED',
        errors: [{ pointer: '/email', code: 'VALIDATION_FAILED', detail: 'email is longer than 2000 bytes in UTF-8; the limit for an indexed field is 2000' }],
      });
      const graph = await gql(server.url, 'mutation($e: String!) { createUser(input: { name: "Long", email: $e }) { id } }', { e: long });
      expect(codes(graph)).toEqual(['VALIDATION_FAILED']);
      expect(graph.json.errors[0].extensions.errors).toEqual(rest.json.errors);
      const product = await http(server.url, 'POST', '/products', { body: { name: long, sku: long, price: 1 } });
      expect(product.status).toBe(400);
      expect(product.json.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/name', '/sku']);
      const id = (await http(server.url, 'GET', '/users?fields=id&limit=1')).json.data[0].id as string;
      const patch = await http(server.url, 'PATCH', `/users/${id}`, { body: { username: long } });
      expect(patch.status).toBe(400);
      expect(patch.json.errors[0].pointer).toBe('/username');
      expect((await http(server.url, 'GET', `/products?filter[sku][startsWith]=${long.slice(0, 20)}&fields=id`)).json.data).toEqual([]);
    });

    it('the bound is in UTF-8 bytes: 2,000 ASCII characters are stored, 1,001 two-byte ones are not; long text elsewhere is stored', async () => {
      const atBound = `${incompressible(1988, 'bound')}@example.com`;
      const stored = await http(server.url, 'POST', '/users', { body: { name: 'Bound', email: atBound, bio: long } });
      expect(stored.status).toBe(201);
      expect(stored.json.email).toBe(atBound);
      expect(stored.json.bio).toBe(long);
      const accented = await http(server.url, 'POST', '/users', { body: { name: 'Accented', email: 'é'.repeat(1001) } });
      expect(accented.status).toBe(400);
      expect(accented.json.errors[0].pointer).toBe('/email');
    });

    it('a to-one id longer than any id is 400 VALIDATION_FAILED at the field, in both styles', async () => {
      const user = (await http(server.url, 'GET', '/users?fields=id&limit=1')).json.data[0].id as string;
      const rest = await http(server.url, 'POST', '/posts', { body: { title: 'T', body: 'B', author: long } });
      expect(rest.status).toBe(400);
      expect(rest.json.errors).toEqual([{ pointer: '/author', code: 'VALIDATION_FAILED', detail: 'author is longer than 64 characters, which no id is; the limit is 64' }]);
      const graph = await gql(server.url, 'mutation($a: ID!) { createPost(input: { title: "T", body: "B", author: $a }) { id } }', { a: long });
      expect(codes(graph)).toEqual(['VALIDATION_FAILED']);
      const item = await http(server.url, 'POST', '/order-items', { body: { order: long, product: 'x'.repeat(65), unitPrice: 1 } });
      expect(item.json.errors.map((error: { pointer: string }) => error.pointer)).toEqual(['/order', '/product']);
      expect((await http(server.url, 'POST', '/posts', { body: { title: 'T', body: 'B', author: user } })).status).toBe(201);
    });

    it('a long value that is only looked up finds nothing: 404 for an id, an empty list for a filter, null in GraphQL', async () => {
      // Path segments past 200 characters are refused by the router; an equality read with a long operand is fine in both databases.
      const segment = long.replace(/[^A-Za-z0-9]/g, 'x');
      expect((await http(server.url, 'GET', `/users/${segment.slice(0, 200)}`)).json.code).toBe('NOT_FOUND');
      expect((await http(server.url, 'GET', `/users/${segment}/posts`)).json.code).toBe('URI_TOO_LONG');
      for (const query of [`filter[email]=${encodeURIComponent(long)}`, `filter[id][in]=${encodeURIComponent(long)},1`, `filter[email][gt]=${encodeURIComponent(long)}&sort=email`]) {
        const list = await http(server.url, 'GET', `/users?fields=id&${query}`);
        expect(list.status, query).toBe(200);
      }
      expect((await http(server.url, 'GET', `/posts?filter[author]=${encodeURIComponent(long)}`)).json.data).toEqual([]);
      const graph = await gql(server.url, 'query($id: ID!) { user(id: $id) { id } posts(filter: { author: { eq: $id } }) { id } }', { id: long });
      expect(graph.json).toEqual({ data: { user: null, posts: [] } });
    });
  });

  describe('a list sorted on long text', () => {
    it('keeps its Link header readable: a link longer than the header holds is left out, the body still names the cursor', async () => {
      const author = (await http(server.url, 'GET', '/users?fields=id&limit=1')).json.data[0].id as string;
      const bodies = [incompressible(100_000, 'a'), incompressible(100_000, 'b')];
      for (const body of bodies) expect((await http(server.url, 'POST', '/posts', { body: { title: 'LongSort', body, author } })).status).toBe(201);
      // Node's fetch refused this answer (UND_ERR_HEADERS_OVERFLOW): the cursor in rel="next" was 200 KB of hex.
      const page = await http(server.url, 'GET', '/posts?filter[title]=LongSort&sort=body&fields=id,body&limit=1');
      expect(page.status).toBe(200);
      const link = page.headers.get('link') ?? '';
      expect(link.length).toBeLessThanOrEqual(8192);
      expect(link).toMatch(/^<\/posts\?[^>]+>; rel="first"$/);
      expect(page.json.hasMore).toBe(true);
      const cursor = page.json.nextCursor as string;
      expect(cursor.length).toBeGreaterThan(200_000);
      // Too long for a URL, the cursor still pages in a GraphQL body.
      const next = await gql(server.url, 'query($c: String) { posts(first: 1, after: $c, filter: { title: { eq: "LongSort" } }, orderBy: [{ field: body }]) { body } }', { c: cursor });
      expect(next.json.data.posts).toEqual([{ body: bodies.find((body) => body !== page.json.data[0].body) }]);
      // A short cursor keeps its link.
      const short = await http(server.url, 'GET', '/posts?filter[title]=LongSort&fields=id&limit=1');
      expect(short.headers.get('link')).toContain('rel="next"');
    });
  });
});
