import { setTimeout as delay } from 'node:timers/promises';
import { Worker } from 'node:worker_threads';
import { SignJWT } from 'jose';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Database } from '../../src/storage/dialect.js';
import { describeEachDialect, type DialectContext } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { startServer, type TestServer } from '../support/start-server.js';
import { gql } from '../graphql/graphql-client.js';

const SECRET = 'rules-concurrency-secret-0123456789abcdef';
const ADMIN_KEY = 'rules-concurrency-admin-key-0123456789';

/**
 * Another connection, in the middle of a transaction that gives a post to
 * someone else: it holds the post's row (PostgreSQL) or the write lock
 * (SQLite) until `commit`.
 */
interface LockHolder {
  /** BEGIN, then the change, left uncommitted. */
  hold(sql: string, params: readonly string[]): Promise<void>;
  /** Resolves once a Diglot write is waiting for what the holder holds. */
  blocked(): Promise<void>;
  commit(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The rules of an update are checked on the committed row, under its lock
 * (engine/write-executor.ts): an author whose post is given away while
 * their edit waits for the lock is refused, and nothing is written.
 */
describeEachDialect('Write rules under a concurrent change of owner', (ctx) => {
  let server: TestServer;
  let holder: LockHolder;
  /** SQLite: a Diglot transaction asked for while armed tells the holder's thread (see sqliteHolder). */
  const gate = { armed: false, entered: (): void => undefined };
  let alice: string;
  let bob: string;
  let aliceToken: string;

  beforeAll(async () => {
    server = await startServer(async () => gated(await ctx.open(), gate), {
      rules: true,
      seed: { counts: { User: 4, Post: 4, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: { auth: { jwtSecret: SECRET, adminKey: ADMIN_KEY } },
    });
    const users = (await http(server.url, 'GET', '/users?limit=2&fields=id')).json.data as { id: string }[];
    alice = (users[0] as { id: string }).id;
    bob = (users[1] as { id: string }).id;
    aliceToken = await new SignJWT({ sub: alice, role: 'MEMBER' })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(SECRET));
    holder = ctx.dialect === 'postgres' ? await postgresHolder(ctx) : sqliteHolder(ctx, gate);
  });
  afterAll(async () => {
    await holder.close();
    await server.close();
  });

  const admin = (method: string, path: string, body?: unknown): Promise<HttpResponse> =>
    http(server.url, method, path, { headers: { authorization: `Bearer ${ADMIN_KEY}` }, ...(body === undefined ? {} : { body }) });

  const edits: Record<'REST' | 'GraphQL', (id: string) => Promise<HttpResponse>> = {
    REST: (id) => http(server.url, 'PATCH', `/posts/${id}`, { headers: { authorization: `Bearer ${aliceToken}` }, body: { title: 'Edited' } }),
    GraphQL: (id) => gql(server.url, `mutation { updatePost(id: "${id}", input: { title: "Edited" }) { id } }`, undefined, { authorization: `Bearer ${aliceToken}` }),
  };
  const codeOf = (response: HttpResponse): string | undefined => response.json?.code ?? response.json?.errors?.[0]?.extensions?.code;

  // A published post given away is still visible to Alice: 403. A draft given away is no longer hers to see: 404.
  for (const [status, code, httpStatus] of [
    ['PUBLISHED', 'FORBIDDEN', 403],
    ['DRAFT', 'NOT_FOUND', 404],
  ] as const) {
    for (const style of ['REST', 'GraphQL'] as const) {
      it(`refuses Alice's ${style} edit of her ${status.toLowerCase()} post given to Bob while the edit waits (${code})`, async () => {
        const created = await admin('POST', '/posts', { title: 'Before', body: 'B', author: alice, status });
        expect(created.status).toBe(201);
        const id = created.json.id as string;
        const post = server.model.typesByName.get('Post');
        const author = post?.fieldsByName.get('author');
        if (post === undefined || author?.kind !== 'toOne') throw new Error('the example has Post.author');
        const q = (name: string): string => server.db.sql.quoteIdent(name);
        const p = (i: number): string => server.db.sql.placeholder(i);
        await holder.hold(`UPDATE ${q(post.table)} SET ${q(author.column)} = ${p(0)} WHERE ${q('id')} = ${p(1)}`, [bob, id]);

        const edit = edits[style](id);
        await holder.blocked();
        await holder.commit();
        const response = await edit;

        if (style === 'REST') expect(response.status).toBe(httpStatus);
        else expect(response.json.data).toBeNull();
        expect(codeOf(response)).toBe(code);
        const stored = await admin('GET', `/posts/${id}?fields=title,author`);
        expect(stored.json).toEqual({ title: 'Before', author: bob });
      });
    }
  }
});

/**
 * The database as opened, with `transaction` telling `gate` when it is
 * called while armed: on SQLite that is the moment a Diglot write asks for
 * the write lock the holder's thread has. Everything else is the database's
 * own (bound to it: its members are private fields).
 */
function gated(db: Database, gate: { armed: boolean; entered: () => void }): Database {
  return new Proxy(db, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (key === 'transaction') {
        return (work: Parameters<Database['transaction']>[0]) => {
          if (gate.armed) {
            gate.armed = false;
            gate.entered();
          }
          return target.transaction(work);
        };
      }
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** PostgreSQL: a second client's transaction holds the post's row; the edit's row lock waits, which pg_locks shows. */
async function postgresHolder(ctx: DialectContext): Promise<LockHolder> {
  const client = new pg.Client({ connectionString: ctx.url });
  await client.connect();
  const watcher = new pg.Client({ connectionString: ctx.url });
  await watcher.connect();
  return {
    hold: async (sql, params) => {
      await client.query('BEGIN');
      await client.query(sql, [...params]);
    },
    blocked: async () => {
      // Polling, not a timed assertion: the test goes on as soon as the edit waits for the lock.
      for (;;) {
        const { rows } = await watcher.query<{ waiting: string }>(
          `SELECT count(*) AS waiting FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE NOT l.granted AND a.datname = current_database() AND l.pid <> $1`,
          [(client as unknown as { processID: number }).processID],
        );
        if (Number(rows[0]?.waiting) > 0) return;
        await delay(5);
      }
    },
    commit: async () => {
      await client.query('COMMIT');
    },
    close: async () => {
      await client.end();
      await watcher.end();
    },
  };
}

/**
 * SQLite: a connection on another thread (better-sqlite3 is synchronous; the
 * server's thread busy-waits for the lock) takes the write lock with BEGIN
 * IMMEDIATE and makes the change. It commits once the server's write has
 * asked for its transaction: the write lock serialises writers, so the
 * edit's transaction starts only after that COMMIT, and its rule check sees
 * the new owner.
 */
function sqliteHolder(ctx: DialectContext, gate: { armed: boolean; entered: () => void }): LockHolder {
  let worker: Worker | undefined;
  let committed: Promise<void> = Promise.resolve();
  let entered: Promise<void> = Promise.resolve();
  return {
    hold: async (sql, params) => {
      const signal = new Int32Array(new SharedArrayBuffer(4));
      const code = `
        const { parentPort, workerData } = require('node:worker_threads');
        const Database = require('better-sqlite3');
        const db = new Database(workerData.file);
        db.exec('BEGIN IMMEDIATE');
        db.prepare(workerData.sql).run(...workerData.params);
        parentPort.postMessage('holding');
        // Wakes when the server's write asks for the lock (bounded, so a broken test cannot hang).
        Atomics.wait(workerData.signal, 0, 0, 30000);
        db.exec('COMMIT');
        db.close();
        parentPort.postMessage('committed');
      `;
      const started = new Worker(code, { eval: true, workerData: { file: ctx.url, sql, params, signal } });
      worker = started;
      const message = (expected: string): Promise<void> =>
        new Promise((resolve, reject) => {
          const onMessage = (value: unknown): void => {
            if (value !== expected) return;
            started.off('message', onMessage);
            resolve();
          };
          started.on('message', onMessage);
          started.once('error', reject);
        });
      const holding = message('holding');
      committed = message('committed');
      await holding;
      entered = new Promise<void>((resolve) => {
        gate.entered = () => {
          Atomics.store(signal, 0, 1);
          Atomics.notify(signal, 0);
          resolve();
        };
      });
      gate.armed = true;
    },
    blocked: () => entered,
    commit: () => committed,
    close: async () => {
      await worker?.terminate();
    },
  };
}
