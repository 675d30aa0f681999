/**
 * "One statement per read, none per 304", on PostgreSQL, counted by the
 * database's side of the wire: the server reaches PostgreSQL only through a
 * proxy that records every statement any of its connections runs (requests,
 * timers, the listening and lease connections alike), with the default rate
 * limits on. A write per request, a clock read per request or a statement
 * per 304 cannot come back unnoticed.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/storage/dialect.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { describePostgres } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startPgStatementCounter, type PgStatementCounter } from '../support/pg-statement-counter.js';
import { startServer, type TestServer } from '../support/start-server.js';

/** Requests per read: enough that background work at its own pace is a small fraction of them. */
const REQUESTS = 100;
const GQL_JSON = { accept: 'application/graphql-response+json' };

/** The reads of the brief (/work/shared/seed): REST routes and the GraphQL query, as a client sends them. */
const READS: readonly { readonly name: string; readonly send: (url: string, headers?: Record<string, string>) => Promise<HttpResponse> }[] = [
  { name: 'GET /users', send: (url, headers) => http(url, 'GET', '/users', { headers }) },
  { name: 'GET /users/42', send: (url, headers) => http(url, 'GET', '/users/42', { headers }) },
  { name: 'GET /users/42/posts', send: (url, headers) => http(url, 'GET', '/users/42/posts', { headers }) },
  { name: 'GET /users/42/followers', send: (url, headers) => http(url, 'GET', '/users/42/followers', { headers }) },
  {
    name: 'POST /graphql user(id: "42") { name profilePicture(size: 64) }',
    send: (url, headers) => http(url, 'POST', '/graphql', { body: { query: '{ user(id: "42") { name profilePicture(size: 64) } }' }, headers: { ...GQL_JSON, ...headers } }),
  },
];

const GRAPHQL_GET = `/graphql?query=${encodeURIComponent('{ user(id: "42") { name profilePicture(size: 64) } }')}`;

describePostgres('SQL statements per request, counted on the wire', (ctx) => {
  let counter: PgStatementCounter;
  let server: TestServer;
  /** Statements a second the server sends while nobody asks anything (its lease, its event poll). */
  let idleRate: number;
  let through: URL;

  beforeAll(async () => {
    const target = new URL(ctx.url);
    counter = await startPgStatementCounter({ host: target.hostname, port: Number(target.port || 5432) });
    through = new URL(ctx.url);
    through.port = String(counter.port);
    // The server's defaults: rate limits on.
    server = await startServer((): Promise<Database> => openDatabase(through.toString()));
    for (const read of READS) expect((await read.send(server.url)).status).toBe(200);
    const before = counter.statements.length;
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 3000));
    idleRate = (counter.statements.length - before) / ((performance.now() - started) / 1000);
  }, 60_000);
  afterAll(async () => {
    await server.close();
    await counter.close();
  });

  /** Sends `send` REQUESTS times, one after another; the statements seen meanwhile, and what the server may send at its own pace in that time (at its idle rate, plus one exchange of rate-limit counts a second and two to spare). */
  const measure = async (send: () => Promise<HttpResponse>, status: number): Promise<{ readonly sent: readonly string[]; readonly background: number }> => {
    const before = counter.statements.length;
    const started = performance.now();
    for (let i = 0; i < REQUESTS; i++) expect((await send()).status).toBe(status);
    const seconds = (performance.now() - started) / 1000;
    return { sent: counter.statements.slice(before), background: Math.ceil(seconds * (idleRate + 1)) + 2 };
  };

  const shown = (sent: readonly string[]): string => {
    const tally = new Map<string, number>();
    for (const text of sent) tally.set(text.slice(0, 90), (tally.get(text.slice(0, 90)) ?? 0) + 1);
    return [...tally].map(([text, count]) => `${count} × ${text}`).join('\n');
  };

  for (const read of READS) {
    it(`runs one statement per ${read.name}`, async () => {
      const { sent, background } = await measure(() => read.send(server.url), 200);
      expect(sent.length, `${sent.length} statements for ${REQUESTS} requests (background allowance ${background}):\n${shown(sent)}`).toBeLessThanOrEqual(REQUESTS + background);
    });
  }

  it('runs none for a 304, REST or GraphQL over GET', async () => {
    for (const path of ['/users/42', GRAPHQL_GET]) {
      const etag = (await http(server.url, 'GET', path, { headers: GQL_JSON })).headers.get('etag') ?? '';
      const { sent, background } = await measure(() => http(server.url, 'GET', path, { headers: { ...GQL_JSON, 'if-none-match': etag } }), 304);
      expect(sent.length, `${sent.length} statements for ${REQUESTS} revalidations of ${path} (background allowance ${background}):\n${shown(sent)}`).toBeLessThanOrEqual(background);
    }
  });

  it('serves a file with no statement by default, and with one per request with --files-access readers', async () => {
    const picture = (await http(server.url, 'GET', '/users/1?fields=profilePicture')).json.profilePicture as string;
    const path = new URL(picture, server.url).pathname;
    const open = await measure(() => http(server.url, 'GET', path), 200);
    expect(open.sent.length, shown(open.sent)).toBeLessThanOrEqual(open.background);
    // The same database and file store, served to readers only.
    const readers = await startServer((): Promise<Database> => openDatabase(through.toString()), { seed: false, files: { directory: server.filesDir }, server: { fileAccess: 'readers' } });
    try {
      const { sent, background } = await measure(() => http(readers.url, 'GET', path), 200);
      expect(sent.length, `${sent.length} statements for ${REQUESTS} requests (background allowance ${background}):\n${shown(sent)}`).toBeLessThanOrEqual(REQUESTS + background);
      expect(sent.length).toBeGreaterThanOrEqual(REQUESTS);
    } finally {
      await readers.close();
    }
  }, 120_000);
});
