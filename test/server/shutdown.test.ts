/**
 * Readiness and a graceful stop, over real sockets: `/readyz` fails as soon
 * as shutdown starts (the load balancer drains the instance) while requests
 * are still served with `Connection: close`; the server then stops
 * accepting, says goodbye to live readers (SSE `goodbye`, graphql-ws close
 * 1012), answers a request still in flight, and cuts what is still open
 * after the grace.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, expect, it } from 'vitest';
import { shutdown } from '../../src/server/create-server.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { graphqlWsClient, openEventSource } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const SEED = { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 };

/** A POST /users whose head and first half of body are sent now; `finish()` sends the rest and reads the answer. */
async function halfSentPost(url: string): Promise<{ finish(): Promise<string>; readonly socket: Socket }> {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const body = JSON.stringify({ name: 'In flight', email: `in-flight-${Date.now()}@example.com` });
  const half = Math.floor(body.length / 2);
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString('utf8')));
  const ended = new Promise<string>((resolve) => socket.once('close', () => resolve(answer)));
  socket.write(`POST /users HTTP/1.1\r\nHost: ${hostname}:${port}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, half)}`);
  return {
    socket,
    finish: () => {
      socket.write(body.slice(half));
      return ended;
    },
  };
}

async function refusesConnections(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

describeEachDialect('readiness and graceful shutdown', (ctx) => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const server of servers) await server.close().catch(() => undefined);
  });

  it('/readyz is 200 while the database answers, 503 NOT_READY (reason database) once it does not', async () => {
    const server = await startServer(() => ctx.open(), { seed: SEED });
    servers.push(server);
    const ready = await http(server.url, 'GET', '/readyz');
    expect(ready.status).toBe(200);
    expect(ready.json).toEqual({ status: 'ready', database: ctx.dialect });
    expect((await http(server.url, 'HEAD', '/readyz')).status).toBe(200);
    await server.db.close();
    // The last answer is remembered for half a second at most.
    let down = await http(server.url, 'GET', '/readyz');
    for (let attempt = 0; attempt < 40 && down.status === 200; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      down = await http(server.url, 'GET', '/readyz');
    }
    expect(down.status).toBe(503);
    expect(down.json).toMatchObject({ code: 'NOT_READY', reason: 'database' });
    expect(down.headers.get('retry-after')).toBe('1');
  });

  it('on shutdown: not ready at once, still serving; then stops accepting, says goodbye to live readers and answers what is in flight', async () => {
    const server = await startServer(() => ctx.open(), { seed: false });
    servers.push(server);
    const userId = (await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data[0].id as string;
    // A load balancer is watching.
    expect((await http(server.url, 'GET', '/readyz')).status).toBe(200);
    const reader = openEventSource(`${server.url}/users/${userId}`);
    await reader.opened;
    expect((await reader.events.next()).type).toBe('update');
    const ws = graphqlWsClient(server.url);
    const subscription = ws.subscribe(`subscription { user(id: "${userId}") { name } }`);
    expect((await subscription.results.next()).data.user.name).toEqual(expect.any(String));
    const inFlight = await halfSentPost(server.url);

    const stopping = shutdown(server.app, { drainDelayMs: 400, graceMs: 10_000 });
    const notReady = await http(server.url, 'GET', '/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.json).toMatchObject({ code: 'NOT_READY', reason: 'draining' });
    // Still served during the drain delay, each answer closing its connection.
    const during = await http(server.url, 'GET', `/users/${userId}`);
    expect(during.status).toBe(200);
    expect(during.headers.get('connection')).toBe('close');

    for (let attempt = 0; attempt < 100 && !(await refusesConnections(server.url)); attempt++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await refusesConnections(server.url)).toBe(true);
    // The live readers were told, the SSE one with an event of its own.
    expect((await reader.events.next()).type).toBe('goodbye');
    reader.close();
    const closed = (await subscription.ended).error as { code?: number } | undefined;
    expect(closed?.code).toBe(1012);
    await ws.dispose();
    // The request in flight all along is answered.
    const answer = await inFlight.finish();
    expect(answer).toMatch(/^HTTP\/1\.1 201 /);
    expect(answer.toLowerCase()).toContain('connection: close');
    expect(await stopping).toEqual({ drained: true, cut: false });
  });

  it('cuts what is still in flight after the grace; with no load balancer watching, does not wait the drain delay', async () => {
    const server = await startServer(() => ctx.open(), { seed: false });
    servers.push(server);
    const straggler = await halfSentPost(server.url);
    const closed = new Promise<void>((resolve) => straggler.socket.once('close', () => resolve()));
    // A drain delay longer than the test's own timeout: it is not waited, as nothing asked /readyz.
    expect(await shutdown(server.app, { drainDelayMs: 600_000, graceMs: 200 })).toEqual({ drained: false, cut: true });
    await closed;
  });
});
