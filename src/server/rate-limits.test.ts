import { describe, expect, it } from 'vitest';
import { ANONYMOUS, type Principal } from '../plan/principal.js';
import type { Database } from '../storage/dialect.js';
import { clientKey } from '../plan/request-context.js';
import { createRateLimits } from './rate-limits.js';

/** Without `rateCounts` the limits count in memory alone: nothing else of the database is touched. */
const memoryOnly = {} as Database;

const who = (via: Principal['via'], id: string | null, role: string | null, admin = false): Principal => ({ id, role, claims: {}, admin, via });

describe('rate-limit policies', () => {
  it('counts anonymous callers by address and everyone else by who they are', () => {
    expect(clientKey(ANONYMOUS, '10.0.0.1')).toBe('ip:10.0.0.1');
    expect(clientKey(who('jwt', '42', 'MEMBER'), '10.0.0.1')).toBe('account:42');
    expect(clientKey(who('api-key', 'k1', 'MEMBER'), '10.0.0.1')).toBe('key:k1');
    // A token's own claims (a refreshed token's new iat, exp and sid) do not make another client.
    expect(clientKey({ ...who('jwt', '42', 'MEMBER'), claims: { iat: 1, sid: 'a' } }, '10.0.0.2')).toBe('account:42');
  });

  it('gives a role its own policy, the others the member one, and the admin none unless named', async () => {
    const limits = await createRateLimits({ roles: { MODERATOR: { points: 5, window: 1 } } }, memoryOnly, ['MEMBER', 'MODERATOR', 'ADMIN']);
    expect(limits?.policyOf(ANONYMOUS)?.header).toBe('"anonymous";q=100000;w=60');
    expect(limits?.policyOf(who('jwt', '1', 'MEMBER'))?.header).toBe('"member";q=1000000;w=60');
    expect(limits?.policyOf(who('jwt', '1', 'MODERATOR'))?.header).toBe('"moderator";q=5;w=1');
    expect(limits?.policyOf(who('admin-key', null, 'ADMIN', true))).toBeUndefined();
    const capped = await createRateLimits({ roles: { ADMIN: { points: 9, window: 60 } } }, memoryOnly, ['MEMBER', 'ADMIN']);
    expect(capped?.policyOf(who('jwt', '1', 'ADMIN', true))?.points).toBe(9);
    expect(await createRateLimits(false, memoryOnly)).toBeUndefined();
  });

  it('refuses options it does not know, roles the schema does not have and budgets that are not budgets', async () => {
    await expect(createRateLimits({ anonymus: { points: 1, window: 1 } } as never, memoryOnly)).rejects.toThrow(/Unknown rateLimits option "anonymus"/);
    await expect(createRateLimits({ roles: { MODERATR: { points: 1, window: 1 } } }, memoryOnly, ['MEMBER', 'MODERATOR'])).rejects.toThrow(/MEMBER, MODERATOR/);
    await expect(createRateLimits({ member: { points: 0, window: 1 } }, memoryOnly)).rejects.toThrow(/points must be a positive whole number/);
    await expect(createRateLimits({ member: { points: 1, window: 0 } }, memoryOnly)).rejects.toThrow(/window must be a positive number/);
    await expect(createRateLimits({ exchangeInterval: 0 }, memoryOnly)).rejects.toThrow(/exchangeInterval must be a positive number of seconds/);
  });
});
