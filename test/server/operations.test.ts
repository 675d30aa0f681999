import { afterAll, beforeAll, expect, it } from 'vitest';
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
    await http(server.url, 'GET', '/users/1', { headers: { authorization: 'Bearer very-secret-token', cookie: 'session=also-secret' } });
    const entries = lines.map((line) => JSON.parse(line) as { msg?: string; req?: { headers?: Record<string, string> } });
    const incoming = entries.find((entry) => entry.req?.headers?.['authorization'] !== undefined);
    expect(incoming?.req?.headers?.['authorization']).toBe('[redacted]');
    expect(incoming?.req?.headers?.['cookie']).toBe('[redacted]');
    expect(lines.join('\n')).not.toContain('very-secret-token');
    expect(lines.join('\n')).not.toContain('also-secret');
  });

  it('/healthz is 200 while the database answers and 503 once it does not', async () => {
    const healthy = await http(server.url, 'GET', '/healthz');
    expect(healthy.status).toBe(200);
    expect(healthy.json).toMatchObject({ status: 'ok', database: ctx.dialect });
    await server.db.close();
    const down = await http(server.url, 'GET', '/healthz');
    expect(down.status).toBe(503);
    expect(down.json.code).toBe('DATABASE_UNAVAILABLE');
    const read = await http(server.url, 'GET', '/users/1');
    expect(read.status).toBe(503);
    expect(read.json.code).toBe('DATABASE_UNAVAILABLE');
  });
});
