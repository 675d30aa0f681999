/**
 * DNS rebinding: a page on a name the attacker controls, re-pointed at the
 * server's address, is same-origin to the browser and sends `Host: <that
 * name>`. The server answers only to the names it is configured for (every
 * IP address and localhost always), on every route and transport, with 421
 * HOST_NOT_ALLOWED. Requests go through node:http, which (unlike fetch)
 * sends the Host header it is given.
 */
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileHostPolicy } from '../../src/server/host-guard.js';
import { describeEachDialect } from '../support/databases.js';
import { startServer, type TestServer } from '../support/start-server.js';

interface Answer {
  readonly status: number;
  readonly type: string | undefined;
  readonly body: string;
}

/** One request naming `host`; an upgrade that the server accepts answers 101. */
function ask(base: string, method: string, path: string, host: string, headers: Record<string, string> = {}, body?: string): Promise<Answer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const outgoing = httpRequest({ host: url.hostname, port: url.port, method, path, headers: { ...headers, host } }, (response) => {
      let text = '';
      response.setEncoding('utf8');
      // An SSE stream that opened would never end: its head is the answer.
      if (response.headers['content-type']?.startsWith('text/event-stream') === true) {
        response.destroy();
        resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body: '' });
        return;
      }
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, type: response.headers['content-type'], body: text }));
    });
    outgoing.on('upgrade', (response, socket) => {
      socket.destroy();
      resolve({ status: response.statusCode ?? 0, type: undefined, body: '' });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

const UPGRADE = { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==', 'sec-websocket-protocol': 'graphql-transport-ws' };

/** Every kind of route and transport, as (what, method, path, headers, body). */
const ROUTES: readonly (readonly [string, string, string, Record<string, string>, string?])[] = [
  ['REST read', 'GET', '/users?limit=1', {}],
  ['REST write', 'POST', '/users', { 'content-type': 'application/json' }, JSON.stringify({ name: 'Rebound', email: 'rebound@example.com' })],
  ['REST SSE', 'GET', '/users?limit=1', { accept: 'text/event-stream' }],
  ['GraphQL GET', 'GET', `/graphql?query=${encodeURIComponent('{ users(first: 1) { id } }')}`, {}],
  ['GraphQL POST', 'POST', '/graphql', { 'content-type': 'application/json' }, JSON.stringify({ query: '{ users(first: 1) { id } }' })],
  ['GraphQL SSE', 'GET', `/graphql/stream?query=${encodeURIComponent('subscription { usersCount }')}`, { accept: 'text/event-stream' }],
  ['GraphQL WebSocket', 'GET', '/graphql', UPGRADE],
  ['health', 'GET', '/healthz', {}],
  ['no such route', 'GET', '/nowhere', {}],
  ['preflight', 'OPTIONS', '/users', { origin: 'http://evil.example', 'access-control-request-method': 'POST' }],
];

describeEachDialect('Host check', (ctx) => {
  let server: TestServer;
  let proxied: TestServer;
  let port: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open());
    port = new URL(server.url).port;
    proxied = await startServer(() => ctx.open(), {
      seed: false,
      server: { publicUrl: 'https://api.example.com', allowedHosts: ['.corp.example'], trustProxy: ['loopback'] },
    });
  });
  afterAll(async () => {
    await server.close();
    await proxied.close();
  });

  it('refuses a name it was not given with 421 HOST_NOT_ALLOWED problem+json, on every route and transport', async () => {
    for (const [what, method, path, headers, body] of ROUTES) {
      const answer = await ask(server.url, method, path, `rebound.evil.example:${port}`, headers, body);
      expect(answer.status, what).toBe(421);
      expect(answer.type, what).toMatch(/^application\/problem\+json/);
      expect(JSON.parse(answer.body), what).toMatchObject({ status: 421, code: 'HOST_NOT_ALLOWED' });
    }
    // Nothing ran: the write refused above made no record.
    const made = await ask(server.url, 'GET', `/users?filter[email]=${encodeURIComponent('rebound@example.com')}`, `127.0.0.1:${port}`);
    expect(JSON.parse(made.body).data).toEqual([]);
  });

  it('answers loopback names and IP addresses as before, on every route and transport', async () => {
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, 'LocalHost', `[::1]:${port}`, '10.1.2.3', 'app.localhost']) {
      for (const [what, method, path, headers, body] of ROUTES) {
        // The write would make a second record with the same email: reads and streams suffice here.
        if (method === 'POST' && path === '/users') continue;
        const answer = await ask(server.url, method, path, host, headers, body);
        expect(answer.status, `${what} as ${host}`).not.toBe(421);
        expect(answer.status, `${what} as ${host}`).toBeLessThan(what === 'no such route' ? 500 : 300);
      }
    }
    expect((await ask(server.url, 'GET', '/graphql', `localhost:${port}`, UPGRADE)).status).toBe(101);
  });

  it('with a public URL and allowed hosts: their names, and what a trusted proxy forwards', async () => {
    const proxiedPort = new URL(proxied.url).port;
    const status = async (host: string, headers: Record<string, string> = {}): Promise<number> => (await ask(proxied.url, 'GET', '/healthz', host, headers)).status;
    expect(await status('api.example.com')).toBe(200);
    expect(await status(`API.example.com:${proxiedPort}`)).toBe(200);
    expect(await status('corp.example')).toBe(200);
    expect(await status('db.corp.example')).toBe(200);
    expect(await status(`127.0.0.1:${proxiedPort}`)).toBe(200);
    for (const host of ['evilcorp.example', 'api.example.com.evil.example', 'example.com', 'api.example.com@evil.example', '']) {
      expect(await status(host), host).toBe(host === '' ? 200 : 421);
    }
    // Behind a trusted proxy (here loopback), the name the client used is the forwarded one.
    expect(await status(`127.0.0.1:${proxiedPort}`, { 'x-forwarded-host': 'rebound.evil.example' })).toBe(421);
    expect(await status('internal-name', { 'x-forwarded-host': 'api.example.com' })).toBe(200);
    expect((await ask(proxied.url, 'GET', '/graphql', `127.0.0.1:${proxiedPort}`, { ...UPGRADE, 'x-forwarded-host': 'rebound.evil.example' })).status).toBe(421);
    expect((await ask(proxied.url, 'GET', '/graphql', 'api.example.com', UPGRADE)).status).toBe(101);
  });
});

describe('Host policy', () => {
  it('refuses entries that are not host names, and a public URL that is not http(s)', () => {
    expect(() => compileHostPolicy({ allowedHosts: ['https://api.example.com/'] })).toThrow(/not a host name/);
    expect(() => compileHostPolicy({ publicUrl: 'ftp://api.example.com' })).toThrow(/not an http\(s\) URL/);
    expect(compileHostPolicy({ allowedHosts: ['*'] })('anything.example')).toBe(true);
  });
});
