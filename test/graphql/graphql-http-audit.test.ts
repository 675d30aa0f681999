import { auditServer } from 'graphql-http';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { startServer, type TestServer } from '../support/start-server.js';

/**
 * The reference conformance suite of GraphQL over HTTP, run against the
 * real server over a socket. Every MUST and SHOULD passes; the MAYs are
 * listed so a change in them is visible in review.
 */
describeEachDialect('graphql-http server audit', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), { seed: false });
  });
  afterAll(async () => {
    await server.close();
  });

  it('passes every MUST and SHOULD', async () => {
    const results = await auditServer({ url: `${server.url}/graphql` });
    const failures = results.filter((result) => result.status !== 'ok' && !result.name.startsWith('MAY'));
    const report = await Promise.all(
      failures.map(async (result) => `${result.id} ${result.name}: ${result.status === 'ok' ? '' : `${result.reason} ${await result.response.text()}`}`),
    );
    expect(report).toEqual([]);
    const musts = results.filter((result) => result.name.startsWith('MUST'));
    const shoulds = results.filter((result) => result.name.startsWith('SHOULD'));
    expect(musts.length).toBeGreaterThan(10);
    expect(shoulds.length).toBeGreaterThan(10);
    if (process.env['PRINT_AUDIT'] === '1') {
      for (const result of results) console.log(`${result.status.padEnd(7)} ${result.id} ${result.name}`);
    }
  });
});
