import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createWebhookAdmin, type WebhookAdmin } from '../../src/events/webhook-admin.js';
import type { WebhookOptions } from '../../src/events/webhook-options.js';
import { eventsOf } from '../../src/server/create-server.js';
import { describeEachDialect } from '../support/databases.js';
import { http } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const secret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** Resolves once `check` holds, polling; rejects after `ms` (no timing is asserted, only that it happens). */
async function eventually<T>(check: () => Promise<T | undefined> | T | undefined, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Webhooks through real receivers over HTTP: signed (verified with the
 * standardwebhooks library), retried with backoff on errors and timeouts,
 * dead after their retry window, retried and replayed by hand, and one
 * endpoint that hangs never holding up another.
 */
describeEachDialect('Webhooks: at least once, signed, retried', (ctx) => {
  let server: TestServer;
  let admin: WebhookAdmin;
  const secrets = { main: secret(), flaky: secret(), dying: secret(), stuck: secret(), published: secret() };
  const receivers = {} as Record<keyof typeof secrets, WebhookReceiver>;
  let webhooks: WebhookOptions[];

  const createPost = async (title: string, status = 'DRAFT'): Promise<string> => {
    const users = (await http(server.url, 'GET', '/users?limit=1&fields=id')).json.data as { id: string }[];
    const created = await http(server.url, 'POST', '/posts', { body: { title, body: 'b', status, author: users[0]?.id } });
    expect(created.status).toBe(201);
    return created.json.id as string;
  };
  const deliveriesOf = (endpoint: string) => admin.deliveries({ endpoint, limit: 100 });

  beforeAll(async () => {
    for (const name of Object.keys(secrets) as (keyof typeof secrets)[]) receivers[name] = await startReceiver(secrets[name]);
    receivers.stuck.otherwise = 'hang';
    const base = { timeoutMs: 400, backoffMs: 40, retryForMs: 60_000 };
    webhooks = [
      { name: 'main', url: receivers.main.url, events: ['post.created', 'user.*'], secret: secrets.main, ...base },
      { name: 'flaky', url: receivers.flaky.url, events: ['post.*'], secret: secrets.flaky, ...base },
      { name: 'dying', url: receivers.dying.url, events: ['post.created'], secret: secrets.dying, ...base, retryForMs: 300 },
      { name: 'stuck', url: receivers.stuck.url, events: ['*'], secret: secrets.stuck, ...base },
      { name: 'published', url: receivers.published.url, events: ['post.created'], filter: { status: { eq: 'PUBLISHED' } }, secret: secrets.published, ...base },
    ];
    server = await startServer(() => ctx.open(), {
      seed: { counts: { User: 2, Post: 2, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 },
      server: { events: { webhooks, pollMs: 200 } },
    });
    admin = createWebhookAdmin(server.model, server.db, { webhooks });
  });
  afterAll(async () => {
    await server.close();
    for (const receiver of Object.values(receivers)) await receiver.close();
  });

  it('delivers a signed event the Standard Webhooks verifier accepts, and logs the attempt', async () => {
    const id = await createPost('Signed');
    const [delivery] = await receivers.main.waitFor(1);
    expect(receivers.main.unverified).toEqual([]);
    expect(delivery?.payload).toMatchObject({ type: 'post.created', data: { id, record: { id, title: 'Signed' } }, principal: { via: 'anonymous' } });
    expect(delivery?.id).toBe(delivery?.payload.id);
    const [logged] = await eventually(async () => {
      const rows = await deliveriesOf('main');
      return rows[0]?.status === 'delivered' ? rows : undefined;
    });
    expect(logged).toMatchObject({ eventId: delivery?.id, status: 'delivered', attempts: 1, lastCode: 200 });
    const [attempt] = await admin.attempts(logged?.id ?? '');
    expect(attempt).toMatchObject({ attempt: 1, outcome: 'ok', code: 200 });
    expect(attempt?.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('retries after a 500 and a timeout, with the same id and signature scheme, until it is delivered', async () => {
    await eventually(async () => ((await deliveriesOf('flaky')).every((d) => d.status === 'delivered') ? true : undefined));
    receivers.flaky.respond(500, 'hang', 503);
    const id = await createPost('Flaky');
    const mine = (): typeof receivers.flaky.received => receivers.flaky.received.filter((d) => d.payload.data['id'] === id);
    const got = await eventually(() => (mine().length >= 4 ? mine() : undefined));
    expect(got.map((d) => d.answered)).toEqual([500, 'hang', 503, 200]);
    expect(new Set(got.map((d) => d.id)).size).toBe(1);
    const delivery = await eventually(async () => (await deliveriesOf('flaky')).find((d) => d.eventId === got[0]?.id && d.status === 'delivered'));
    const attempts = await admin.attempts(delivery.id);
    expect(attempts.map((a) => [a.outcome, a.code])).toEqual([
      ['http', 500],
      ['timeout', null],
      ['http', 503],
      ['ok', 200],
    ]);
  });

  it('moves a delivery that keeps failing past its retry window to dead; retry sends it again', async () => {
    receivers.dying.otherwise = 500;
    await createPost('Doomed');
    const dead = await eventually(async () => (await deliveriesOf('dying')).find((d) => d.status === 'dead'));
    expect(dead.attempts).toBeGreaterThanOrEqual(1);
    expect(dead.lastCode).toBe(500);
    receivers.dying.otherwise = 200;
    expect(await admin.retry(dead.id)).toBe(true);
    eventsOf(server.app).wake();
    await eventually(async () => ((await deliveriesOf('dying')).find((d) => d.id === dead.id)?.status === 'delivered' ? true : undefined));
    expect(receivers.dying.received.at(-1)).toMatchObject({ id: dead.eventId, answered: 200 });
    expect(await admin.retry('no-such-delivery')).toBe(false);
  });

  it('a network error (nobody listening) is retried, and delivered once the receiver is back', async () => {
    await receivers.flaky.down();
    await createPost('While down');
    const failing = await eventually(async () => (await deliveriesOf('flaky')).find((d) => d.status === 'pending' && d.attempts > 0 && d.lastCode === null));
    const [attempt] = await admin.attempts(failing.id);
    expect(attempt?.outcome).toBe('network');
    await receivers.flaky.up();
    await eventually(async () => ((await deliveriesOf('flaky')).find((d) => d.id === failing.id)?.status === 'delivered' ? true : undefined));
  });

  it('an endpoint that never answers holds up no other', async () => {
    const before = receivers.main.received.length;
    for (let i = 0; i < 3; i++) await createPost(`Busy ${i}`);
    await receivers.main.waitFor(before + 3);
    // Meanwhile the stuck endpoint has answered nothing: every one of its deliveries is still pending.
    const stuck = await deliveriesOf('stuck');
    expect(stuck.length).toBeGreaterThan(0);
    expect(stuck.every((d) => d.status === 'pending')).toBe(true);
  });

  it('sends an endpoint with a filter only the events whose record matches it', async () => {
    await createPost('Kept quiet', 'DRAFT');
    const id = await createPost('Announced', 'PUBLISHED');
    const [only] = await receivers.published.waitFor(1);
    expect(only?.payload.data['id']).toBe(id);
    await createPost('Later', 'PUBLISHED');
    await receivers.published.waitFor(2);
    expect(receivers.published.received.map((d) => (d.payload.data['record'] as { status: string }).status)).toEqual(['PUBLISHED', 'PUBLISHED']);
  });

  it('replay sends past events again with their own ids, to the endpoints that want them', async () => {
    const since = new Date(Date.now() - 60_000);
    const before = receivers.published.received.length;
    const ids = receivers.published.received.map((d) => d.id);
    const queued = await admin.replay(since, 'published');
    expect(queued).toBe(ids.length);
    eventsOf(server.app).wake();
    const again = (await receivers.published.waitFor(before + queued)).slice(before);
    expect(again.map((d) => d.id).sort()).toEqual([...ids].sort());
    await expect(admin.replay(since, 'nobody')).rejects.toThrow(/no webhook is named nobody/);
  });

  it('lists the endpoints with their deliveries by status', async () => {
    const list = await admin.list();
    expect(list.map((e) => e.name)).toEqual(['main', 'flaky', 'dying', 'stuck', 'published']);
    expect(list.find((e) => e.name === 'stuck')?.delivered).toBe(0);
    expect(list.find((e) => e.name === 'main')?.delivered).toBeGreaterThan(0);
  });
});
