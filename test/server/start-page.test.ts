/**
 * Issue 40: `GET /` was a JSON 404. Now a browser gets a small page with the
 * server's links and first requests for this schema, and a client the same
 * as JSON; both revalidate with their ETag, and the page's assets are
 * immutable and compressed. Through a real server on both databases.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

describeEachDialect('start page', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { rules: true, seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 } });
  });
  afterAll(() => server.close());

  it('answers a client with JSON: the links and every type’s collection, revalidated by ETag', async () => {
    const response = await http(server.url, 'GET', '/', { headers: { accept: 'application/json' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect(response.json.links).toEqual({ console: '/console', docs: '/docs/', graphql: '/graphql', openapi: '/openapi.json', health: '/healthz', events: '/events', admin: '/admin' });
    expect(response.json.types).toContainEqual({ name: 'User', collection: '/users', graphql: { one: 'user', list: 'users' } });
    expect(response.json.types).toHaveLength(server.model.types.length);
    // What a sign-in form needs (the console shows one from this alone), and the route answers.
    expect(response.json.account).toEqual({ type: 'User', identifier: 'email', signIn: '/auth/sign-in' });
    expect((await http(server.url, 'POST', response.json.account.signIn as string, { body: { email: 'nobody@example.com', password: 'not a password at all' } })).json.code).toBe('INVALID_CREDENTIALS');
    // The JSON links answer (the HTML pages, GraphiQL and the reference, are test/server/browser-pages.test.ts's).
    for (const name of ['openapi', 'health']) expect([name, (await http(server.url, 'GET', response.json.links[name] as string)).status]).toEqual([name, 200]);
    const etag = response.headers.get('etag') ?? '';
    expect(etag).toMatch(/^"/);
    const again = await http(server.url, 'GET', '/', { headers: { accept: 'application/json', 'if-none-match': etag } });
    expect(again.status).toBe(304);
    // curl's `*/*` is a client too.
    expect((await http(server.url, 'GET', '/')).json.links.docs).toBe('/docs/');
  });

  it('answers a browser with a page whose examples work against this server', async () => {
    const response = await http(server.url, 'GET', '/', { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(response.headers.get('vary')).toMatch(/Accept/);
    for (const href of ['/console', '/docs/', '/graphql', '/openapi.json', '/healthz']) expect(response.text).toContain(`href="${href}"`);
    expect(response.text).not.toMatch(/<script>(?!<)/);
    expect(response.text).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/);
    // The first curl and the first GraphQL query are runnable as shown.
    const curl = /curl &#39;(http:[^&]+)&#39;/.exec(response.text)?.[1] ?? '';
    expect(curl).toBe(`${server.url}/users?limit=5`);
    const list = await http(server.url, 'GET', curl.slice(server.url.length));
    expect(list.status).toBe(200);
    const query = /-d &#39;(\{.+?\})&#39;/.exec(response.text)?.[1]?.replaceAll('&#34;', '"') ?? '';
    const answer = await http(server.url, 'POST', '/graphql', { raw: query, headers: { 'content-type': 'application/json' } });
    expect(answer.json.errors, answer.text).toBeUndefined();
    expect(answer.json.data.users).toHaveLength(3);
    // Its style and script: content-hashed assets, immutable and compressed.
    const assets = [...response.text.matchAll(/(?:href|src)="(\/assets\/[^"]+)"/g)].map((match) => match[1] ?? '');
    expect(assets).toHaveLength(2);
    for (const path of assets) {
      const asset = await fetch(`${server.url}${path}`, { headers: { 'accept-encoding': 'br' } });
      expect(asset.status).toBe(200);
      expect(asset.headers.get('cache-control')).toContain('immutable');
      expect(asset.headers.get('content-encoding')).toBe('br');
    }
    const etag = response.headers.get('etag') ?? '';
    expect((await http(server.url, 'GET', '/', { headers: { accept: 'text/html', 'if-none-match': etag } })).status).toBe(304);
  });
});

describeEachDialect('start page without accounts', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    // The example without its rules is without @account too.
    server = await startServer(() => ctx.open(), { seed: false, files: false });
  });
  afterAll(() => server.close());

  it('says so: no account to sign in as, and no sign-in route', async () => {
    const response = await http(server.url, 'GET', '/', { headers: { accept: 'application/json' } });
    expect(response.json.account).toBeNull();
    expect((await http(server.url, 'POST', '/auth/sign-in', { body: { email: 'nobody@example.com', password: 'x' } })).status).toBe(404);
  });
});
