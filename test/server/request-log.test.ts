import { expect, it } from 'vitest';
import { gql } from '../graphql/graphql-client.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer } from '../support/start-server.js';

/** The server's log at info: one line per request, whichever style and outcome, with what an operator looks for. */
describeEachDialect('One log line per request', (ctx) => {
  it('writes exactly one line for each REST, GraphQL and not-found request, with method, url, status, ms and request id', async () => {
    const lines: string[] = [];
    const server = await startServer(() => ctx.open(), {
      files: false,
      seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } },
    });
    lines.length = 0;
    expect((await http(server.url, 'GET', '/users?limit=2', { headers: { 'x-request-id': 'rest-1' } })).status).toBe(200);
    expect((await gql(server.url, '{ users(first: 1) { id } }', undefined, { 'x-request-id': 'graphql-1' })).status).toBe(200);
    expect((await http(server.url, 'GET', '/nothing-here', { headers: { 'x-request-id': 'missing-1' } })).status).toBe(404);
    // Closing waits for every response to finish, so every line the requests make is written by now.
    await server.close();

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => typeof entry['reqId'] === 'string');
    expect(entries.map((entry) => [entry['reqId'], entry['method'], entry['url'], entry['status']])).toEqual([
      ['rest-1', 'GET', '/users?limit=2', 200],
      ['graphql-1', 'POST', '/graphql', 200],
      ['missing-1', 'GET', '/nothing-here', 404],
    ]);
    for (const entry of entries) {
      expect(entry['level']).toBe(30);
      expect(typeof entry['ms']).toBe('number');
      expect(entry['msg']).toBe(`${String(entry['method'])} ${String(entry['url'])} ${String(entry['status'])} ${String(entry['ms'])} ms`);
    }
  });
});
