import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql, gqlGet } from './graphql-client.js';

const sha256 = (text: string): string => createHash('sha256').update(text).digest('hex');

const TRUSTED = `query Product($id: ID!) { product(id: $id) { name price } }`;
const TRUSTED_MUTATION = `mutation Touch($id: ID!) { updateProduct(id: $id, input: { stock: 1 }) { stock } }`;

describeEachDialect('GraphQL HTTP caching and persisted operations', (ctx) => {
  let server: TestServer;
  let userId: string;
  let productId: string;
  const folder = mkdtempSync(join(tmpdir(), 'diglot-gql-'));

  beforeAll(async () => {
    const file = join(folder, 'documents.json');
    writeFileSync(file, JSON.stringify({ [sha256(TRUSTED)]: TRUSTED, [`sha256:${sha256(TRUSTED_MUTATION)}`]: TRUSTED_MUTATION }));
    server = await startServer(() => ctx.open(), { server: { graphql: { persistedDocuments: { file, onlyPersisted: false } } } });
    userId = ((await server.db.all<{ id: string }>(`SELECT id FROM users ORDER BY id LIMIT 1`))[0] as { id: string }).id;
    productId = ((await server.db.all<{ id: string }>(`SELECT id FROM products ORDER BY id LIMIT 1`))[0] as { id: string }).id;
  });
  afterAll(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('GET: 200 with a strong ETag → 304 → a mutation → 200 with a new ETag', async () => {
    const params = { query: `query($id: ID!) { user(id: $id) { name bio } }`, variables: { id: userId } };
    const first = await gqlGet(server.url, params);
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[^"]+"$/);
    expect(first.headers.get('cache-control')).toBe('public, no-cache');
    // Accept chooses the media type, Accept-Encoding the coding (src/server/compression.ts).
    expect(first.headers.get('vary')).toBe('Accept, Accept-Encoding');

    const before = server.db.statementCount;
    const revalidated = await gqlGet(server.url, params, { 'if-none-match': etag ?? '' });
    expect(revalidated.status).toBe(304);
    expect(revalidated.text).toBe('');
    expect(revalidated.headers.get('etag')).toBe(etag);
    expect(revalidated.headers.get('cache-control')).toBe('public, no-cache');
    // The plan did not run (at most the change clocks were read).
    expect(server.db.statementCount - before).toBeLessThanOrEqual(1);

    const changed = await gql(server.url, `mutation { updateUser(id: "${userId}", input: { bio: "changed ${Date.now()}" }) { bio } }`);
    expect(changed.json.errors).toBeUndefined();
    const after = await gqlGet(server.url, params, { 'if-none-match': etag ?? '' });
    expect(after.status).toBe(200);
    expect(after.headers.get('etag')).not.toBe(etag);
    expect(after.json.data.user.bio).toBe(changed.json.data.updateUser.bio);
  });

  it('derives Cache-Control from @cache hints, and never caches POST', async () => {
    const get = await gqlGet(server.url, { query: `{ products(first: 2) { name price } }` });
    expect(get.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    const stock = await gqlGet(server.url, { query: `{ products(first: 2) { name available } }` });
    expect(stock.headers.get('cache-control')).toBe('public, max-age=10, must-revalidate');
    const orders = await gqlGet(server.url, { query: `{ orders(first: 2) { total } }` });
    expect(orders.headers.get('cache-control')).toMatch(/^private/);
    const post = await gql(server.url, `{ products(first: 2) { name } }`);
    expect(post.headers.get('cache-control')).toBe('no-store');
    expect(post.headers.get('etag')).toBeNull();
  });

  it('does not cache responses with errors', async () => {
    const response = await gqlGet(server.url, { query: `{ users(after: "bad") { id } }` });
    expect(response.status).toBe(200);
    expect(response.json.errors[0].extensions.code).toBe('QUERY_INVALID_CURSOR');
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('etag')).toBeNull();
  });

  it('refuses mutations over GET with 405 and Allow: POST, however often it is asked', async () => {
    for (let i = 0; i < 2; i++) {
      const response = await gqlGet(server.url, { query: `mutation { deleteUser(id: "${userId}") { id } }` });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
      expect(response.json.errors[0].extensions.code).toBe('METHOD_NOT_ALLOWED');
    }
    const still = await gql(server.url, `{ user(id: "${userId}") { id } }`);
    expect(still.json.data.user).toEqual({ id: userId });
  });

  it('automatic persisted queries: not found → register (verified) → GET by hash, cached', async () => {
    const query = `{ users(first: 3, orderBy: [{ field: name }]) { name } }`;
    const extensions = { persistedQuery: { version: 1, sha256Hash: sha256(query) } };
    const unknown = await gqlGet(server.url, { extensions });
    expect(unknown.status).toBe(200);
    expect(unknown.json).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });

    const wrong = await http(server.url, 'POST', '/graphql', {
      body: { query: '{ __typename }', extensions },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.json.errors[0].extensions.code).toBe('BAD_REQUEST');

    const registered = await http(server.url, 'POST', '/graphql', { body: { query, extensions } });
    expect(registered.json.data.users).toHaveLength(3);

    const byHash = await gqlGet(server.url, { extensions });
    expect(byHash.status).toBe(200);
    expect(byHash.json).toEqual(registered.json);
    const etag = byHash.headers.get('etag') ?? '';
    expect(etag).not.toBe('');
    const again = await gqlGet(server.url, { extensions }, { 'if-none-match': etag });
    expect(again.status).toBe(304);
  });

  it('a registering GET registers its persisted query every time, so one dropped from the store comes back', async () => {
    // A store of one (in memory and in the database): registering a third document drops the first.
    const small = await startServer(() => ctx.open(), { seed: false, server: { graphql: { apqCacheSize: 1, apqStoredLimit: 1 } } });
    try {
      const documents = ['{ users(first: 1) { name } }', '{ users(first: 2) { name } }', '{ users(first: 3) { name } }'];
      const extensions = (query: string): { persistedQuery: { version: number; sha256Hash: string } } => ({ persistedQuery: { version: 1, sha256Hash: sha256(query) } });
      const [first = '', ...others] = documents;
      const register = async (query: string): Promise<number> => (await gqlGet(small.url, { query, extensions: extensions(query) })).status;
      // Each look with a URL of its own (an extra variable, which the operation ignores): a URL seen before skips the store.
      let looks = 0;
      const byHash = async (query: string): Promise<string | undefined> => {
        const response = await gqlGet(small.url, { extensions: extensions(query), variables: { look: ++looks } });
        return response.json.errors?.[0]?.extensions?.code ?? (response.json.data === undefined ? 'no data' : undefined);
      };
      expect(await register(first)).toBe(200);
      expect(await byHash(first)).toBeUndefined();
      for (const query of others) expect(await register(query)).toBe(200);
      expect(await byHash(first)).toBe('PERSISTED_QUERY_NOT_FOUND');
      // The very same registering URL as before.
      expect(await register(first)).toBe(200);
      expect(await byHash(first)).toBeUndefined();
    } finally {
      await small.close();
    }
  });

  it('trusted documents: GET /graphql?id=<sha256>, with the same caching', async () => {
    const response = await gqlGet(server.url, { id: sha256(TRUSTED), variables: { id: productId } });
    expect(response.status).toBe(200);
    expect(Object.keys(response.json.data.product)).toEqual(['name', 'price']);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
    const prefixed = await gqlGet(server.url, { id: `sha256:${sha256(TRUSTED)}`, variables: { id: productId } }, { 'if-none-match': response.headers.get('etag') ?? '' });
    expect(prefixed.status).toBe(304);
    const missing = await gqlGet(server.url, { id: sha256('nothing') }, { accept: 'application/graphql-response+json' });
    expect(missing.status).toBe(400);
    expect(missing.json.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const mutation = await gqlGet(server.url, { id: sha256(TRUSTED_MUTATION), variables: { id: productId } });
    expect(mutation.status).toBe(405);
    const posted = await http(server.url, 'POST', '/graphql', { body: { id: sha256(TRUSTED_MUTATION), variables: { id: productId } } });
    expect(posted.json.data.updateProduct).toEqual({ stock: 1 });
  });

  it('serves GraphiQL to browsers, self-contained', async () => {
    const page = await http(server.url, 'GET', '/graphql', { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.text).toContain('/graphql');
    // The headers editor opens on an Authorization header for a token to be pasted into.
    expect(page.text).toContain('"defaultHeaders":"{\\n  \\"Authorization\\": \\"Bearer \\"\\n}"');
    expect(page.text).not.toMatch(/<script[^>]+src="https?:/);
    expect(page.text).not.toMatch(/<link[^>]+href="https?:/);
  });

  it('negotiates media types: 406 for none of ours, 415 for a body that is not JSON', async () => {
    const notAcceptable = await http(server.url, 'POST', '/graphql', { body: { query: '{ __typename }' }, headers: { accept: 'application/xml' } });
    expect(notAcceptable.status).toBe(406);
    expect(notAcceptable.json.errors[0].extensions.code).toBe('NOT_ACCEPTABLE');
    const form = await http(server.url, 'POST', '/graphql', { raw: 'query={__typename}', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(form.status).toBe(415);
    expect(form.json.errors[0].extensions.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    const large = await http(server.url, 'POST', '/graphql', { body: { query: `{ __typename }`, variables: { padding: 'x'.repeat(1_100_000) } } });
    expect(large.status).toBe(413);
    expect(large.json.errors[0].extensions.code).toBe('BODY_TOO_LARGE');
    const head = await http(server.url, 'HEAD', '/graphql?query=%7B__typename%7D');
    expect(head.status).toBe(200);
    expect(head.headers.get('etag')).toMatch(/^"/);
    const put = await http(server.url, 'PUT', '/graphql', { body: { query: '{ __typename }' } });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
  });
});

describeEachDialect('GraphQL trusted documents only', (ctx) => {
  let server: TestServer;
  const folder = mkdtempSync(join(tmpdir(), 'diglot-gql-'));

  beforeAll(async () => {
    const file = join(folder, 'manifest.json');
    writeFileSync(
      file,
      JSON.stringify({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: sha256(TRUSTED), name: 'Product', type: 'query', body: TRUSTED }] }),
    );
    server = await startServer(() => ctx.open(), { seed: false, server: { graphql: { persistedDocuments: { file, onlyPersisted: true } } } });
  });
  afterAll(async () => {
    await server.close();
    rmSync(folder, { recursive: true, force: true });
  });

  it('runs only the documents from the file', async () => {
    const arbitrary = await gql(server.url, `{ users { id } }`);
    expect(arbitrary.json.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    expect(arbitrary.json.data).toBeUndefined();
    const apq = await http(server.url, 'POST', '/graphql', {
      body: { query: `{ users { id } }`, extensions: { persistedQuery: { version: 1, sha256Hash: sha256(`{ users { id } }`) } } },
    });
    expect(apq.json.errors[0].extensions.code).toBe('PERSISTED_QUERY_NOT_FOUND');
    const trusted = await gqlGet(server.url, { id: sha256(TRUSTED), variables: { id: 'none' } });
    expect(trusted.json).toEqual({ data: { product: null } });
    const sameText = await gql(server.url, TRUSTED, { id: 'none' });
    expect(sameText.json).toEqual({ data: { product: null } });
  });
});
