/**
 * Two `diglot serve` processes on one SQLite file, as the CLI runs them:
 * SQLite lets several processes share a file (WAL; a write waits for the
 * other's lock), and they have no channel to tell each other. A suspension
 * or an API key revocation made through one reaches the other through a
 * generation it moves, which each process looks at once a second when the
 * file changed: refused there within that second (not when the key's
 * 5-second trust runs out, and not never, as for a suspension before), the
 * stream the key opened there ended, and a lifted suspension lifted there too.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildIfStale, EXAMPLE_SCHEMA, freePort, startInstance, type Instance } from '../support/cluster.js';
import { describeSqlite } from '../support/databases.js';
import { http, untilCode } from '../support/http.js';
import { openEventSource } from '../support/live-clients.js';
import { eventually } from '../support/uploads.js';

const ADMIN_KEY = 'sqlite-processes-admin-key-0123456789abcdef';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
// Shorter than the 5 s an API key is trusted from memory: only the generation can make the other process refuse it in time.
const HEARD_WITHIN_MS = 2500;

describeSqlite('two processes on one SQLite file', (ctx) => {
  const processes: Instance[] = [];
  beforeAll(async () => {
    // The processes run the compiled CLI, as users run it.
    buildIfStale();
    const args = ['--schema', EXAMPLE_SCHEMA, '--db', ctx.url, '--files', join(ctx.url, '..', 'files'), '--rate-limit-anonymous', 'off', '--rate-limit-member', 'off'];
    // One after the other: the second finds the database migrated and the first's signing key in it.
    for (const name of ['a', 'b']) processes.push(await startInstance(name, await freePort(), args, { DIGLOT_ADMIN_KEY: ADMIN_KEY }));
  }, 120_000);
  afterAll(async () => {
    for (const instance of processes) {
      instance.child.kill('SIGTERM');
      await instance.exited;
    }
  });

  it('an account suspended through one process is refused by the other within a second, and let in again once the suspension is lifted', async () => {
    const [a, b] = processes as [Instance, Instance];
    const session = await http(a.url, 'POST', '/auth/sign-up', { body: { name: 'Shared', email: 'shared@example.com', password: 'a-long-password-1' } });
    expect(session.status, session.text).toBe(201);
    const id = String(session.json.accountId);
    const bearer = { authorization: `Bearer ${String(session.json.accessToken)}` };
    const read = (): ReturnType<typeof http> => http(b.url, 'GET', `/users/${id}`, { headers: bearer });
    // B verifies A's token (one signing key, in the file) and remembers it.
    expect((await read()).status).toBe(200);

    const suspended = await http(a.url, 'PUT', `/admin/accounts/${id}/suspension`, { headers: admin, body: { reason: 'abuse' } });
    expect(suspended.status, suspended.text).toBe(200);
    await untilCode(read, 'ACCOUNT_SUSPENDED', HEARD_WITHIN_MS);
    const graphql = await http(b.url, 'POST', '/graphql', { headers: bearer, body: { query: `{ user(id: ${JSON.stringify(id)}) { id } }` } });
    expect(graphql.json.errors?.[0]?.extensions?.code).toBe('ACCOUNT_SUSPENDED');

    expect((await http(a.url, 'DELETE', `/admin/accounts/${id}/suspension`, { headers: admin })).status).toBe(200);
    await eventually(async () => (await read()).status === 200, HEARD_WITHIN_MS);
  });

  it('an API key revoked through one process is refused by the other within a second, and the stream it opened there ends', async () => {
    const [a, b] = processes as [Instance, Instance];
    const made = await http(a.url, 'POST', '/admin/api-keys', { headers: admin, body: { name: 'shared-key', role: 'MEMBER' } });
    expect(made.status, made.text).toBe(201);
    const bearer = { authorization: `Bearer ${String(made.json.key)}` };
    const read = (): ReturnType<typeof http> => http(b.url, 'GET', '/posts?limit=1', { headers: bearer });
    const live = openEventSource(`${b.url}/posts?limit=1`, bearer);
    try {
      await live.opened;
      expect((await live.events.next()).type).toBe('update');
      // Looked up just now, so trusted from memory for 5 s more.
      expect((await read()).status).toBe(200);
      const revoked = await http(a.url, 'DELETE', `/admin/api-keys/${String(made.json.id)}`, { headers: admin });
      expect(revoked.status, revoked.text).toBe(200);
      await untilCode(read, 'UNAUTHENTICATED', HEARD_WITHIN_MS);
      const ended = await live.events.next();
      expect(ended.type).toBe('problem');
      expect(ended.data.code).toBe('UNAUTHENTICATED');
    } finally {
      live.close();
    }
  });
});
