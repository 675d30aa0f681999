import { afterAll, beforeAll, expect, it } from 'vitest';
import { ERROR_REGISTRY } from '../../src/errors/registry.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';

describeEachDialect('operations', (ctx) => {
  let server: TestServer;
  const lines: string[] = [];

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } },
    });
  });
  afterAll(async () => {
    await server.app.close();
  });

  it('logs requests as structured JSON with the Authorization header redacted', async () => {
    await http(server.url, 'GET', '/users/1', { headers: { authorization: 'Bearer very-secret-token', cookie: 'session=also-secret', 'x-request-id': 'ops-1' } });
    // At info, one line per request (test/server/request-log.test.ts); the headers are logged at debug.
    const entries = lines.map((line) => JSON.parse(line) as { reqId?: string });
    expect(entries.filter((entry) => entry.reqId === 'ops-1')).toHaveLength(1);
    server.app.log.level = 'debug';
    await http(server.url, 'GET', '/users/1', { headers: { authorization: 'Bearer very-secret-token', cookie: 'session=also-secret' } });
    server.app.log.level = 'info';
    const incoming = lines.map((line) => JSON.parse(line) as { req?: { headers?: Record<string, string> } }).find((entry) => entry.req?.headers?.['authorization'] !== undefined);
    expect(incoming?.req?.headers?.['authorization']).toBe('[redacted]');
    expect(incoming?.req?.headers?.['cookie']).toBe('[redacted]');
    expect(lines.join('\n')).not.toContain('very-secret-token');
    expect(lines.join('\n')).not.toContain('also-secret');
  });

  it('/healthz is 200 while the database answers and 503 once it does not; every outage says when to retry', async () => {
    const healthy = await http(server.url, 'GET', '/healthz');
    expect(healthy.status).toBe(200);
    expect(healthy.json).toMatchObject({ status: 'ok', database: ctx.dialect });
    expect(healthy.headers.get('retry-after')).toBeNull();
    await server.db.close();
    const retryAfter = String(ERROR_REGISTRY.DATABASE_UNAVAILABLE.retryAfter);
    const down = await http(server.url, 'GET', '/healthz');
    expect(down.status).toBe(503);
    expect(down.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(down.json).toMatchObject({ code: 'DATABASE_UNAVAILABLE', instance: '/healthz' });
    expect(down.headers.get('retry-after')).toBe(retryAfter);
    const read = await http(server.url, 'GET', '/users/1');
    expect(read.status).toBe(503);
    expect(read.json.code).toBe('DATABASE_UNAVAILABLE');
    expect(read.headers.get('retry-after')).toBe(retryAfter);
    const write = await http(server.url, 'POST', '/users', { body: { name: 'Nobody', email: 'nobody@example.com' } });
    expect(write.status).toBe(503);
    expect(write.headers.get('retry-after')).toBe(retryAfter);
    // GraphQL answers an outage as field errors (200, GraphQL over HTTP), with the same Retry-After.
    for (const response of [
      await http(server.url, 'POST', '/graphql', { body: { query: '{ users(first: 1) { id } }' } }),
      await http(server.url, 'GET', '/graphql?query=%7B%20users(first%3A%201)%20%7B%20id%20%7D%20%7D'),
      await http(server.url, 'POST', '/graphql', { body: { query: 'mutation { createUser(input: { name: "Nobody", email: "nobody@example.com" }) { id } }' } }),
    ]) {
      expect(response.json.errors[0].extensions.code).toBe('DATABASE_UNAVAILABLE');
      expect(response.headers.get('retry-after')).toBe(retryAfter);
    }
  });
});
