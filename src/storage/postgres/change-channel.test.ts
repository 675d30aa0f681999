import { afterAll, beforeAll, expect, it } from 'vitest';
import { describePostgres } from '../../../test/support/databases.js';
import { startTcpProxy, type TcpProxy } from '../../../test/support/tcp-proxy.js';
import type { Database } from '../dialect.js';
import { ChangeChannel, type ChannelListener } from './change-channel.js';

/** Calls until `check` holds, or gives up after `attempts` (no timing is asserted: it only bounds the wait). */
async function until(check: () => boolean | Promise<boolean>, attempts = 100): Promise<void> {
  for (let attempt = 0; attempt < attempts && !(await check()); attempt++) await new Promise((resolve) => setTimeout(resolve, 100));
}

/**
 * The one listening connection of a PostgreSQL process: table changes and
 * the other channels (the event hub's) on it, and both heard again after
 * the database was away for longer than one retry.
 */
describePostgres('ChangeChannel', (ctx) => {
  let proxy: TcpProxy;
  let db: Database;
  let channel: ChangeChannel;

  beforeAll(async () => {
    const direct = new URL(ctx.url);
    proxy = await startTcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
    const viaProxy = new URL(ctx.url);
    viaProxy.port = String(proxy.port);
    db = await ctx.open();
    channel = new ChangeChannel(viaProxy.toString(), (sql, params) => db.run(sql, params), { connectTimeoutMs: 1000, logger: undefined, alone: () => false });
  });
  afterAll(async () => {
    await channel.close();
    await proxy.close();
  });

  const notify = (name: string, payload: string): Promise<unknown> => db.run('SELECT pg_notify($1, $2)', [name, payload]);

  it('hears its channels after an outage longer than a retry, told first that it may have missed some', async () => {
    const heard: (string | undefined)[] = [];
    const listener: ChannelListener = (payload) => heard.push(payload);
    const { stop } = channel.listen('diglot_test_events', listener);
    try {
      await until(async () => {
        await notify('diglot_test_events', 'before');
        return heard.includes('before');
      });
      expect(heard).toContain('before');
      await proxy.cut();
      // Refused for a while: several attempts fail before the database is back.
      await new Promise((resolve) => setTimeout(resolve, 2500));
      heard.length = 0;
      await proxy.resume();
      await until(async () => {
        await notify('diglot_test_events', 'after');
        return heard.includes('after');
      });
      expect(heard).toContain('after');
      // The reconnection said "anything may have been missed" before the first payload.
      expect(heard.indexOf(undefined)).toBeLessThan(heard.indexOf('after'));
    } finally {
      stop();
    }
  });

  it('stops calling a listener that is gone', async () => {
    const heard: (string | undefined)[] = [];
    const other: (string | undefined)[] = [];
    const { stop } = channel.listen('diglot_test_gone', (payload) => heard.push(payload));
    const { stop: keep } = channel.listen('diglot_test_kept', (payload) => other.push(payload));
    try {
      await until(async () => {
        await notify('diglot_test_kept', 'kept');
        return other.includes('kept');
      });
      stop();
      await notify('diglot_test_gone', 'late');
      await notify('diglot_test_kept', 'last');
      await until(() => other.includes('last'));
      expect(other).toContain('last');
      expect(heard).not.toContain('late');
    } finally {
      keep();
    }
  });
});
