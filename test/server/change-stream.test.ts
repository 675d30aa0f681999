/**
 * Issue 40: `GET /events`, the change events as Server-Sent Events for
 * anyone, each as the subscriber may read it, through a real server on both
 * databases: the record a stranger gets is exactly what their own
 * `GET /users/<id>` answers (a field its rule hides is hidden there too),
 * the admin's has it all; the stream resumes after a cursor.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { openEventSource } from '../support/live-clients.js';
import { startServer, type TestServer } from '../support/start-server.js';

const ADMIN_KEY = 'change-stream-test-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };

describeEachDialect('change stream', (ctx) => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 },
      server: { auth: { adminKey: ADMIN_KEY }, accounts: { passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 } } },
    });
  });
  afterAll(() => server.close());

  it('sends each event as the subscriber may read it: a stranger the record as their GET has it, the admin all of it', async () => {
    const stranger = openEventSource(`${server.url}/events?types=user.created`, {}, ['user.created']);
    const owner = openEventSource(`${server.url}/events?types=user.*`, admin, ['user.created', 'user.updated']);
    await Promise.all([stranger.opened, owner.opened]);
    const email = `streamed-${ctx.dialect}@example.com`;
    const created = await http(server.url, 'POST', '/users', { headers: admin, body: { name: 'Streamed', email } });
    expect(created.status, created.text).toBe(201);
    const id = String(created.json.id);

    const seen = await stranger.events.next();
    expect(seen.type).toBe('user.created');
    expect(seen.id).toMatch(/^\d+$/);
    expect(seen.data).toMatchObject({ type: 'user.created', data: { id } });
    const asRead = (await http(server.url, 'GET', `/users/${id}`)).json;
    expect(seen.data.data.record).toEqual(asRead);
    expect(JSON.stringify(seen.data)).not.toContain(email);

    const full = await owner.events.next();
    expect(full.data.data.record.email).toBe(email);
    stranger.close();

    // Resuming after the cursor sends what came since, and nothing before it.
    await http(server.url, 'PATCH', `/users/${id}`, { headers: admin, body: { name: 'Renamed' } });
    const update = await owner.events.next();
    expect(update.type).toBe('user.updated');
    owner.close();
    const resumed = openEventSource(`${server.url}/events?types=user.*&after=${seen.id}`, admin, ['user.created', 'user.updated']);
    await resumed.opened;
    const first = await resumed.events.next();
    expect([first.type, first.data.data.record.name]).toEqual(['user.updated', 'Renamed']);
    resumed.close();
  });

  it('refuses what is not a stream or names no event type, as any request would be', async () => {
    expect((await http(server.url, 'GET', '/events')).json.code).toBe('NOT_ACCEPTABLE');
    const none = await http(server.url, 'GET', '/events?types=nothing.here', { headers: { accept: 'text/event-stream' } });
    expect([none.status, none.json.code]).toEqual([400, 'QUERY_INVALID_ARGUMENT']);
  });

  it('lets go of a client that does not read, rather than buffering its events without end', async () => {
    const url = new URL(server.url);
    const socket = connect(Number(url.port), url.hostname);
    const ended = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    let head = '';
    await new Promise<void>((resolve) => {
      socket.on('data', (chunk: Buffer) => {
        head += chunk.toString('latin1');
        if (head.includes(': events')) {
          // From now on the client reads nothing: the server's buffer for it only grows.
          socket.pause();
          socket.removeAllListeners('data');
          resolve();
        }
      });
      socket.write(`GET /events?types=user.updated HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${ADMIN_KEY}\r\nAccept: text/event-stream\r\n\r\n`);
    });
    expect(head).toMatch(/^HTTP\/1\.1 200/);
    const id = String((await http(server.url, 'GET', '/users?limit=1')).json.data[0].id);
    // 40 events of 500 KB: far more than the socket's buffers and the server's 1 MiB allowance.
    for (let i = 0; i < 40; i++) {
      const bio = `${i}`.padEnd(500_000, 'x');
      expect((await http(server.url, 'PATCH', `/users/${id}`, { headers: admin, body: { bio } })).status).toBe(200);
    }
    socket.resume();
    socket.on('data', () => undefined);
    // The server ended the stream: the connection closes without the client closing it.
    await ended;
  });
});
