/**
 * Compression at the edge, for both styles: br, gzip or identity by
 * Accept-Encoding, `Vary: Accept-Encoding`, an ETag per coding that still
 * revalidates (304) and still guards writes (If-Match); small answers and
 * images left alone; the pages' assets precompressed and immutable. And the
 * security headers: nosniff on every answer, helmet's policy on pages only.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

interface RawResponse {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  /** The body as sent, still encoded. */
  readonly bytes: Buffer;
}

/** One request whose body is read as sent (Node's fetch would decode it). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const outgoing = request(`${base}${path}`, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, bytes: Buffer.concat(chunks) }));
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

function decode(response: RawResponse): string {
  const coding = response.headers['content-encoding'];
  if (coding === 'br') return brotliDecompressSync(response.bytes).toString();
  if (coding === 'gzip') return gunzipSync(response.bytes).toString();
  return response.bytes.toString();
}

describeEachDialect('compression and security headers', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
  });

  afterAll(async () => {
    await server.close();
  });

  it('negotiates br, gzip and identity for a REST page, with the same JSON inside, Vary, and an ETag per coding', async () => {
    const path = '/users?limit=50&include=posts';
    const identity = await raw(server.url, 'GET', path);
    const br = await raw(server.url, 'GET', path, { 'accept-encoding': 'gzip, deflate, br' });
    const gzip = await raw(server.url, 'GET', path, { 'accept-encoding': 'gzip' });
    const refused = await raw(server.url, 'GET', path, { 'accept-encoding': 'br;q=0, gzip;q=0' });
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(refused.headers['content-encoding']).toBeUndefined();
    expect(decode(br)).toBe(identity.bytes.toString());
    expect(decode(gzip)).toBe(identity.bytes.toString());
    expect(br.bytes.length * 3).toBeLessThan(identity.bytes.length);
    for (const response of [identity, br, gzip]) expect(String(response.headers['vary'])).toMatch(/accept-encoding/i);
    const tag = String(identity.headers['etag']);
    expect(br.headers['etag']).toBe(`${tag.slice(0, -1)}-br"`);
    expect(gzip.headers['etag']).toBe(`${tag.slice(0, -1)}-gzip"`);
    expect(Number(br.headers['content-length'])).toBe(br.bytes.length);
  });

  it('revalidates a compressed answer: 304 names the tag the client holds, with Vary', async () => {
    const path = '/users?limit=50';
    const first = await raw(server.url, 'GET', path, { 'accept-encoding': 'br' });
    const held = String(first.headers['etag']);
    const again = await raw(server.url, 'GET', path, { 'accept-encoding': 'br', 'if-none-match': held });
    expect(again.status).toBe(304);
    expect(again.headers['etag']).toBe(held);
    expect(String(again.headers['vary'])).toMatch(/accept-encoding/i);
    expect(again.headers['x-content-type-options']).toBe('nosniff');
    // A client that held the uncompressed answer is up to date too, whatever it now accepts.
    const plainTag = held.replace(/-br"$/, '"');
    const crossed = await raw(server.url, 'GET', path, { 'accept-encoding': 'br', 'if-none-match': plainTag });
    expect(crossed.status).toBe(304);
    expect(crossed.headers['etag']).toBe(plainTag);
    // Another tag is not current.
    expect((await raw(server.url, 'GET', path, { 'accept-encoding': 'br', 'if-none-match': '"other-br"' })).status).toBe(200);
  });

  it('revalidates compressed GraphQL GET answers the same way', async () => {
    const query = encodeURIComponent('{ users(first: 50) { id name bio posts(first: 5) { id title } } }');
    const path = `/graphql?query=${query}`;
    const first = await raw(server.url, 'GET', path, { 'accept-encoding': 'gzip', accept: 'application/graphql-response+json' });
    expect(first.headers['content-encoding']).toBe('gzip');
    expect(JSON.parse(decode(first)).data.users).toHaveLength(50);
    const held = String(first.headers['etag']);
    expect(held).toMatch(/-gzip"$/);
    const again = await raw(server.url, 'GET', path, { 'accept-encoding': 'gzip', accept: 'application/graphql-response+json', 'if-none-match': held });
    expect(again.status).toBe(304);
    expect(again.headers['etag']).toBe(held);
  });

  it('takes a compressed answer\'s ETag in If-Match: it names the same record', async () => {
    const list = await http(server.url, 'GET', '/users?limit=1');
    const id = String(list.json.data[0].id);
    const read = await raw(server.url, 'GET', `/users/${id}?include=posts,followers`, { 'accept-encoding': 'br' });
    expect(read.headers['content-encoding']).toBe('br');
    const held = String(read.headers['etag']);
    const record = await raw(server.url, 'GET', `/users/${id}`, { 'accept-encoding': 'br' });
    const recordTag = String(record.headers['etag']);
    const written = await raw(
      server.url,
      'PATCH',
      `/users/${id}`,
      { 'content-type': 'application/merge-patch+json', 'if-match': recordTag },
      JSON.stringify({ bio: 'A long biography. '.repeat(80) }),
    );
    expect(written.status).toBe(200);
    // The record changed: the old tag of any coding is stale now.
    const stale = await raw(server.url, 'PATCH', `/users/${id}`, { 'content-type': 'application/merge-patch+json', 'if-match': recordTag }, JSON.stringify({ bio: 'x' }));
    expect(stale.status).toBe(412);
    expect((await raw(server.url, 'GET', `/users/${id}?include=posts,followers`, { 'accept-encoding': 'br', 'if-none-match': held })).status).toBe(200);
  });

  it('leaves small answers uncompressed, and compresses problem+json past the threshold', async () => {
    const small = await raw(server.url, 'GET', '/healthz', { 'accept-encoding': 'br' });
    expect(small.status).toBe(200);
    expect(small.headers['content-encoding']).toBeUndefined();
    const problem = await raw(server.url, 'GET', `/users?filter[${'x'.repeat(3000)}]=1`, { 'accept-encoding': 'br' });
    expect(problem.status).toBe(400);
    expect(String(problem.headers['content-type'])).toMatch(/^application\/problem\+json/);
    if (problem.bytes.length >= 1024 || problem.headers['content-encoding'] !== undefined) {
      expect(JSON.parse(decode(problem)).code).toBe('QUERY_UNKNOWN_FIELD');
    }
  });

  it('serves the pages\' assets precompressed, immutable, with a 304 per coding; pages are small and carry the security policy', async () => {
    const page = await raw(server.url, 'GET', '/graphql', { accept: 'text/html', 'accept-encoding': 'br' });
    expect(page.status).toBe(200);
    expect(page.headers['content-security-policy']).toContain("default-src 'self'");
    expect(page.headers['content-security-policy']).toContain("script-src 'self';");
    expect(page.headers['referrer-policy']).toBe('no-referrer');
    expect(page.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(page.headers['x-content-type-options']).toBe('nosniff');
    const html = decode(page);
    expect(html.length).toBeLessThan(4096);
    const script = /<script src="(\/assets\/[^"]+\/graphiql\.js)"/.exec(html)?.[1] ?? '';
    const br = await raw(server.url, 'GET', script, { 'accept-encoding': 'br, gzip' });
    const gzip = await raw(server.url, 'GET', script, { 'accept-encoding': 'gzip' });
    const plain = await raw(server.url, 'GET', script);
    expect(br.headers['content-encoding']).toBe('br');
    expect(gzip.headers['content-encoding']).toBe('gzip');
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(decode(br)).toBe(plain.bytes.toString());
    expect(decode(gzip)).toBe(plain.bytes.toString());
    for (const response of [br, gzip, plain]) {
      expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(response.headers['x-content-type-options']).toBe('nosniff');
      expect(String(response.headers['content-type'])).toMatch(/^text\/javascript/);
      expect(response.headers['content-security-policy']).toBeUndefined();
    }
    expect(new Set([br.headers['etag'], gzip.headers['etag'], plain.headers['etag']]).size).toBe(3);
    const revalidated = await raw(server.url, 'GET', script, { 'accept-encoding': 'br', 'if-none-match': String(br.headers['etag']) });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers['etag']).toBe(br.headers['etag']);
    expect((await raw(server.url, 'GET', '/assets/nothing/graphiql.js')).status).toBe(404);
    // Every asset of the page (the icon too) names its coding in its ETag.
    for (const [, asset] of html.matchAll(/(?:src|href)="(\/assets\/[^"]+)"/g)) {
      const response = await raw(server.url, 'GET', asset ?? '', { 'accept-encoding': 'br' });
      expect(response.headers['content-encoding'], asset).toBe('br');
      expect(response.headers['etag'], asset).toMatch(/-br"$/);
      expect(response.headers['vary'], asset).toBe('Accept-Encoding');
    }

    const docs = await raw(server.url, 'GET', '/docs/', { 'accept-encoding': 'br' });
    expect(docs.headers['content-security-policy']).toContain("script-src 'self';");
    const scalar = /<script src="(\/assets\/[^"]+\/scalar\.js)"/.exec(decode(docs))?.[1] ?? '';
    const scalarBr = await raw(server.url, 'GET', scalar, { 'accept-encoding': 'br' });
    expect(scalarBr.headers['content-encoding']).toBe('br');
    expect(scalarBr.bytes.length).toBeLessThan(1_500_000);
  }, 60_000);

  it('says nosniff on every answer: API, errors, 304s, OPTIONS, the document; the policy only on pages', async () => {
    const list = await raw(server.url, 'GET', '/users?limit=1');
    const answers = [
      list,
      await raw(server.url, 'GET', '/users?limit=1', { 'if-none-match': String(list.headers['etag']) }),
      await raw(server.url, 'GET', '/nowhere'),
      await raw(server.url, 'GET', '/users/does-not-exist'),
      await raw(server.url, 'DELETE', '/users'),
      await raw(server.url, 'OPTIONS', '/users'),
      await raw(server.url, 'GET', '/openapi.json'),
      // A GraphQL error, in application/json: 200 with errors (GraphQL over HTTP).
      await raw(server.url, 'POST', '/graphql', { 'content-type': 'application/json', accept: 'application/json' }, '{"query":"{ nope }"}'),
      await raw(server.url, 'GET', '/users/%E0%A4%A'),
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 304, 404, 404, 405, 204, 200, 200, 400]);
    for (const answer of answers) {
      expect(answer.headers['x-content-type-options'], `${answer.status} ${String(answer.headers['content-type'])}`).toBe('nosniff');
      expect(answer.headers['content-security-policy']).toBeUndefined();
    }
  });
});
