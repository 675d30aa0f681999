/**
 * The HTTP edge: what happens to requests the routes never answer normally.
 * An oversized body gets its 413 *delivered* (the server reads and discards
 * the rest before closing, so even a client that writes everything before
 * reading sees it), a body trickled too slowly is cut off with a 408, what
 * Node refuses before any route runs is answered with registered codes, and
 * /graphql answers OPTIONS and every error in GraphQL's shape.
 *
 * These run on SQLite only: nothing here reaches SQL (the 503s, which do,
 * are in operations.test.ts, on both databases).
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeSqlite } from '../support/databases.js';
import { http } from '../support/http.js';
import { chunked, filler, sendThenRead, sendUntilClosed, trickle } from '../support/raw-http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { stoppedFetch } from '../support/stopped-fetch.js';

const MAX_UPLOAD = 256 * 1024;
const BIG = 20_000_000;

function head(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\nhost: localhost\r\n${Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('')}\r\n`;
}

/** A multipart body with one 20 MB file part named `name`, after `before` (other parts, already encoded). */
function bigUpload(name: string, before = ''): { readonly type: string; readonly length: number; readonly parts: () => Iterable<Buffer | string> } {
  const boundary = 'diglot-edge-boundary';
  const opening = `${before}--${boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="big.png"\r\ncontent-type: image/png\r\n\r\n`;
  const closing = `\r\n--${boundary}--\r\n`;
  return {
    type: `multipart/form-data; boundary=${boundary}`,
    length: Buffer.byteLength(opening) + BIG + Buffer.byteLength(closing),
    parts: function* () {
      yield opening;
      yield* filler(BIG, 7);
      yield closing;
    },
  };
}

function textPart(name: string, value: string): string {
  return `--diglot-edge-boundary\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
}

describeSqlite('HTTP edge', (ctx) => {
  let server: TestServer;
  let userId: string;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1, pictures: 0 },
      files: { maxUploadBytes: MAX_UPLOAD },
      server: { requestTimeout: 1_000 },
    });
    const users = await http(server.url, 'GET', '/users?limit=1');
    userId = users.json.data[0].id as string;
  });
  afterAll(() => server.close());

  describe('413 the client reads', () => {
    it('REST: a declared Content-Length over the limit, the body written in full before reading', async () => {
      const response = await sendThenRead(server.url, head('POST', '/users', { 'content-type': 'application/json', 'content-length': BIG }), filler(BIG));
      expect(response.status).toBe(413);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.headers['connection']).toBe('close');
      expect(response.json).toMatchObject({ status: 413, code: 'BODY_TOO_LARGE' });
    });

    it('REST: a chunked body that grows past the limit', async () => {
      const response = await sendThenRead(server.url, head('POST', '/users', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }), chunked(filler(BIG)));
      expect(response.status).toBe(413);
      expect(response.headers['connection']).toBe('close');
      expect(response.json).toMatchObject({ status: 413, code: 'BODY_TOO_LARGE' });
    });

    it('GraphQL: its own envelope, for a declared length and for a chunked body', async () => {
      const declared = await sendThenRead(server.url, head('POST', '/graphql', { 'content-type': 'application/json', 'content-length': BIG }), filler(BIG));
      expect(declared.status).toBe(413);
      expect(declared.headers['connection']).toBe('close');
      expect(declared.json.errors[0].extensions.code).toBe('BODY_TOO_LARGE');
      const grown = await sendThenRead(server.url, head('POST', '/graphql', { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }), chunked(filler(BIG)));
      expect(grown.status).toBe(413);
      expect(grown.json.errors[0].extensions.code).toBe('BODY_TOO_LARGE');
    });

    it('a large body sent to no route at all (Fastify reads bodies for its 404 too)', async () => {
      const response = await sendThenRead(server.url, head('POST', '/nowhere', { 'content-type': 'application/json', 'content-length': BIG }), filler(BIG));
      expect(response.status).toBe(413);
      expect(response.headers['connection']).toBe('close');
      expect(response.json).toMatchObject({ code: 'BODY_TOO_LARGE' });
    });

    it('a REST upload over the file limit', async () => {
      const upload = bigUpload('file');
      const response = await sendThenRead(
        server.url,
        head('PUT', `/users/${userId}/profilePicture`, { 'content-type': upload.type, 'content-length': upload.length }),
        upload.parts(),
      );
      expect(response.status).toBe(413);
      expect(response.headers['connection']).toBe('close');
      expect(response.json).toMatchObject({ status: 413, code: 'FILE_TOO_LARGE' });
    });

    it('a GraphQL multipart upload over the file limit', async () => {
      const operations = JSON.stringify({
        query: 'mutation ($id: ID!, $file: Upload!) { updateUser(id: $id, input: { profilePicture: $file }) { id } }',
        variables: { id: userId, file: null },
      });
      const upload = bigUpload('0', textPart('operations', operations) + textPart('map', JSON.stringify({ 0: ['variables.file'] })));
      const response = await sendThenRead(
        server.url,
        head('POST', '/graphql', { 'content-type': upload.type, 'content-length': upload.length, 'graphql-require-preflight': '1' }),
        upload.parts(),
      );
      expect(response.json.errors[0].extensions.code).toBe('FILE_TOO_LARGE');
      expect(response.headers['connection']).toBe('close');
    });

    it("with Node's fetch from a client that reads late: REST, GraphQL and an upload each get their 413", async () => {
      const rest = await stoppedFetch(server.app, `${server.url}/users`, 'json', BIG);
      expect(rest.error).toBeUndefined();
      expect(rest.status).toBe(413);
      expect(JSON.parse(rest.body ?? '')).toMatchObject({ code: 'BODY_TOO_LARGE' });
      const graphql = await stoppedFetch(server.app, `${server.url}/graphql`, 'json', BIG);
      expect(graphql.error).toBeUndefined();
      expect(graphql.status).toBe(413);
      expect(JSON.parse(graphql.body ?? '').errors[0].extensions.code).toBe('BODY_TOO_LARGE');
      const upload = await stoppedFetch(server.app, `${server.url}/users/${userId}/profilePicture`, 'file', BIG);
      expect(upload.error).toBeUndefined();
      expect(upload.status).toBe(413);
      expect(JSON.parse(upload.body ?? '')).toMatchObject({ code: 'FILE_TOO_LARGE' });
    });

    it('keeps serving on a fresh connection afterwards', async () => {
      const response = await http(server.url, 'GET', `/users/${userId}`);
      expect(response.status).toBe(200);
    });
  });

  describe('slow requests cut off', () => {
    it('REST: a body trickled slower than requestTimeout gets a 408 problem and the connection closed', async () => {
      const response = await trickle(server.url, head('POST', '/users', { 'content-type': 'application/json', 'content-length': 1_000 }), ' '.repeat(1_000), 100);
      expect(response?.status).toBe(408);
      expect(response?.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response?.headers['connection']).toBe('close');
      expect(response?.json).toMatchObject({ status: 408, code: 'REQUEST_TIMEOUT' });
    });

    it('GraphQL: the 408 in its envelope', async () => {
      const response = await trickle(server.url, head('POST', '/graphql', { 'content-type': 'application/json', 'content-length': 1_000 }), ' '.repeat(1_000), 100);
      expect(response?.status).toBe(408);
      expect(response?.json.errors[0].extensions.code).toBe('REQUEST_TIMEOUT');
    });

    it('headers trickled too slowly get the same 408', async () => {
      const response = await trickle(server.url, 'GET /users HTTP/1.1\r\nhost: localhost\r\n', 'x-slow: ' + 'a'.repeat(1_000), 100);
      expect(response?.status).toBe(408);
      expect(response?.json).toMatchObject({ code: 'REQUEST_TIMEOUT' });
    });
  });

  describe("what Node refuses, in the documented shape", () => {
    it('headers over the size limit: 431 HEADERS_TOO_LARGE', async () => {
      const response = await sendThenRead(server.url, head('GET', '/users', { 'x-padding': 'a'.repeat(20_000) }));
      expect(response.status).toBe(431);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json).toMatchObject({ status: 431, code: 'HEADERS_TOO_LARGE' });
      expect(response.headers['x-content-type-options']).toBe('nosniff');
    });

    it('a malformed request line: 400 BAD_REQUEST', async () => {
      const response = await sendThenRead(server.url, 'G@T /users HTTP/1.1\r\nhost: localhost\r\n\r\n');
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
      const noVersion = await sendThenRead(server.url, 'GET /users HTTP/9\r\n\r\n');
      expect(noVersion.json).toMatchObject({ status: 400, code: 'BAD_REQUEST' });
    });

    it('an Expect other than 100-continue: 417 EXPECTATION_FAILED, problem+json or GraphQL', async () => {
      const rest = await sendThenRead(server.url, head('POST', '/users', { 'content-type': 'application/json', 'content-length': 2, expect: 'teapot', connection: 'close' }), ['{}']);
      expect(rest.status).toBe(417);
      expect(rest.json).toMatchObject({ status: 417, code: 'EXPECTATION_FAILED', instance: '/users' });
      const graphql = await sendThenRead(server.url, head('POST', '/graphql', { 'content-type': 'application/json', 'content-length': 2, expect: 'teapot', connection: 'close' }), ['{}']);
      expect(graphql.status).toBe(417);
      expect(graphql.json.errors[0].extensions.code).toBe('EXPECTATION_FAILED');
    });

    it('an Expect refused before a large body is read: the 417 still reaches the client', async () => {
      const response = await sendThenRead(server.url, head('POST', '/users', { 'content-type': 'application/json', 'content-length': BIG, expect: 'teapot' }), filler(BIG));
      expect(response.status).toBe(417);
      expect(response.headers['connection']).toBe('close');
    });
  });

  describe('/graphql answers OPTIONS and every error as GraphQL', () => {
    it('OPTIONS: 204 with Allow, with or without a JSON body', async () => {
      const bare = await http(server.url, 'OPTIONS', '/graphql');
      expect(bare.status).toBe(204);
      expect(bare.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
      const withBody = await http(server.url, 'OPTIONS', '/graphql', { body: { query: '{ __typename }' } });
      expect(withBody.status).toBe(204);
      expect(withBody.headers.get('allow')).toBe('GET, HEAD, POST, OPTIONS');
      const malformed = await http(server.url, 'OPTIONS', '/graphql', { raw: '{not json', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).toBe(204);
    });

    it('OPTIONS with a JSON body over the limit: a GraphQL 413, not a problem', async () => {
      const response = await http(server.url, 'OPTIONS', '/graphql', { raw: `"${'x'.repeat(1_100_000)}"`, headers: { 'content-type': 'application/json' } });
      expect(response.status).toBe(413);
      expect(response.json.errors[0].extensions.code).toBe('BODY_TOO_LARGE');
    });

    it('every other method: 405 with Allow, in the envelope', async () => {
      for (const method of ['PUT', 'DELETE', 'PATCH']) {
        const response = await http(server.url, method, '/graphql', { body: { query: '{ __typename }' } });
        expect(response.status, method).toBe(405);
        expect(response.headers.get('allow'), method).toBe('GET, HEAD, POST, OPTIONS');
        expect(response.json.errors[0].extensions.code, method).toBe('METHOD_NOT_ALLOWED');
      }
      for (const method of ['TRACE', 'PROPFIND']) {
        const response = await sendThenRead(server.url, head(method, '/graphql', { connection: 'close' }));
        expect(response.status, method).toBe(405);
        expect(response.headers['allow'], method).toBe('GET, HEAD, POST, OPTIONS');
        expect(response.json.errors[0].extensions.code, method).toBe('METHOD_NOT_ALLOWED');
      }
    });
  });
});

describeSqlite('HTTP edge: the lingering close is bounded', (ctx) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: false,
      files: false,
      // A request timeout far beyond the test's: only the lingering limits can end these connections.
      server: { requestTimeout: 120_000, lingeringClose: { maxBytes: 2 * 1024 * 1024, maxMs: 300 } },
    });
  });
  afterAll(() => server.close());

  it('past maxBytes of discarded body the connection is closed on a client still sending', async () => {
    const outcome = await sendThenRead(server.url, head('POST', '/users', { 'content-type': 'application/json', 'content-length': BIG }), filler(BIG)).then(
      () => 'read an answer',
      (error: unknown) => (error as NodeJS.ErrnoException).code ?? String(error),
    );
    expect(['EPIPE', 'ECONNRESET']).toContain(outcome);
  });

  it('after maxMs a client that stops sending is answered and closed, not held', async () => {
    const response = await sendUntilClosed(server.url, head('POST', '/users', { 'content-type': 'application/json', 'content-length': BIG }), filler(256 * 1024));
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({ code: 'BODY_TOO_LARGE' });
  });
});

describeSqlite('HTTP edge: closing waits for answers, not for idle keep-alive connections', (ctx) => {
  it('a request still arriving when the server starts closing is answered, and its keep-alive connection then closes with the server', async () => {
    const server = await startServer(() => ctx.open(), { seed: false, files: false });
    const body = JSON.stringify({ query: '{ __typename }' });
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1');
    const received: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => received.push(chunk));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    // Expect: 100-continue tells when the server has the request (and so answers it, closing or not).
    socket.write(head('POST', '/graphql', { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), expect: '100-continue' }));
    await new Promise<void>((resolve) => socket.once('data', () => resolve()));
    const closed = server.close();
    socket.write(body);
    // Without closing answered connections, this waits for the 72 s keep-alive timeout and the test times out.
    await closed;
    await ended;
    const answer = Buffer.concat(received).toString();
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(answer).toContain('"__typename":"Query"');
  });
});
