/**
 * Issue 40: webhook endpoints kept in the database, through the admin API
 * of a real server on both databases: one added at run time receives a
 * signed delivery (verified with the standardwebhooks library), paused it
 * gets none, retry and replay send again, removed it gets nothing more; the
 * configuration file's endpoint is listed read-only; the secret is in the
 * answer that made it and nowhere after, not in the log either.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const ADMIN_KEY = 'admin-webhooks-test-admin-key-0123456789';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const codeOf = (response: HttpResponse): string | undefined => (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;

async function eventually<T>(check: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeEachDialect('webhook endpoints at run time', (ctx) => {
  let server: TestServer;
  let receiver: WebhookReceiver;
  let configured: WebhookReceiver;
  const logged: string[] = [];
  const configSecret = `whsec_${randomBytes(24).toString('base64')}`;
  let secret = '';

  const graphql = (query: string, variables?: Record<string, unknown>): Promise<HttpResponse> => http(server.url, 'POST', '/graphql', { headers: admin, body: { query, variables } });
  const createPost = async (title: string): Promise<string> => {
    const users = (await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data as { id: string }[];
    const created = await http(server.url, 'POST', '/posts', { body: { title, body: 'b', status: 'DRAFT', author: users[0]?.id } });
    expect(created.status, created.text).toBe(201);
    return String(created.json.id);
  };

  beforeAll(async () => {
    configured = await startReceiver(configSecret);
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 },
      server: {
        auth: { adminKey: ADMIN_KEY },
        events: { pollMs: 200, webhooks: [{ name: 'from-config', url: configured.url, events: ['user.created'], secret: configSecret }] },
        logger: { level: 'debug', stream: { write: (line) => logged.push(line) } },
      },
    });
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    await configured.close();
  });

  it('adds an endpoint at run time that receives signed deliveries at once; its secret is shown only then', async () => {
    // The receiver needs the secret the server makes: learn it from the answer, then listen with it.
    const created = await http(server.url, 'POST', '/admin/webhooks', {
      headers: admin,
      body: { name: 'added', url: 'http://127.0.0.1:9/placeholder', events: ['post.created', 'post.updated'], timeoutMs: 2000, backoffMs: 50 },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.headers.get('location')).toBe('/admin/webhooks/added');
    secret = String(created.json.secret);
    expect(secret).toMatch(/^whsec_/);
    expect(created.json).toMatchObject({ name: 'added', source: 'database', paused: false, events: ['post.created', 'post.updated'], deliveries: { pending: 0, delivered: 0, dead: 0 } });
    receiver = await startReceiver(secret);
    const changed = await graphql(`mutation { adminUpdateWebhookEndpoint(name: "added", input: { url: ${JSON.stringify(receiver.url)} }) { name url secret } }`);
    expect(changed.json.data.adminUpdateWebhookEndpoint).toEqual({ name: 'added', url: receiver.url, secret: null });

    const id = await createPost('Hello');
    const [delivery] = await receiver.waitFor(1);
    expect(receiver.unverified).toEqual([]);
    expect(delivery?.payload).toMatchObject({ type: 'post.created', data: { id, record: { title: 'Hello' } } });

    // Listed in both styles alike (once the delivery is settled), the configuration file's first and read-only; the secret in neither, nor in the log.
    const rest = await eventually(async () => {
      const response = await http(server.url, 'GET', '/admin/webhooks', { headers: admin });
      return response.json.data[1]?.deliveries.delivered === 1 ? response : undefined;
    });
    expect((rest.json.data as { name: string; source: string }[]).map((endpoint) => [endpoint.name, endpoint.source])).toEqual([
      ['from-config', 'config'],
      ['added', 'database'],
    ]);
    const fields = 'name url events filter source paused timeoutMs retryForMs backoffMs createdAt updatedAt deliveries { pending delivered dead }';
    expect((await graphql(`{ adminWebhookEndpoints { ${fields} } }`)).json.data.adminWebhookEndpoints).toEqual(rest.json.data);
    expect(rest.text).not.toContain(secret);
    expect(rest.text).not.toContain(configSecret);
    expect(logged.join('\n')).not.toContain(secret);
    expect(codeOf(await http(server.url, 'PATCH', '/admin/webhooks/from-config', { headers: admin, body: { paused: true } }))).toBe('WEBHOOK_ENDPOINT_READ_ONLY');
    expect(codeOf(await graphql('mutation { adminDeleteWebhookEndpoint(name: "from-config") }'))).toBe('WEBHOOK_ENDPOINT_READ_ONLY');
    expect(codeOf(await http(server.url, 'POST', '/admin/webhooks', { headers: admin, body: { name: 'from-config', url: receiver.url, events: ['*'] } }))).toBe('UNIQUE_VIOLATION');
  });

  it('lists deliveries with their attempts, retries one and replays an event, each sent again with the same event id', async () => {
    const listed = await eventually(async () => {
      const response = await http(server.url, 'GET', '/admin/webhooks/added/deliveries', { headers: admin });
      return response.json.data[0]?.status === 'delivered' ? response : undefined;
    });
    const [delivery] = listed.json.data as { id: string; eventId: string; attemptCount: number; attempts: { outcome: string; code: number }[] }[];
    expect(delivery?.attemptCount).toBe(1);
    expect(delivery?.attempts).toMatchObject([{ attempt: 1, outcome: 'ok', code: 200 }]);
    const gql = await graphql('{ adminDeliveries(endpoint: "added") { id endpoint eventId eventType status attemptCount nextAt firstAt doneAt lastCode lastError attempts { attempt at outcome code latencyMs error } } }');
    expect(gql.json.data.adminDeliveries).toEqual(listed.json.data);

    const retried = await http(server.url, 'POST', `/admin/deliveries/${delivery?.id ?? ''}/retry`, { headers: admin });
    expect(retried.status, retried.text).toBe(202);
    expect(retried.json.status).toBe('pending');
    const [, again] = await receiver.waitFor(2);
    expect(again?.id).toBe(delivery?.eventId);

    const replayed = await graphql(`mutation { adminReplayEvents(endpoint: "added", eventId: ${JSON.stringify(delivery?.eventId)}) { queued } }`);
    expect(replayed.json.data.adminReplayEvents).toEqual({ queued: 1 });
    const [, , third] = await receiver.waitFor(3);
    expect(third?.id).toBe(delivery?.eventId);
    expect(receiver.unverified).toEqual([]);
  });

  it('sends nothing while paused, sends again once resumed, and nothing after removal', async () => {
    const paused = await http(server.url, 'PATCH', '/admin/webhooks/added', { headers: admin, body: { paused: true } });
    expect(paused.json.paused).toBe(true);
    const before = receiver.received.length;
    const during = await createPost('While paused');
    // Something that is delivered after it shows the pause held: the configuration file's endpoint hears a new user.
    const heard = configured.received.length;
    expect((await http(server.url, 'POST', '/users', { body: { name: 'N', email: `n-${ctx.dialect}@example.com` } })).status).toBe(201);
    await configured.waitFor(heard + 1);
    await eventually(async () => ((await http(server.url, 'GET', `/admin/deliveries?endpoint=added&limit=500`, { headers: admin })).json.data.length > 0 ? true : undefined));
    const resumed = await graphql('mutation { adminUpdateWebhookEndpoint(name: "added", input: { paused: false }) { paused } }');
    expect(resumed.json.data.adminUpdateWebhookEndpoint.paused).toBe(false);
    const after = await createPost('After');
    const next = await receiver.waitFor(before + 1);
    expect(next.map((received) => received.payload.data['id'])).not.toContain(during);
    expect(next[before]?.payload.data['id']).toBe(after);

    const removed = await http(server.url, 'DELETE', '/admin/webhooks/added', { headers: admin });
    expect(removed.status).toBe(204);
    expect(codeOf(await http(server.url, 'GET', '/admin/webhooks/added', { headers: admin }))).toBe('NOT_FOUND');
    expect((await graphql('{ adminWebhookEndpoint(name: "added") { name } }')).json.data.adminWebhookEndpoint).toBeNull();
    const count = receiver.received.length;
    await createPost('After removal');
    const heardAgain = configured.received.length;
    expect((await http(server.url, 'POST', '/users', { body: { name: 'M', email: `m-${ctx.dialect}@example.com` } })).status).toBe(201);
    await configured.waitFor(heardAgain + 1);
    expect(receiver.received.length).toBe(count);
  });

  it('reports an endpoint’s problems with pointers, the same in both styles', async () => {
    const body = { name: 'bad', url: 'ftp://example.com/', events: ['post.creatd'], secret: 'not-a-secret', timeoutMs: -1 };
    const rest = await http(server.url, 'POST', '/admin/webhooks', { headers: admin, body });
    expect(rest.status).toBe(400);
    expect(rest.json.code).toBe('VALIDATION_FAILED');
    const pointers = (rest.json.errors as { pointer: string }[]).map((error) => error.pointer).sort();
    expect(pointers).toEqual(['/timeoutMs', '/url']);
    const semantic = await http(server.url, 'POST', '/admin/webhooks', { headers: admin, body: { ...body, url: 'http://127.0.0.1:9/', timeoutMs: 1000 } });
    expect((semantic.json.errors as { pointer: string; detail: string }[]).map((error) => error.pointer).sort()).toEqual(['/events/0', '/secret']);
    expect(semantic.text).toContain('post.created');
    const gql = await graphql('mutation($input: AdminWebhookEndpointInput!) { adminCreateWebhookEndpoint(input: $input) { name } }', { input: { ...body, url: 'http://127.0.0.1:9/', timeoutMs: 1000 } });
    expect(codeOf(gql)).toBe('VALIDATION_FAILED');
    expect(gql.json.errors[0].extensions.errors).toEqual(semantic.json.errors);
  });
});
