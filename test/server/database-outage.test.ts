import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/open-database.js';
import { gql } from '../graphql/graphql-client.js';
import { describePostgres } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { startTcpProxy, type TcpProxy } from '../support/tcp-proxy.js';

/**
 * A real server whose PostgreSQL goes away: every connection is cut and new
 * ones are refused (a TCP proxy between them stops), then it comes back.
 * Every read and write in both styles answers 503 DATABASE_UNAVAILABLE
 * meanwhile — never a 500 — and the server serves again afterwards.
 */
describePostgres('a PostgreSQL outage', (ctx) => {
  let proxy: TcpProxy;
  let server: TestServer;
  const lines: string[] = [];
  let userId: string;
  let postIds: string[];

  beforeAll(async () => {
    const direct = new URL(ctx.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(ctx.url);
    viaProxy.port = String(proxy.port);
    server = await startServer(() => openDatabase(viaProxy.toString(), { connectTimeoutMs: 2000 }), {
      seed: { counts: { User: 3, Post: 6, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { logger: { level: 'info', stream: { write: (line: string) => lines.push(line) } } },
    });
    const users = await http(server.url, 'GET', '/users?fields=id&limit=1');
    userId = users.json.data[0].id as string;
    const posts = await http(server.url, 'GET', '/posts?fields=id&limit=3');
    postIds = (posts.json.data as { id: string }[]).map((post) => post.id);
  });
  afterAll(async () => {
    await server.close();
    await proxy.close();
  });

  const unavailable = (response: HttpResponse, what: string): void => {
    expect(response.status, `${what}: ${response.text}`).toBe(503);
    expect(response.json.code, what).toBe('DATABASE_UNAVAILABLE');
    expect(response.headers.get('retry-after'), what).toBe('5');
  };
  const graphqlUnavailable = (response: HttpResponse, what: string): void => {
    expect(response.status, what).toBe(200);
    expect(response.headers.get('retry-after'), what).toBe('5');
    expect(response.json.errors.map((error: { extensions: { code: string } }) => error.extensions.code), `${what}: ${response.text}`).toEqual([
      'DATABASE_UNAVAILABLE',
    ]);
  };

  it('answers 503 DATABASE_UNAVAILABLE to reads and writes in both styles while it is down, and serves again once it is back', async () => {
    expect((await http(server.url, 'GET', `/users/${userId}`)).status).toBe(200);
    await proxy.cut();
    // Twice: the first round meets connections that die as they are used, the second finds none to be had.
    for (let round = 0; round < 2; round++) {
      unavailable(await http(server.url, 'GET', '/healthz'), 'health');
      unavailable(await http(server.url, 'GET', `/users/${userId}`), 'REST read one');
      unavailable(await http(server.url, 'GET', '/users?limit=5'), 'REST list');
      unavailable(await http(server.url, 'POST', '/users', { body: { name: 'Down', email: `down${round}@example.com` } }), 'REST create');
      unavailable(await http(server.url, 'PATCH', `/users/${userId}`, { body: { bio: 'down' } }), 'REST update');
      unavailable(await http(server.url, 'PUT', `/users/${userId}/followers/${userId}`), 'REST link');
      unavailable(await http(server.url, 'DELETE', `/posts/${postIds[round] ?? ''}`), 'REST delete');
      graphqlUnavailable(await gql(server.url, `{ user(id: "${userId}") { name } }`), 'GraphQL read');
      graphqlUnavailable(await gql(server.url, `mutation { createUser(input: { name: "Down", email: "gdown${round}@example.com" }) { id } }`), 'GraphQL create');
      graphqlUnavailable(await gql(server.url, `mutation { updateUser(id: "${userId}", input: { bio: "down" }) { id } }`), 'GraphQL update');
      graphqlUnavailable(await gql(server.url, `mutation { deletePost(id: "${postIds[round] ?? ''}") { id } }`), 'GraphQL delete');
    }
    // Nothing was an internal error: no error-level entry (pino level 50) in the log.
    expect(lines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);

    await proxy.resume();
    // The pool connects afresh on demand; the first statements may still meet a connection the cut left behind.
    let healthy = false;
    for (let attempt = 0; attempt < 100 && !healthy; attempt++) {
      healthy = (await http(server.url, 'GET', '/healthz')).status === 200;
      if (!healthy) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(healthy).toBe(true);
    expect((await http(server.url, 'GET', `/users/${userId}`)).status).toBe(200);
    expect((await http(server.url, 'POST', '/users', { body: { name: 'Back', email: 'back@example.com' } })).status).toBe(201);
    expect((await http(server.url, 'PATCH', `/users/${userId}`, { body: { bio: 'back' } })).status).toBe(200);
    expect((await http(server.url, 'DELETE', `/posts/${postIds[2] ?? ''}`)).status).toBe(204);
    const read = await gql(server.url, `{ user(id: "${userId}") { bio } }`);
    expect(read.json).toEqual({ data: { user: { bio: 'back' } } });
    const created = await gql(server.url, `mutation { createUser(input: { name: "Back", email: "gback@example.com" }) { email } }`);
    expect(created.json).toEqual({ data: { createUser: { email: 'gback@example.com' } } });
  });
});
