/**
 * Three Diglot instances, as the CLI runs them, on one PostgreSQL database,
 * behind a real HAProxy with health checks on /readyz (test/support/cluster.ts
 * holds the configuration docs/production.md shows). They behave as one
 * server: a write on one invalidates a validator on another and reaches a
 * live reader on a third; an upload through one is served, resized, by
 * another, with the files in S3-compatible object storage (a real S3 server,
 * test/support/s3-server.ts) and no directory shared, and a variant asked of
 * all three at once is made once; a rolling restart of all three under a
 * steady mixed load answers every request; a `kill -9` fails only the
 * requests that instance had in flight, and loses no write it acknowledged.
 */
import { spawnSync } from 'node:child_process';
import { SignJWT } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../support/databases.js';
import { http } from '../support/http.js';
import { dimensions, png } from '../support/images.js';
import { openEventSource } from '../support/live-clients.js';
import { startS3Server, type S3TestServer } from '../support/s3-server.js';
import { keyOf, putFile } from '../support/uploads.js';
import {
  BIN,
  buildIfStale,
  EXAMPLE_SCHEMA,
  ROOT,
  freePort,
  haproxyPath,
  restartInstance,
  startBalancer,
  startInstance,
  untilState,
  type Balancer,
  type Instance,
} from '../support/cluster.js';

const SECRET = 'cluster-test-secret-of-a-decent-length';
const MEMBER = '7';
const haproxy = haproxyPath();
if (haproxy === undefined && process.env['CI'] !== undefined) throw new Error('HAProxy is not installed: .ci/run installs it (apt-get install -y haproxy)');

/** One request of the load: when it started and ended, and how it ended. */
interface Outcome {
  readonly method: string;
  readonly path: string;
  readonly started: number;
  readonly ended: number;
  readonly status: number | undefined;
  readonly error: string | undefined;
  /** The id of the post a successful POST created. */
  readonly created: string | undefined;
}

/**
 * `workers` clients in a loop through the balancer until `stop()`: reads of a
 * post and a user, a page of posts, a create and an update (about one
 * request in three a write), each as the member whose token they carry.
 */
function steadyLoad(url: string, token: string, postIds: readonly string[], workers: number): { stop(): Promise<Outcome[]>; readonly count: () => number } {
  const outcomes: Outcome[] = [];
  let running = true;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const pick = <T,>(list: readonly T[]): T => list[Math.floor(Math.random() * list.length)] as T;
  const one = async (n: number): Promise<void> => {
    const kind = n % 6;
    const id = pick(postIds);
    const [method, path, body] =
      kind === 0
        ? ['POST', '/posts', JSON.stringify({ title: `load ${n}`, body: 'steady' })]
        : kind === 1
          ? ['PATCH', `/posts/${id}`, JSON.stringify({ title: `patched ${n}` })]
          : kind === 2
            ? ['GET', `/users/${MEMBER}?fields=id,name`, undefined]
            : kind === 3
              ? ['GET', '/posts?limit=5&fields=id,title', undefined]
              : ['GET', `/posts/${id}`, undefined];
    const started = Date.now();
    try {
      const response = await fetch(`${url}${path}`, { method, headers: body === undefined ? { authorization: headers.authorization } : headers, body });
      const text = await response.text();
      const created = method === 'POST' && response.status === 201 ? (JSON.parse(text) as { id: string }).id : undefined;
      outcomes.push({ method, path, started, ended: Date.now(), status: response.status, error: response.ok ? undefined : text.slice(0, 200), created });
    } catch (error) {
      outcomes.push({ method, path, started, ended: Date.now(), status: undefined, error: String((error as Error).cause ?? error), created: undefined });
    }
  };
  let n = 0;
  const loops = Array.from({ length: workers }, async () => {
    while (running) await one(n++);
  });
  return {
    count: () => outcomes.length,
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return outcomes;
    },
  };
}

/** The requests of a load that failed: no answer, or an error status. */
function failuresOf(outcomes: readonly Outcome[]): Outcome[] {
  return outcomes.filter((outcome) => outcome.status === undefined || outcome.status >= 400);
}

/** Checks that every post a load's POSTs were acknowledged for is in the database. */
async function expectStored(url: string, outcomes: readonly Outcome[]): Promise<void> {
  const created = outcomes.flatMap((outcome) => outcome.created ?? []);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const found = await client.query<{ n: string }>('SELECT count(*) AS n FROM posts WHERE id = ANY($1)', [created]);
    expect(Number(found.rows[0]?.n)).toBe(created.length);
  } finally {
    await client.end();
  }
}

describePostgres('Three instances behind HAProxy', (ctx) => {
  const instances: Instance[] = [];
  let balancer: Balancer | undefined;
  let s3: S3TestServer | undefined;
  let token: string;
  let postIds: string[];
  let args: string[];
  /** Where the files go, and the AWS variables that say how to reach it (as a deployment sets them). */
  const PREFIX = 'cluster/';
  let env: Record<string, string>;

  beforeAll(async () => {
    if (haproxy === undefined) return;
    // The CLI runs from its compiled output, as users run it.
    buildIfStale();
    s3 = await startS3Server();
    env = { AWS_ENDPOINT_URL_S3: s3.endpoint, AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER' };
    const files = `s3://${s3.bucket}/${PREFIX}`;
    const seeded = spawnSync(process.execPath, [BIN, 'seed', '--schema', EXAMPLE_SCHEMA, '--db', ctx.url, '--files', files, '--scale', '0.02'], {
      encoding: 'utf8',
      cwd: ROOT,
      env: { ...process.env, ...env },
    });
    expect(seeded.status, seeded.stderr).toBe(0);
    args = [
      '--schema', EXAMPLE_SCHEMA, '--db', ctx.url, '--files', files, '--jwt-secret', SECRET,
      '--rate-limit-anonymous', 'off', '--rate-limit-member', 'off', '--trust-proxy', 'loopback',
      // Longer than HAProxy needs to see /readyz fail (2 checks 250 ms apart) and stop sending new requests.
      '--drain-delay', '1500',
    ];
    // Started together, as a deployment starts them.
    const ports = await Promise.all([freePort(), freePort(), freePort()]);
    instances.push(...(await Promise.all(['a', 'b', 'c'].map((name, i) => startInstance(name, ports[i] ?? 0, args, env)))));
    balancer = await startBalancer(haproxy, instances);
    token = await new SignJWT({ role: 'MEMBER' }).setProtectedHeader({ alg: 'HS256' }).setSubject(MEMBER).setIssuedAt().setExpirationTime('1h').sign(new TextEncoder().encode(SECRET));
    postIds = [];
    for (let i = 0; i < 10; i++) {
      const created = await http(balancer.url, 'POST', '/posts', { body: { title: `seed ${i}`, body: 'for the load' }, headers: { authorization: `Bearer ${token}` } });
      expect(created.status, created.text).toBe(201);
      postIds.push(created.json.id as string);
    }
  }, 180_000);

  afterAll(async () => {
    await balancer?.stop();
    for (const instance of instances) {
      instance.child.kill('SIGKILL');
      await instance.exited;
    }
    await s3?.stop();
  });

  const a = (): Instance => instances[0] as Instance;
  const b = (): Instance => instances[1] as Instance;
  const c = (): Instance => instances[2] as Instance;
  const lb = (): Balancer => balancer as Balancer;
  const auth = (): Record<string, string> => ({ authorization: `Bearer ${token}` });

  it.skipIf(haproxy === undefined)('three instances started together on a migrated database migrate nothing, and serve through the balancer', async () => {
    // `seed` migrated the database; the migration lock (tested in src/storage) keeps instances from racing on a new one.
    expect(instances.filter((instance) => instance.stderr.includes('migrated:'))).toEqual([]);
    const seen = await http(lb().url, 'GET', '/readyz');
    expect(seen.json).toEqual({ status: 'ready', database: 'postgres' });
  });

  it.skipIf(haproxy === undefined)('a write through one instance invalidates a cached read on another at once', async () => {
    const id = postIds[0] ?? '';
    const first = await http(b().url, 'GET', `/posts/${id}`, { headers: auth() });
    const etag = first.headers.get('etag') ?? '';
    expect((await http(b().url, 'GET', `/posts/${id}`, { headers: { ...auth(), 'if-none-match': etag } })).status).toBe(304);
    const written = await http(a().url, 'PATCH', `/posts/${id}`, { body: { title: 'changed on a' }, headers: auth() });
    expect(written.status).toBe(200);
    const after = await http(b().url, 'GET', `/posts/${id}`, { headers: { ...auth(), 'if-none-match': etag } });
    expect(after.status).toBe(200);
    expect(after.json.title).toBe('changed on a');
    expect(after.headers.get('etag')).not.toBe(etag);
    // And through the balancer, whichever instance answers.
    for (let i = 0; i < 3; i++) expect((await http(lb().url, 'GET', `/posts/${id}`, { headers: { ...auth(), 'if-none-match': etag } })).status).toBe(200);
  });

  it.skipIf(haproxy === undefined)('a live reader on one instance sees a write made on another', async () => {
    const id = postIds[1] ?? '';
    const reader = openEventSource(`${c().url}/posts/${id}`, auth());
    try {
      await reader.opened;
      expect((await reader.events.next()).type).toBe('update');
      expect((await http(a().url, 'PATCH', `/posts/${id}`, { body: { title: 'live from a' }, headers: auth() })).status).toBe(200);
      const update = await reader.events.next();
      expect(update.type).toBe('update');
      expect(update.data.title).toBe('live from a');
    } finally {
      reader.close();
    }
  });

  it.skipIf(haproxy === undefined)('an upload through one instance is served, resized, by another, from object storage; a variant asked of all three at once is made once', async () => {
    const store = s3 as S3TestServer;
    const uploaded = await putFile(a().url, `/users/${MEMBER}/profilePicture`, await png(41, 300, 200), 'picture.png', 'image/png', auth());
    expect(uploaded.status, uploaded.text).toBe(200);
    const read = await http(b().url, 'GET', `/users/${MEMBER}?fields=profilePicture&profilePicture.size=64`, { headers: auth() });
    const url = new URL(read.json.profilePicture as string, b().url);
    expect(url.pathname).toMatch(/\/64$/);
    const key = keyOf(url.pathname);
    // The original went to the bucket once; no instance has a directory of files to share.
    expect(store.count('PUT', `${PREFIX}originals/${key}`)).toBe(1);
    const image = await fetch(`${c().url}${url.pathname}`);
    expect(image.status).toBe(200);
    expect((await dimensions(Buffer.from(await image.arrayBuffer()))).width).toBe(64);
    expect(store.count('PUT', `${PREFIX}variants/${key}/64.*`)).toBe(1);

    // A size none has made yet, asked of the three at once (twice each): one renders and stores it, the others read what it stored.
    const answers = await Promise.all([a(), b(), c(), a(), b(), c()].map((instance) => fetch(`${instance.url}/files/${key}/128`, { headers: { accept: 'image/webp' } })));
    const bodies = await Promise.all(answers.map(async (answer) => Buffer.from(await answer.arrayBuffer())));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 200]);
    expect(new Set(bodies.map((body) => body.toString('base64'))).size).toBe(1);
    expect((await dimensions(bodies[0] as Buffer)).width).toBe(128);
    expect(store.count('PUT', `${PREFIX}variants/${key}/128.*`)).toBe(1);
  });

  it.skipIf(haproxy === undefined)(
    'a rolling restart of all three under a steady mixed load answers every request',
    async () => {
      const load = steadyLoad(lb().url, token, postIds, 24);
      const before = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 500));
      await before();
      for (const instance of instances) {
        instance.child.kill('SIGTERM');
        expect(await instance.exited).toBe(0);
        await restartInstance(instance, args, env);
        await untilState(lb(), instance.name, 'UP');
      }
      await before();
      const outcomes = await load.stop();
      expect(outcomes.length).toBeGreaterThan(300);
      expect(outcomes.filter((outcome) => outcome.method !== 'GET').length).toBeGreaterThan(50);
      expect(failuresOf(outcomes)).toEqual([]);
      // Every write acknowledged is in the database.
      await expectStored(ctx.url, outcomes);
    },
    120_000,
  );

  it.skipIf(haproxy === undefined)(
    'a kill -9 of one instance fails only what it had in flight, and loses no acknowledged write',
    async () => {
      const load = steadyLoad(lb().url, token, postIds, 24);
      await new Promise((resolve) => setTimeout(resolve, 700));
      const victim = b();
      const killedAt = Date.now();
      victim.child.kill('SIGKILL');
      await victim.exited;
      const killedBy = Date.now();
      await untilState(lb(), victim.name, 'DOWN');
      await new Promise((resolve) => setTimeout(resolve, 700));
      const outcomes = await load.stop();
      const failed = failuresOf(outcomes);
      // Only requests under way when the process died; everything sent after it went to the others (a refused connection is retried).
      for (const outcome of failed) {
        expect(outcome.started, JSON.stringify(outcome)).toBeLessThanOrEqual(killedBy);
        expect(outcome.ended, JSON.stringify(outcome)).toBeGreaterThanOrEqual(killedAt);
      }
      // No more than were in flight: one per worker at most.
      expect(failed.length).toBeLessThanOrEqual(24);
      await expectStored(ctx.url, outcomes);
      await restartInstance(victim, args, env);
      await untilState(lb(), victim.name, 'UP');
    },
    60_000,
  );
});
