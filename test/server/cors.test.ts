/**
 * CORS from a real browser: a page served by another HTTP server (another
 * origin) calls the API in Chromium with credentials and validators, which
 * makes Chromium send preflights; a page on an origin not listed is refused
 * by the browser. Then the headers themselves, over plain HTTP: preflights,
 * exposed headers, credentials only with listed origins, `*`, nothing when
 * CORS is off, OPTIONS on every route, and the cross-site guard following
 * the same list.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CORS_EXPOSED_HEADERS } from '../../src/server/cors-policy.js';
import { launchChromium } from '../support/browser.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

const ADMIN_KEY = 'cors-test-admin-key-0123456789abcdef';

/** A tiny HTML page on its own port: another origin than the API's. */
async function pageServer(): Promise<{ readonly origin: string; readonly server: Server }> {
  const server = createHttpServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><title>app</title><p>An app on another origin</p>');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

interface BrowserCalls {
  readonly listStatus: number;
  readonly etag: string | null;
  readonly link: string | null;
  readonly revalidated: number;
  readonly patched: number;
  readonly graphql: number;
  readonly graphqlUsers: number;
}

describeEachDialect('CORS', (ctx) => {
  let api: TestServer;
  let allowed: Awaited<ReturnType<typeof pageServer>>;
  let other: Awaited<ReturnType<typeof pageServer>>;
  let browser: Browser;

  beforeAll(async () => {
    allowed = await pageServer();
    other = await pageServer();
    api = await startServer(() => ctx.open(), { rules: true, server: { auth: { adminKey: ADMIN_KEY }, cors: { origins: [allowed.origin] } } });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    await api.close();
    allowed.server.close();
    other.server.close();
  });

  it('a page on a listed origin reads, revalidates (304) and writes with Authorization, If-None-Match and If-Match, in REST and GraphQL', async () => {
    const page = await browser.newPage();
    await page.goto(allowed.origin);
    const result = await page.evaluate(
      async ({ base, key }): Promise<BrowserCalls> => {
        const auth = { Authorization: `Bearer ${key}` };
        const list = await fetch(`${base}/users?limit=2`, { headers: auth });
        const etag = list.headers.get('etag');
        const users = ((await list.json()) as { data: { id: string }[] }).data;
        const again = await fetch(`${base}/users?limit=2`, { headers: { ...auth, 'If-None-Match': etag ?? '' } });
        const one = await fetch(`${base}/users/${users[0]?.id ?? ''}`, { headers: auth });
        const patched = await fetch(`${base}/users/${users[0]?.id ?? ''}`, {
          method: 'PATCH',
          headers: { ...auth, 'Content-Type': 'application/merge-patch+json', 'If-Match': one.headers.get('etag') ?? '' },
          body: JSON.stringify({ bio: 'Edited from another origin' }),
        });
        const graphql = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { ...auth, 'Content-Type': 'application/json', 'GraphQL-Require-Preflight': '1' },
          body: JSON.stringify({ query: '{ users(first: 2) { id } }' }),
        });
        const answer = (await graphql.json()) as { data: { users: unknown[] } };
        return {
          listStatus: list.status,
          etag,
          link: list.headers.get('link'),
          revalidated: again.status,
          patched: patched.status,
          graphql: graphql.status,
          graphqlUsers: answer.data.users.length,
        };
      },
      { base: api.url, key: ADMIN_KEY },
    );
    expect(result).toMatchObject({ listStatus: 200, revalidated: 304, patched: 200, graphql: 200, graphqlUsers: 2 });
    // Exposed headers are readable by the page's script.
    expect(result.etag).toMatch(/^"/);
    expect(result.link).toContain('rel="next"');
    await page.close();
  }, 60_000);

  it('a page on an origin not listed cannot read the API: the browser refuses the answer', async () => {
    const page = await browser.newPage();
    await page.goto(other.origin);
    const outcome = await page.evaluate(async (base) => {
      try {
        const response = await fetch(`${base}/users?limit=1`, { headers: { Authorization: 'Bearer nothing-to-see' } });
        return `read ${response.status}`;
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      }
    }, api.url);
    expect(outcome).toMatch(/^refused: /);
    const simple = await page.evaluate(async (base) => {
      try {
        await fetch(`${base}/users?limit=1`);
        return 'read';
      } catch {
        return 'refused';
      }
    }, api.url);
    expect(simple).toBe('refused');
    await page.close();
  }, 60_000);

  it('answers a preflight from a listed origin at the edge: methods, headers, credentials, max age, Vary', async () => {
    const preflight = await http(api.url, 'OPTIONS', '/users/1', {
      headers: { origin: allowed.origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': 'authorization, if-match, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(preflight.headers.get('access-control-allow-credentials')).toBe('true');
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE');
    const allowedHeaders = (preflight.headers.get('access-control-allow-headers') ?? '').toLowerCase().split(/,\s*/);
    for (const name of ['authorization', 'content-type', 'if-match', 'if-none-match', 'graphql-require-preflight', 'apollo-require-preflight', 'x-request-id']) {
      expect(allowedHeaders).toContain(name);
    }
    expect(preflight.headers.get('access-control-max-age')).toBe('600');
    expect(preflight.headers.get('vary')).toMatch(/origin/i);
    expect(preflight.headers.get('x-content-type-options')).toBe('nosniff');

    const read = await http(api.url, 'GET', '/users?limit=1', { headers: { origin: allowed.origin } });
    expect(read.status).toBe(200);
    expect(read.headers.get('access-control-allow-origin')).toBe(allowed.origin);
    expect(read.headers.get('access-control-expose-headers')?.split(', ')).toEqual(CORS_EXPOSED_HEADERS);
    for (const name of ['ETag', 'Link', 'Location', 'RateLimit', 'RateLimit-Policy', 'Retry-After', 'Deprecation', 'Sunset', 'Server-Timing', 'Last-Modified']) {
      expect(CORS_EXPOSED_HEADERS).toContain(name);
    }
  });

  it('keeps Vary: Origin on cacheable reads beside the caching layers\' own Vary: REST and GraphQL GET, 200 and 304, anonymous and signed in', async () => {
    const names = (value: string | null): string[] => (value ?? '').split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '');
    const graphqlGet = `/graphql?query=${encodeURIComponent('{ users(first: 1) { id name } }')}`;
    for (const auth of [{}, { authorization: `Bearer ${ADMIN_KEY}` }] as Record<string, string>[]) {
      for (const [path, accept, expected] of [
        ['/users?limit=1', 'application/json', ['origin', 'authorization', 'accept-encoding']],
        [graphqlGet, 'application/graphql-response+json', ['origin', 'accept', 'authorization', 'accept-encoding']],
      ] as const) {
        const headers = { ...auth, origin: allowed.origin, accept, 'accept-encoding': 'gzip' };
        const first = await http(api.url, 'GET', path, { headers });
        expect(first.status, path).toBe(200);
        expect(first.headers.get('access-control-allow-origin')).toBe(allowed.origin);
        // Each name once (RFC 9110 §12.5.5), whichever layer named it.
        expect(names(first.headers.get('vary')).sort(), path).toEqual([...expected].sort());
        const again = await http(api.url, 'GET', path, { headers: { ...headers, 'if-none-match': first.headers.get('etag') ?? '' } });
        expect(again.status, path).toBe(304);
        expect(names(again.headers.get('vary')).sort(), path).toEqual([...expected].sort());
      }
    }
  });

  it('gives no CORS headers to a request without Origin or from an origin not listed (a preflight from one gets the route\'s plain 204)', async () => {
    const plain = await http(api.url, 'GET', '/users?limit=1');
    expect(plain.headers.get('access-control-allow-origin')).toBeNull();
    const stranger = await http(api.url, 'OPTIONS', '/users', { headers: { origin: other.origin, 'access-control-request-method': 'POST' } });
    expect(stranger.status).toBe(204);
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    expect(stranger.headers.get('access-control-allow-credentials')).toBeNull();
    expect(stranger.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
  });

  it('lets a listed origin send form-like writes past the cross-site guard, and still refuses others', async () => {
    const listed = await http(api.url, 'POST', '/graphql', { raw: 'query={__typename}', headers: { 'content-type': 'text/plain', origin: allowed.origin, 'sec-fetch-site': 'cross-site' } });
    expect(listed.json?.errors?.[0]?.extensions?.code).not.toBe('CROSS_SITE_REQUEST_REFUSED');
    const stranger = await http(api.url, 'POST', '/graphql', { raw: 'query={__typename}', headers: { 'content-type': 'text/plain', origin: other.origin, 'sec-fetch-site': 'cross-site' } });
    expect(stranger.status).toBe(403);
  });
});

describeEachDialect('CORS settings', (ctx) => {
  let open: TestServer;
  let off: TestServer;

  beforeAll(async () => {
    open = await startServer(() => ctx.open(), { server: { cors: { origins: '*' } } });
    off = await startServer(() => ctx.open(), { seed: false });
  });

  afterAll(async () => {
    await open.close();
    await off.close();
  });

  it('with *: any origin, never credentials', async () => {
    const preflight = await http(open.url, 'OPTIONS', '/graphql', { headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'POST' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
    expect(preflight.headers.get('access-control-allow-credentials')).toBeNull();
    const read = await http(open.url, 'GET', '/users?limit=1', { headers: { origin: 'https://anywhere.example' } });
    expect(read.headers.get('access-control-allow-origin')).toBe('*');
    expect(read.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('off by default: no CORS header at all; OPTIONS answers 204 with Allow on every route, 404 where there is none', async () => {
    const read = await http(off.url, 'GET', '/users?limit=1', { headers: { origin: 'https://anywhere.example' } });
    expect(read.status).toBe(200);
    expect([...read.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    const cases: [string, string][] = [
      ['/users', 'GET, HEAD, POST, OPTIONS'],
      ['/users/1', 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
      ['/users/1/posts', 'GET, HEAD, OPTIONS'],
      ['/users/1/followers/2', 'PUT, DELETE, OPTIONS'],
      ['/graphql', 'GET, HEAD, POST, OPTIONS'],
    ];
    for (const [path, allow] of cases) {
      const preflight = await http(off.url, 'OPTIONS', path, { headers: { origin: 'https://anywhere.example', 'access-control-request-method': 'GET' } });
      expect(preflight.status, path).toBe(204);
      expect(preflight.headers.get('allow'), path).toBe(allow);
      expect(preflight.headers.get('access-control-allow-origin'), path).toBeNull();
    }
    expect((await http(off.url, 'OPTIONS', '/nowhere')).status).toBe(404);
  });
});

describe('CORS options', () => {
  it('refuses an entry that is not an origin', async () => {
    const { corsOrigins } = await import('../../src/server/cors-policy.js');
    expect(() => corsOrigins({ origins: ['https://app.example.com/path'] })).toThrow(/not an origin/);
    expect(corsOrigins({ origins: ['HTTPS://App.Example.com:443'] })).toEqual(['https://app.example.com']);
    expect(corsOrigins({ origins: '*' })).toEqual([]);
  });
});
