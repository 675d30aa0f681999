import { SignJWT } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { EventMessage } from '../../src/events/event-hub.js';
import { eventsOf } from '../../src/server/create-server.js';
import { gql } from '../graphql/graphql-client.js';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { png } from '../support/images.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { putFile } from '../support/uploads.js';

const SECRET = 'event-content-test-secret-0123456789abcdef';
const ADMIN_KEY = 'event-content-admin-key-0123456789';

/**
 * Every kind of write, through REST and GraphQL, becomes exactly one event
 * whose record is what `GET /<type>/<id>` answers the admin after it (and
 * `previous`, before it), naming who caused it and never their credential.
 */
describeEachDialect('Events: one per committed write, with the REST representation', (ctx) => {
  let server: TestServer;
  let alice: string;
  let bob: string;
  let aliceAuth: Record<string, string>;
  const admin = { authorization: `Bearer ${ADMIN_KEY}` };
  const received: EventMessage[] = [];

  const rest = (headers: Record<string, string>, method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    http(server.url, method, path, { headers, ...(body === undefined ? {} : { body }) });
  /** The events the writes since the last call caused (after they are published). */
  const newEvents = async (): Promise<EventMessage[]> => {
    await eventsOf(server.app).settle();
    return received.splice(0);
  };
  const adminView = async (path: string): Promise<unknown> => (await rest(admin, 'GET', path)).json;

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 4, Post: 4, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    const users = (await http(server.url, 'GET', '/users?limit=2&fields=id')).json.data as { id: string }[];
    alice = (users[0] as { id: string }).id;
    bob = (users[1] as { id: string }).id;
    const token = await new SignJWT({ sub: alice, role: 'MEMBER', email: 'secret-claim@example.org' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    aliceAuth = { authorization: `Bearer ${token}` };
    eventsOf(server.app).subscribe((events) => received.push(...events));
  });
  afterAll(async () => {
    await server.close();
  });

  it('a create, an update and a delete in REST: one event each, with the record after and before', async () => {
    const created = await rest(aliceAuth, 'POST', '/posts', { title: 'Hello', body: 'First' });
    expect(created.status).toBe(201);
    const id = created.json.id as string;
    const afterCreate = await adminView(`/posts/${id}`);
    const [create, ...none] = await newEvents();
    expect(none).toEqual([]);
    expect(create).toMatchObject({ type: 'post.created', principal: { id: alice, role: 'MEMBER', via: 'jwt' }, data: { id, record: afterCreate } });
    expect(create?.data).not.toHaveProperty('previous');
    expect(create?.id).toMatch(/^evt_/);

    expect((await rest(aliceAuth, 'PATCH', `/posts/${id}`, { title: 'Hello again' })).status).toBe(200);
    const afterUpdate = await adminView(`/posts/${id}`);
    expect(await newEvents()).toMatchObject([{ type: 'post.updated', data: { id, record: afterUpdate, previous: afterCreate } }]);

    expect((await rest(aliceAuth, 'DELETE', `/posts/${id}`)).status).toBe(204);
    expect(await newEvents()).toMatchObject([{ type: 'post.deleted', principal: { id: alice, via: 'jwt' }, data: { id, record: null, previous: afterUpdate } }]);
  });

  it('the same writes in GraphQL make the same events', async () => {
    const created = await gql(server.url, 'mutation { createPost(input: { title: "Gql", body: "B" }) { id } }', undefined, aliceAuth);
    const id = created.json.data.createPost.id as string;
    const afterCreate = await adminView(`/posts/${id}`);
    await gql(server.url, `mutation { updatePost(id: "${id}", input: { title: "Gql 2" }) { id } }`, undefined, aliceAuth);
    const afterUpdate = await adminView(`/posts/${id}`);
    await gql(server.url, `mutation { deletePost(id: "${id}") { id } }`, undefined, aliceAuth);
    expect(await newEvents()).toMatchObject([
      { type: 'post.created', principal: { id: alice, role: 'MEMBER', via: 'jwt' }, data: { id, record: afterCreate } },
      { type: 'post.updated', data: { id, record: afterUpdate, previous: afterCreate } },
      { type: 'post.deleted', data: { id, record: null, previous: afterUpdate } },
    ]);
  });

  it('a link and an unlink, in either style, are `.added` / `.removed` events naming the target', async () => {
    expect((await rest(aliceAuth, 'PUT', `/users/${alice}/following/${bob}`)).status).toBeLessThan(300);
    await gql(server.url, `mutation { removeUserFollowing(id: "${alice}", targetId: "${bob}") { id } }`, undefined, aliceAuth);
    const view = await adminView(`/users/${alice}`);
    expect(await newEvents()).toMatchObject([
      { type: 'user.following.added', principal: { id: alice }, data: { id: alice, target: bob, record: view } },
      { type: 'user.following.removed', data: { id: alice, target: bob, record: view } },
    ]);
    // Linking again what is already linked changes nothing, and says nothing.
    await rest(aliceAuth, 'DELETE', `/users/${alice}/following/${bob}`);
    expect(await newEvents()).toEqual([]);
  });

  it('a file upload is an update whose record holds the new file URL', async () => {
    const before = await adminView(`/users/${alice}`);
    expect((await putFile(server.url, `/users/${alice}/profilePicture`, await png(7), 'me.png', 'image/png', aliceAuth)).status).toBe(200);
    const after = (await adminView(`/users/${alice}`)) as { profilePicture: string };
    expect(after.profilePicture).toMatch(/^\/files\//);
    expect(await newEvents()).toMatchObject([{ type: 'user.updated', data: { id: alice, record: after, previous: before } }]);
  });

  it('a refused write makes no event; the admin key shows as its way in, never as the key', async () => {
    expect((await rest({}, 'POST', '/posts', { title: 'x', body: 'y', author: alice })).status).toBe(403);
    expect((await rest(aliceAuth, 'PATCH', `/users/${bob}`, { name: 'Not me' })).status).toBe(403);
    expect(await newEvents()).toEqual([]);
    await rest(admin, 'PATCH', `/users/${bob}`, { bio: 'set by an admin' });
    const events = await newEvents();
    expect(events).toMatchObject([{ type: 'user.updated', principal: { id: null, via: 'admin-key' } }]);
    const text = JSON.stringify(events);
    expect(text).not.toContain(ADMIN_KEY);
    expect(text).not.toContain('secret-claim');
  });

  it('positions grow in commit order, and eventsAfter resumes after any of them', async () => {
    const hub = eventsOf(server.app);
    const start = await hub.lastPosition();
    for (const name of ['A', 'B', 'C']) await rest(admin, 'POST', '/products', { name, sku: `sku-${name}-${ctx.dialect}`, price: 1 });
    const events = await newEvents();
    expect(events.map((event) => event.type)).toEqual(['product.created', 'product.created', 'product.created']);
    expect(events.map((event) => event.position)).toEqual([start + 1, start + 2, start + 3]);
    expect((await hub.eventsAfter(start + 1)).map((event) => event.id)).toEqual(events.slice(1).map((event) => event.id));
    expect(new Set(events.map((event) => event.id)).size).toBe(3);
  });
});
