import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { buildOpenApiDocument } from '../../src/rest/openapi/build-openapi-document.js';
import { createResponseValidator, type ResponseValidator } from '../support/openapi-validator.js';
import { startServer, type TestServer } from '../support/start-server.js';

describeEachDialect('REST API', (ctx) => {
  let server: TestServer;
  let validator: ResponseValidator;
  /** Every response of this suite is also checked against the generated OpenAPI document. */
  const call = async (method: string, path: string, options?: Parameters<typeof http>[3]) => {
    const response = await http(server.url, method, path, options);
    const contentType = response.headers.get('content-type');
    // Unknown routes and router-level 414s belong to no operation; everything else must match the document.
    const documented = validator.operationOf(method, path) !== undefined || response.status === 405;
    if (documented && response.status !== 414) expect(validator.validate(method, path, response.status, contentType, response.json, response.headers), `${method} ${path}`).toEqual([]);
    return response;
  };

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
    validator = createResponseValidator(buildOpenApiDocument(server.model));
  });
  afterAll(async () => {
    await server.close();
  });

  describe('the brief’s routes', () => {
    it('GET /users/42 returns that user with its columns, relations as ids omitted', async () => {
      const response = await call('GET', '/users/42');
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      expect(response.json.id).toBe('42');
      expect(typeof response.json.name).toBe('string');
      expect(typeof response.json.email).toBe('string');
      expect(response.json).toHaveProperty('profilePicture');
      expect(response.json).not.toHaveProperty('posts');
      expect(typeof response.json.isVerified).toBe('boolean');
      expect(response.json.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    });

    it('GET /users/42/posts lists exactly the posts whose author is 42', async () => {
      const response = await call('GET', '/users/42/posts?fields=id,author&limit=100');
      expect(response.status).toBe(200);
      for (const post of response.json.data) expect(post.author).toBe('42');
      const filtered = await call('GET', '/posts?filter[author]=42&limit=100&fields=id');
      expect(response.json.data.map((p: { id: string }) => p.id).sort()).toEqual(filtered.json.data.map((p: { id: string }) => p.id).sort());
    });

    it('GET /users/<id>/followers and /following are the two sides of one relation', async () => {
      const following = await call('GET', '/users/1/following?fields=id&limit=100');
      expect(following.status).toBe(200);
      for (const { id } of following.json.data as { id: string }[]) {
        const followers = await call('GET', `/users/${id}/followers?fields=id&limit=100`);
        expect(followers.json.data.map((u: { id: string }) => u.id)).toContain('1');
      }
    });

    it('an unknown parent id is 404, not an empty list', async () => {
      const response = await call('GET', '/users/no-such-user/posts');
      expect(response.status).toBe(404);
      expect(response.json.code).toBe('NOT_FOUND');
    });

    it('HEAD answers like GET without a body', async () => {
      const get = await call('GET', '/users/42');
      const head = await call('HEAD', '/users/42');
      expect(head.status).toBe(200);
      expect(head.text).toBe('');
      expect(head.headers.get('etag')).toBe(get.headers.get('etag'));
    });
  });

  describe('writes', () => {
    it('POST creates with only name and email: 201, Location, the record', async () => {
      const response = await call('POST', '/users', { body: { name: 'Ada Lovelace', email: 'ada@example.org' } });
      expect(response.status).toBe(201);
      expect(response.headers.get('location')).toBe(`/users/${response.json.id}`);
      expect(response.json).toMatchObject({ name: 'Ada Lovelace', email: 'ada@example.org', role: 'MEMBER', isVerified: false, timezone: 'UTC' });
      expect(response.headers.get('etag')).toMatch(/^"/);
      const read = await call('GET', `/users/${response.json.id}`);
      expect(read.json).toEqual(response.json);
      expect(read.headers.get('etag')).toBe(response.headers.get('etag'));
    });

    it('PATCH changes only what it names; PUT replaces the whole record', async () => {
      const created = await call('POST', '/users', { body: { name: 'Grace', email: 'grace@example.org', bio: 'COBOL', location: 'Arlington' } });
      const id = created.json.id as string;
      const patched = await call('PATCH', `/users/${id}`, { body: { bio: 'Compilers' } });
      expect(patched.status).toBe(200);
      expect(patched.json).toMatchObject({ bio: 'Compilers', location: 'Arlington', name: 'Grace' });
      const replaced = await call('PUT', `/users/${id}`, { body: { name: 'Grace Hopper', email: 'grace@example.org' } });
      expect(replaced.status).toBe(200);
      expect(replaced.json).toMatchObject({ name: 'Grace Hopper', bio: null, location: null, timezone: 'UTC' });
      expect(Date.parse(replaced.json.updatedAt)).toBeGreaterThanOrEqual(Date.parse(created.json.updatedAt));
    });

    it('merge-patch+json is accepted for PATCH', async () => {
      const created = await call('POST', '/users', { body: { name: 'Merge', email: 'merge@example.org' } });
      const patched = await call('PATCH', `/users/${created.json.id}`, {
        raw: JSON.stringify({ bio: 'merged' }),
        headers: { 'content-type': 'application/merge-patch+json' },
      });
      expect(patched.status).toBe(200);
      expect(patched.json.bio).toBe('merged');
    });

    it('DELETE answers 204, then the record is gone', async () => {
      const created = await call('POST', '/users', { body: { name: 'Temp', email: 'temp@example.org' } });
      const deleted = await call('DELETE', `/users/${created.json.id}`);
      expect(deleted.status).toBe(204);
      expect((await call('GET', `/users/${created.json.id}`)).status).toBe(404);
      expect((await call('DELETE', `/users/${created.json.id}`)).status).toBe(404);
    });

    it('a to-one relation is written by id under its field name', async () => {
      const post = await call('POST', '/posts', { body: { title: 'Hello', body: 'World', author: '7' } });
      expect(post.status).toBe(201);
      expect(post.json.author).toBe('7');
      const embedded = await call('GET', `/posts/${post.json.id}?include=author&author.fields=id,name`);
      expect(embedded.json.author).toEqual({ id: '7', name: expect.any(String) });
      const missing = await call('POST', '/posts', { body: { title: 'x', body: 'y', author: 'nobody' } });
      expect(missing.status).toBe(409);
      expect(missing.json.code).toBe('RELATION_TARGET_NOT_FOUND');
    });

    it('follow is idempotent PUT, unfollow is DELETE', async () => {
      const a = (await call('POST', '/users', { body: { name: 'A', email: 'a-follow@example.org' } })).json.id as string;
      const b = (await call('POST', '/users', { body: { name: 'B', email: 'b-follow@example.org' } })).json.id as string;
      expect((await call('PUT', `/users/${a}/following/${b}`)).status).toBe(204);
      expect((await call('PUT', `/users/${a}/following/${b}`)).status).toBe(204);
      const followers = await call('GET', `/users/${b}/followers?fields=id`);
      expect(followers.json.data).toEqual([{ id: a }]);
      expect((await call('DELETE', `/users/${a}/following/${b}`)).status).toBe(204);
      expect((await call('GET', `/users/${b}/followers?fields=id`)).json.data).toEqual([]);
      expect((await call('PUT', `/users/${a}/following/nobody`)).status).toBe(404);
    });
  });

  describe('one round trip', () => {
    it('fields= returns exactly the fields asked for', async () => {
      const response = await call('GET', '/users/42?fields=name,email');
      expect(Object.keys(response.json)).toEqual(['name', 'email']);
    });

    it('include= embeds relations with their own fields, limit and order, in one SQL statement', async () => {
      const before = server.db.statementCount;
      const response = await call('GET', '/users/1?fields=name&include=posts,followers&posts.fields=title,createdAt&posts.limit=3&posts.sort=-createdAt&followers.fields=name&followers.limit=2');
      expect(server.db.statementCount - before).toBe(1);
      expect(response.status).toBe(200);
      expect(Object.keys(response.json)).toEqual(['name', 'posts', 'followers']);
      expect(response.json.posts.length).toBeLessThanOrEqual(3);
      const times = response.json.posts.map((p: { createdAt: string }) => p.createdAt);
      expect([...times].sort().reverse()).toEqual(times);
      expect(response.json.followers.length).toBeLessThanOrEqual(2);
      for (const follower of response.json.followers) expect(Object.keys(follower)).toEqual(['name']);
    });

    it('a list with nested embeds is one SQL statement too', async () => {
      const before = server.db.statementCount;
      const response = await call('GET', '/users?limit=12&fields=name&include=posts,followers,followers.posts&posts.limit=5&followers.limit=5&followers.posts.limit=2');
      expect(response.status).toBe(200);
      expect(server.db.statementCount - before).toBe(1);
      expect(response.json.data).toHaveLength(12);
    });

    it("a page of a record's relation is one SQL statement, whether it has rows, none, or no parent", async () => {
      const statementsFor = async (path: string): Promise<{ status: number; statements: number }> => {
        const before = server.db.statementCount;
        const response = await call('GET', path);
        return { status: response.status, statements: server.db.statementCount - before };
      };
      const empty = await call('POST', '/users', { body: { name: 'No posts', email: 'no-posts@example.org' } });
      expect(await statementsFor('/users/1/posts?sort=-createdAt&limit=3&fields=title')).toEqual({ status: 200, statements: 1 });
      expect(await statementsFor(`/users/${empty.json.id}/posts`)).toEqual({ status: 200, statements: 1 });
      expect(await statementsFor('/users/no-such-user/posts')).toEqual({ status: 404, statements: 1 });
    });

    it('an unknown field is a 400 naming it with a suggestion', async () => {
      const response = await call('GET', '/users/42?fields=nmae');
      expect(response.status).toBe(400);
      expect(response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(response.json).toMatchObject({ code: 'QUERY_UNKNOWN_FIELD', status: 400, suggestion: 'name' });
      expect(response.json.detail).toContain('nmae');
    });
  });

  describe('lists', () => {
    it('pages with cursors and Link headers visit every row once, in order', async () => {
      const seen: string[] = [];
      let path: string | undefined = '/users?fields=id,name&sort=name&limit=7';
      let pages = 0;
      while (path !== undefined) {
        const response = await call('GET', path);
        expect(response.status).toBe(200);
        seen.push(...response.json.data.map((u: { id: string }) => u.id));
        const next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '');
        expect(next === null).toBe(!response.json.hasMore);
        path = next?.[1];
        pages++;
      }
      const all = await call('GET', '/users?fields=id,name&sort=name&limit=100&count=true');
      expect(seen).toEqual(all.json.data.map((u: { id: string }) => u.id));
      expect(all.json.totalCount).toBe(seen.length);
      expect(pages).toBe(Math.ceil(seen.length / 7));
    });

    it('prev links walk back to the same pages', async () => {
      const first = await call('GET', '/users?fields=id&limit=5');
      const second = await call('GET', `/users?fields=id&limit=5&after=${first.json.nextCursor as string}`);
      const back = await call('GET', `/users?fields=id&limit=5&before=${second.json.prevCursor as string}`);
      expect(back.json.data).toEqual(first.json.data);
    });

    /** The pages from `path` on, following the Link header's `rel` (the body naming the same cursor), and the last page's URL. */
    async function follow(path: string, rel: 'next' | 'prev'): Promise<{ pages: string[][]; last: string }> {
      const pages: string[][] = [];
      let last = path;
      for (let at: string | undefined = path; at !== undefined && pages.length < 100; ) {
        const response = await call('GET', at);
        expect(response.status).toBe(200);
        pages.push(response.json.data.map((row: { id: string }) => row.id));
        last = at;
        const link = new RegExp(`<([^>]+)>; rel="${rel}"`).exec(response.headers.get('link') ?? '')?.[1];
        const cursor: unknown = rel === 'next' ? response.json.nextCursor : response.json.prevCursor;
        expect(link === undefined, at).toBe(cursor === null);
        if (link !== undefined) expect(new URL(link, server.url).searchParams.get(rel === 'next' ? 'after' : 'before')).toBe(cursor);
        at = link;
      }
      return { pages, last };
    }

    it('walking a list forward by rel="next", then back by rel="prev", visits the same pages (before= gave the first rows)', async () => {
      // Ascending and descending, NULLs in a sort key (drafts have no publishedAt), a sub-collection, and the default page size.
      for (const query of ['/users?fields=id&limit=7', '/posts?fields=id&sort=-publishedAt,title&limit=9', '/posts?fields=id&sort=status,publishedAt&limit=8', '/users/1/followers?fields=id&sort=-name&limit=2', '/posts?fields=id']) {
        const forward = await follow(query, 'next');
        expect(forward.pages.length, query).toBeGreaterThan(2);
        const backward = await follow(forward.last, 'prev');
        expect(backward.pages.reverse(), query).toEqual(forward.pages);
      }
    });

    it('filters with each operator and and/or', async () => {
      type Row = { id: string; status: string; title: string; publishedAt: string | null };
      const all: Row[] = [];
      for (let path: string | null = '/posts?limit=100&fields=id,status,title,publishedAt'; path !== null; ) {
        const page = await call('GET', path);
        all.push(...(page.json.data as Row[]));
        path = page.json.nextCursor === null ? null : `/posts?limit=100&fields=id,status,title,publishedAt&after=${page.json.nextCursor as string}`;
      }
      const total = async (query: string): Promise<number> => (await call('GET', `/posts?limit=0&count=true&${query}`)).json.totalCount as number;
      expect(await total('filter[status]=PUBLISHED')).toBe(all.filter((p) => p.status === 'PUBLISHED').length);
      expect(await total('filter[status][ne]=PUBLISHED')).toBe(all.filter((p) => p.status !== 'PUBLISHED').length);
      expect(await total('filter[status][in]=DRAFT,ARCHIVED')).toBe(all.filter((p) => p.status !== 'PUBLISHED').length);
      expect(await total('filter[publishedAt][isNull]=true')).toBe(all.filter((p) => p.publishedAt === null).length);
      expect(await total('filter[or][0][status]=DRAFT&filter[or][1][status]=ARCHIVED')).toBe(all.filter((p) => p.status !== 'PUBLISHED').length);
      expect(await total('filter[not][status]=DRAFT')).toBe(all.filter((p) => p.status !== 'DRAFT').length);
      const word = all[0]?.title.split(' ')[1] ?? 'graph';
      expect(await total(`filter[title][contains]=${word}`)).toBe(all.filter((p) => p.title.includes(word)).length);
      const users = (await call('GET', '/users?limit=100&fields=id,name')).json.data as { name: string }[];
      const prefix = users[0]?.name.slice(0, 3) ?? 'A';
      const starts = await call('GET', `/users?limit=100&fields=name&filter[name][startsWith]=${encodeURIComponent(prefix)}`);
      expect(starts.json.data.length).toBe(users.filter((u) => u.name.startsWith(prefix)).length);
      const gte = await call('GET', '/products?limit=100&fields=price&filter[price][gte]=100');
      for (const product of gte.json.data) expect(product.price).toBeGreaterThanOrEqual(100);
    });

    it('filter values that are SQL wildcards are literal', async () => {
      const response = await call('GET', '/users?fields=id&filter[name][contains]=%25');
      expect(response.status).toBe(200);
      expect(response.json.data).toEqual([]);
    });

    it('limit above the maximum is refused', async () => {
      const response = await call('GET', '/users?limit=1000');
      expect(response.status).toBe(400);
      expect(response.json.code).toBe('QUERY_PAGE_TOO_LARGE');
    });

    it('multi-key sort orders by each key in turn', async () => {
      const response = await call('GET', '/posts?fields=status,title&sort=status,-title&limit=100');
      const rows = response.json.data as { status: string; title: string }[];
      const sorted = [...rows].sort((x, y) => (x.status < y.status ? -1 : x.status > y.status ? 1 : x.title < y.title ? 1 : x.title > y.title ? -1 : 0));
      expect(rows).toEqual(sorted);
    });

    it('ties are broken by id in the direction of the last key, and cursors page through them', async () => {
      const ids = async (query: string): Promise<string[]> => (await call('GET', `/users?fields=id&limit=100&${query}`)).json.data.map((u: { id: string }) => u.id);
      const descending = await ids('sort=-role');
      expect(descending.length).toBeGreaterThan(3);
      expect(descending).toEqual(await ids('sort=-role,-id'));
      expect(descending).not.toEqual(await ids('sort=-role,id'));
      expect(await ids('sort=role')).toEqual(await ids('sort=role,id'));
      const paged: string[] = [];
      for (let path: string | null = '/users?fields=id&sort=-role&limit=4'; path !== null; ) {
        const page = await call('GET', path);
        paged.push(...page.json.data.map((u: { id: string }) => u.id));
        path = page.json.nextCursor === null ? null : `/users?fields=id&sort=-role&limit=4&after=${page.json.nextCursor as string}`;
      }
      expect(paged).toEqual(descending);
    });

    it('a cursor made when the tie-break always ran ascending goes on in the order it was made for', async () => {
      // `sort=-role,id` is the order `sort=-role` meant before; its cursors are the ones clients hold from then.
      const earlier = await call('GET', '/users?fields=id&sort=-role,id&limit=4');
      const cursor = earlier.json.nextCursor as string;
      const continued = await call('GET', `/users?fields=id&sort=-role&limit=4&after=${cursor}`);
      expect(continued.status).toBe(200);
      expect(continued.json.data).toEqual((await call('GET', `/users?fields=id&sort=-role,id&limit=4&after=${cursor}`)).json.data);
      // And the cursors it hands out keep that order to the end of the list.
      const next = await call('GET', `/users?fields=id&sort=-role&limit=4&after=${continued.json.nextCursor as string}`);
      expect(next.json.data).toEqual((await call('GET', `/users?fields=id&sort=-role,id&limit=4&after=${continued.json.nextCursor as string}`)).json.data);
      // A cursor of an unrelated order is still refused.
      const other = (await call('GET', '/users?fields=id&sort=name&limit=4')).json.nextCursor as string;
      expect((await call('GET', `/users?fields=id&sort=-role&limit=4&after=${other}`)).json.code).toBe('QUERY_INVALID_CURSOR');
    });
  });

  describe('HTTP caching', () => {
    it('200 → 304 → write → 200 with a new ETag → 412 on the stale ETag', async () => {
      const created = await call('POST', '/users', { body: { name: 'Cache', email: 'cache@example.org' } });
      const path = `/users/${created.json.id}`;
      const first = await call('GET', path);
      const etag = first.headers.get('etag') as string;
      expect(first.headers.get('cache-control')).toContain('no-cache');
      const revalidated = await call('GET', path, { headers: { 'if-none-match': etag } });
      expect(revalidated.status).toBe(304);
      expect(revalidated.headers.get('etag')).toBe(etag);
      expect(revalidated.headers.get('cache-control')).toBe(first.headers.get('cache-control'));
      const patched = await call('PATCH', path, { body: { bio: 'changed' }, headers: { 'if-match': etag } });
      expect(patched.status).toBe(200);
      const after = await call('GET', path, { headers: { 'if-none-match': etag } });
      expect(after.status).toBe(200);
      expect(after.json.bio).toBe('changed');
      expect(after.headers.get('etag')).not.toBe(etag);
      const stale = await call('PATCH', path, { body: { bio: 'lost update' }, headers: { 'if-match': etag } });
      expect(stale.status).toBe(412);
      expect(stale.json.code).toBe('PRECONDITION_FAILED');
      expect((await call('GET', path)).json.bio).toBe('changed');
    });

    it('Last-Modified and If-Modified-Since / If-Unmodified-Since follow the data', async () => {
      const created = await call('POST', '/users', { body: { name: 'Dates', email: 'dates@example.org' } });
      const path = `/users/${created.json.id}`;
      // Last-Modified is only sent once the second of the last change is over.
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const first = await call('GET', path);
      const lastModified = first.headers.get('last-modified') as string;
      expect(Date.parse(lastModified)).toBeGreaterThan(0);
      const unchanged = await call('GET', path, { headers: { 'if-modified-since': lastModified } });
      expect(unchanged.status).toBe(304);
      const stale = await call('PATCH', path, { body: { bio: 'x' }, headers: { 'if-unmodified-since': new Date(Date.parse(created.json.updatedAt) - 60_000).toUTCString() } });
      expect(stale.status).toBe(412);
      const fresh = await call('PATCH', path, { body: { bio: 'y' }, headers: { 'if-unmodified-since': lastModified } });
      expect(fresh.status).toBe(200);
      const changed = await call('GET', path, { headers: { 'if-modified-since': lastModified } });
      expect(changed.status).toBe(200);
      expect(changed.json.bio).toBe('y');
    });

    it('a write to an embedded relation changes the ETag of the embedding response', async () => {
      const path = '/users/3?fields=name&include=posts&posts.fields=title&posts.limit=100';
      const first = await call('GET', path);
      const etag = first.headers.get('etag') as string;
      expect((await call('GET', path, { headers: { 'if-none-match': etag } })).status).toBe(304);
      await call('POST', '/posts', { body: { title: 'Fresh title', body: 'b', author: '3' } });
      const after = await call('GET', path, { headers: { 'if-none-match': etag } });
      expect(after.status).toBe(200);
      expect(after.json.posts.map((p: { title: string }) => p.title)).toContain('Fresh title');
    });

    it('a revalidation of unchanged data runs no query', async () => {
      const path = '/users/5?include=posts';
      const etag = (await call('GET', path)).headers.get('etag') as string;
      const before = server.db.statementCount;
      const response = await call('GET', path, { headers: { 'if-none-match': etag } });
      expect(response.status).toBe(304);
      expect(server.db.statementCount - before).toBeLessThanOrEqual(1);
    });

    it('@cache hints become Cache-Control', async () => {
      const product = await call('GET', '/products/1?fields=name,price');
      expect(product.headers.get('cache-control')).toBe('public, max-age=300, must-revalidate');
      const withAvailable = await call('GET', '/products/1?fields=name,available');
      expect(withAvailable.headers.get('cache-control')).toBe('public, max-age=10, must-revalidate');
      const order = await call('GET', '/orders/1');
      expect(order.headers.get('cache-control')).toMatch(/^private/);
    });
  });

  describe('errors', () => {
    it('unknown routes are 404 problem+json', async () => {
      const response = await call('GET', '/nothing-here');
      expect(response.status).toBe(404);
      expect(response.json).toMatchObject({ code: 'ROUTE_NOT_FOUND', status: 404 });
    });

    it('a wrong method is 405 with Allow', async () => {
      const response = await call('PATCH', '/users');
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
      expect(response.json.code).toBe('METHOD_NOT_ALLOWED');
    });

    it('a non-JSON body is 415', async () => {
      const response = await call('POST', '/users', { raw: 'name=x', headers: { 'content-type': 'text/plain' } });
      expect(response.status).toBe(415);
      expect(response.json.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });

    it('malformed JSON is 400 MALFORMED_JSON', async () => {
      const response = await call('POST', '/users', { raw: '{"name": ', headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(400);
      expect(response.json.code).toBe('MALFORMED_JSON');
    });

    it('an oversized body is 413', async () => {
      const response = await call('POST', '/users', { body: { name: 'x'.repeat(2 * 1024 * 1024), email: 'big@example.org' } });
      expect(response.status).toBe(413);
      expect(response.json.code).toBe('BODY_TOO_LARGE');
    });

    it('missing, unknown, wrong-typed and server-managed fields are all reported with pointers', async () => {
      const response = await call('POST', '/users', { body: { id: 'mine', nmae: 'x', isVerified: 'yes', createdAt: '2020-01-01T00:00:00Z', suspendedReason: 'x' } });
      expect(response.status).toBe(400);
      expect(response.json.code).toBe('VALIDATION_FAILED');
      const byPointer = Object.fromEntries((response.json.errors as { pointer: string; code: string }[]).map((e) => [e.pointer, e.code]));
      expect(byPointer).toMatchObject({
        '/id': 'INPUT_READONLY_FIELD',
        '/nmae': 'INPUT_UNKNOWN_FIELD',
        '/isVerified': 'INPUT_WRONG_TYPE',
        '/createdAt': 'INPUT_READONLY_FIELD',
        '/suspendedReason': 'INPUT_READONLY_FIELD',
        '/name': 'INPUT_REQUIRED_FIELD',
        '/email': 'INPUT_REQUIRED_FIELD',
      });
    });

    it('a unique violation is 409 and writes nothing', async () => {
      const existing = (await call('GET', '/users/1?fields=email')).json.email as string;
      const count = (await call('GET', '/users?count=true&limit=0')).json.totalCount as number;
      const response = await call('POST', '/users', { body: { name: 'Dup', email: existing } });
      expect(response.status).toBe(409);
      expect(response.json.code).toBe('UNIQUE_VIOLATION');
      expect((await call('GET', '/users?count=true&limit=0')).json.totalCount).toBe(count);
    });

    it('concurrent creates, one of them a unique violation: the others are all created, the violation writes nothing', async () => {
      // On SQLite, writes that arrive together commit together; a failed one must still roll back alone.
      const existing = (await call('GET', '/users/1?fields=email')).json.email as string;
      const count = (await call('GET', '/users?count=true&limit=0')).json.totalCount as number;
      const emails = Array.from({ length: 8 }, (_, i) => (i === 3 ? existing : `together-${i}@example.org`));
      const responses = await Promise.all(emails.map((email, i) => call('POST', '/users', { body: { name: `Together ${i}`, email } })));
      expect(responses.map((response) => response.status)).toEqual([201, 201, 201, 409, 201, 201, 201, 201]);
      for (const response of responses.filter((r) => r.status === 201)) {
        expect((await call('GET', `/users/${response.json.id as string}?fields=email`)).json.email).toBe(response.json.email);
      }
      expect((await call('GET', '/users?count=true&limit=0')).json.totalCount).toBe(count + 7);
    });

    it('an id too long to route is 414 problem+json', async () => {
      const response = await call('GET', `/users/${'x'.repeat(300)}`);
      expect(response.status).toBe(414);
      expect(response.json.code).toBe('URI_TOO_LONG');
    });

    it('a size parameter for a field that is not a file is refused', async () => {
      expect((await call('GET', '/users/1?name.size=3')).json.code).toBe('QUERY_INVALID_ARGUMENT');
      expect((await call('GET', '/users/1?profilePicture.size=64&fields=profilePicture')).status).toBe(200);
      expect((await call('GET', '/users/1?include=followers&followers.profilePicture.size=32')).status).toBe(200);
    });

    it('a bad cursor and a bad filter are 400s, never 500s', async () => {
      expect((await call('GET', '/users?after=garbage')).json.code).toBe('QUERY_INVALID_CURSOR');
      expect((await call('GET', '/users?filter[age][gt]=1')).json.code).toBe('QUERY_UNKNOWN_FIELD');
      expect((await call('GET', '/products?filter[price][gt]=cheap')).json.code).toBe('QUERY_INVALID_FILTER');
      expect((await call('GET', '/users?sort=-nmae')).json.code).toBe('QUERY_INVALID_ORDER');
      expect((await call('GET', '/users?include=postz')).json.code).toBe('QUERY_UNKNOWN_RELATION');
      expect((await call('GET', '/users?limitt=3')).json.code).toBe('QUERY_INVALID_ARGUMENT');
    });
  });
});
