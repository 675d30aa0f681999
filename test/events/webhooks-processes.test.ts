import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect, describePostgres } from '../support/databases.js';
import { http } from '../support/http.js';
import { EXAMPLE_SCHEMA, startServer, type TestServer } from '../support/start-server.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const BIN = join(ROOT, 'dist/cli/main.js');
const ADMIN_KEY = 'webhooks-process-admin-key-0123456789';
const work = mkdtempSync(join(tmpdir(), 'diglot-webhooks-'));
const secret = (): string => `whsec_${randomBytes(24).toString('base64')}`;

/** The CLI runs from its compiled output, as users run it. */
beforeAll(() => {
  const build = spawnSync(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json')], { encoding: 'utf8' });
  expect(build.status, build.stdout + build.stderr).toBe(0);
}, 120_000);

/** `diglot serve` on `db` with `config`; resolves with its origin once it prints its URL. */
async function serve(db: string, config: string): Promise<{ child: ChildProcess; origin: string }> {
  const child = spawn(process.execPath, [BIN, 'serve', '--schema', EXAMPLE_SCHEMA, '--db', db, '--port', '0', '--config', config], {
    cwd: ROOT,
    env: { ...process.env, LOG_LEVEL: 'error', DIGLOT_ADMIN_KEY: ADMIN_KEY },
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const origin = await new Promise<string>((resolve, reject) => {
    child.stderr.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = /REST API\s+(http:\/\/[^/\s]+)/.exec(out);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`exited ${String(code)}: ${err}`)));
  });
  return { child, origin };
}

function killHard(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

describeEachDialect('Webhooks survive kill -9 between commit and delivery', (ctx) => {
  let receiver: WebhookReceiver;
  const children: ChildProcess[] = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) await killHard(child);
    await receiver.close();
  });

  it('an event committed while the receiver is down arrives after the server is killed and started again', async () => {
    const key = secret();
    receiver = await startReceiver(key);
    await receiver.down();
    const config = join(work, `config-${ctx.dialect}.json`);
    writeFileSync(config, JSON.stringify({ events: { pollMs: 200 }, webhooks: [{ name: 'shop', url: receiver.url, events: ['product.*'], secret: key, backoffMs: 100, timeoutMs: 2000 }] }));
    const db = ctx.dialect === 'sqlite' ? join(work, 'kill.db') : ctx.url;

    const first = await serve(db, config);
    children.push(first.child);
    const created = await http(first.origin, 'POST', '/products', { headers: { authorization: `Bearer ${ADMIN_KEY}` }, body: { name: 'Lamp', sku: `lamp-${ctx.dialect}`, price: 12 } });
    expect(created.status).toBe(201);
    // The write is acknowledged, so committed; the receiver is down, so it cannot have been delivered.
    await killHard(first.child);
    expect(receiver.received).toEqual([]);

    await receiver.up();
    const second = await serve(db, config);
    children.push(second.child);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery?.payload).toMatchObject({ type: 'product.created', data: { id: created.json.id, record: { name: 'Lamp', price: 12 } }, principal: { via: 'admin-key' } });
    expect(receiver.unverified).toEqual([]);

    // The CLI shows it delivered (and reads the same database the server writes).
    const cli = (args: string[]) => spawnSync(process.execPath, [BIN, 'webhooks', ...args, '--schema', EXAMPLE_SCHEMA, '--db', db, '--config', config], { encoding: 'utf8', cwd: ROOT });
    let listed = '';
    for (let i = 0; i < 100 && !/shop .*\s1\s+0\s*$/m.test(listed); i++) {
      listed = cli(['list']).stdout;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(listed).toMatch(/^shop\s+http:\/\/\S+\s+product\.\*\s+config\s+0\s+1\s+0\s*$/m);
    const deliveries = cli(['deliveries', '--attempts']);
    expect(deliveries.status, deliveries.stderr).toBe(0);
    expect(deliveries.stdout).toContain(delivery?.id);
    expect(deliveries.stdout).toMatch(/delivered/);
    await killHard(second.child);
  }, 60_000);
});

describe('The configuration file, from the command line', () => {
  it('refuses an unknown key with a suggestion, and a pattern no event has, before serving', () => {
    const bad = join(work, 'bad.json');
    writeFileSync(bad, JSON.stringify({ webhooks: [{ url: 'http://127.0.0.1:9/h', events: ['post.created'], secret: secret(), timeout: 5 }] }));
    const run = (config: string) =>
      spawnSync(process.execPath, [BIN, 'serve', '--schema', EXAMPLE_SCHEMA, '--db', join(work, 'config.db'), '--port', '0', '--config', config], { encoding: 'utf8', cwd: ROOT, timeout: 60_000 });
    const unknown = run(bad);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('webhooks[0].timeout: unknown key; did you mean "timeoutMs"?');
    writeFileSync(bad, JSON.stringify({ webhooks: [{ url: 'http://127.0.0.1:9/h', events: ['post.craeted'], secret: secret() }] }));
    const pattern = run(bad);
    expect(pattern.status).toBe(1);
    expect(pattern.stderr).toContain('"post.craeted" matches no event type; did you mean "post.created"?');
  });
});

describePostgres('Webhooks from two instances on one PostgreSQL database', (ctx) => {
  let a: TestServer;
  let b: TestServer;
  let receiver: WebhookReceiver;
  afterAll(async () => {
    await a.close();
    await b.close();
    await receiver.close();
  });

  it('each event is delivered once, whichever instance wrote it and whichever sends it', async () => {
    const key = secret();
    receiver = await startReceiver(key);
    const events = { webhooks: [{ name: 'all', url: receiver.url, events: ['post.created'], secret: key, backoffMs: 50 }], pollMs: 100 };
    a = await startServer(() => ctx.open(), { seed: { counts: { User: 2, Post: 1, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 0 }, server: { events } });
    b = await startServer(() => ctx.open(), { seed: false, server: { events } });
    const author = ((await http(a.url, 'GET', '/users?limit=1&fields=id')).json.data as { id: string }[])[0]?.id;
    const ids = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const created = await http(i % 2 === 0 ? a.url : b.url, 'POST', '/posts', { body: { title: `p${i}`, body: 'b', author } });
        return created.json.id as string;
      }),
    );
    await receiver.waitFor(40);
    // Both instances poll and wake each other (NOTIFY) all along: give them time to (wrongly) send more.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const got = receiver.received.map((d) => d.payload.data['id'] as string);
    expect(got).toHaveLength(40);
    expect(new Set(got)).toEqual(new Set(ids));
  }, 60_000);
});
