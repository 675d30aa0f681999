/**
 * Who may fetch `/files/<key>`. By default anyone holding the URL (public,
 * cached a year); with `fileAccess: 'readers'` only callers who may read a
 * record holding the file, rules applied: a stranger gets the very 404 of a
 * missing file, on the original and its variants, GET and HEAD, whatever
 * validator they send, and the answers are private.
 */
import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { png } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { keyOf, putFile } from '../support/uploads.js';

const SECRET = 'file-access-test-secret-0123456789abcdef';
const ADMIN_KEY = 'file-access-admin-key-0123456789abc';

describeEachDialect('File access', (ctx) => {
  let readersOnly: TestServer;
  let open: TestServer;
  let author: string;
  let authorToken: string;
  let strangerToken: string;
  let draft: string;

  const admin = { authorization: `Bearer ${ADMIN_KEY}` };

  beforeAll(async () => {
    const server = { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } };
    const seed = { counts: { User: 6, Post: 12, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 };
    readersOnly = await startServer(() => ctx.open(), { rules: true, seed, server: { ...server, fileAccess: 'readers' } });
    // The same database, already seeded: only the option differs.
    open = await startServer(() => ctx.open(), { rules: true, seed: false, server });
    const posts = (await http(readersOnly.url, 'GET', '/posts?limit=100&fields=id,author,status', { headers: admin })).json.data as { id: string; author: string; status: string }[];
    const found = posts.find((post) => post.status === 'DRAFT');
    if (found === undefined) throw new Error('the seed made no draft');
    draft = found.id;
    author = found.author;
    const stranger = posts.find((post) => post.author !== author)?.author ?? 'nobody';
    const sign = (sub: string): Promise<string> =>
      new SignJWT({ sub, role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    authorToken = await sign(author);
    strangerToken = await sign(stranger);
  });
  afterAll(async () => {
    await readersOnly.close();
    await open.close();
  });

  /** A picture only a draft of `author`'s holds, on `server`. */
  async function draftCover(server: TestServer, seed: number): Promise<string> {
    const response = await putFile(server.url, `/posts/${draft}/cover`, await png(seed), 'cover.png', 'image/png', admin);
    expect(response.status).toBe(200);
    return keyOf(response.json.cover as string);
  }

  const asIf = (token: string | undefined, extra: Record<string, string> = {}): Record<string, string> => ({ ...extra, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) });
  /** What tells one answer from another, but the key the URL names. */
  const shape = (response: HttpResponse, key: string): unknown => ({
    status: response.status,
    type: response.headers.get('content-type'),
    body: response.text.replaceAll(key, '<key>'),
    etag: response.headers.get('etag'),
  });

  it('with readers: a stranger gets the 404 of a missing file, original and variant, GET and HEAD, with or without a validator', async () => {
    const key = await draftCover(readersOnly, 701);
    const missing = `${'0'.repeat(64)}.png`;
    for (const token of [undefined, strangerToken]) {
      for (const suffix of ['', '/320']) {
        for (const method of ['GET', 'HEAD']) {
          for (const extra of [{}, { 'if-none-match': `"${key.slice(0, 64)}"` }] as Record<string, string>[]) {
            const hidden = await http(readersOnly.url, method, `/files/${key}${suffix}`, { headers: asIf(token, extra) });
            const absent = await http(readersOnly.url, method, `/files/${missing}${suffix}`, { headers: asIf(token, extra) });
            expect(hidden.status, `${method} ${suffix}`).toBe(404);
            expect(shape(hidden, key)).toEqual(shape(absent, missing));
          }
        }
      }
    }
  });

  it('with readers: the post’s author and the admin get it, privately; once the post is public, anyone does', async () => {
    const key = await draftCover(readersOnly, 702);
    for (const token of [authorToken, ADMIN_KEY]) {
      for (const suffix of ['', '/320']) {
        const response = await http(readersOnly.url, 'GET', `/files/${key}${suffix}`, { headers: asIf(token) });
        expect(response.status, suffix).toBe(200);
        expect(response.headers.get('content-type')).toMatch(/^image\//);
        expect(response.headers.get('cache-control')).toBe('private, no-cache');
        expect(response.headers.get('vary')?.toLowerCase()).toContain('authorization');
        const again = await http(readersOnly.url, 'GET', `/files/${key}${suffix}`, { headers: asIf(token, { 'if-none-match': response.headers.get('etag') ?? '' }) });
        expect(again.status).toBe(304);
      }
    }
    const published = await http(readersOnly.url, 'PATCH', `/posts/${draft}`, {
      body: { status: 'PUBLISHED' },
      headers: { ...admin, 'content-type': 'application/merge-patch+json' },
    });
    expect(published.status).toBe(200);
    expect((await http(readersOnly.url, 'GET', `/files/${key}`)).status).toBe(200);
    const unpublished = await http(readersOnly.url, 'PATCH', `/posts/${draft}`, { body: { status: 'DRAFT' }, headers: { ...admin, 'content-type': 'application/merge-patch+json' } });
    expect(unpublished.status).toBe(200);
    expect((await http(readersOnly.url, 'GET', `/files/${key}`)).status).toBe(404);
  });

  it('by default (public): anyone holding the URL gets it, cached a year', async () => {
    const key = await draftCover(open, 703);
    const response = await http(open.url, 'GET', `/files/${key}`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});
