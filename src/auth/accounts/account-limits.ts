import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import type { SharedRateLimiterOptions } from '../../storage/dialect.js';
import { ApiError } from '../../errors/api-error.js';

/** How many attempts, over how many seconds. */
export interface AttemptLimit {
  readonly points: number;
  readonly seconds: number;
}

export interface AccountLimitOptions {
  /** Failed sign-ins per identifier (default 10 per 15 minutes): a password guessed at one account. */
  readonly failuresPerIdentifier?: AttemptLimit;
  /** Sign-in attempts per client address (default 60 per 15 minutes): one client guessing at many accounts. */
  readonly signInsPerAddress?: AttemptLimit;
  /** Password reset requests per identifier and per address (default 5 per hour): mail nobody asked for. */
  readonly resetsPerKey?: AttemptLimit;
  /** Sign-ups per client address (default 20 per hour): each costs a password hash and makes a record. */
  readonly signUpsPerAddress?: AttemptLimit;
}

export interface AccountLimits {
  /** Before a sign-in: 429 RATE_LIMITED when the identifier or the address is over its limit (the attempt counts against both until it succeeds). */
  checkSignIn(identifier: string, address: string): Promise<void>;
  succeededSignIn(identifier: string): Promise<void>;
  checkReset(identifier: string, address: string): Promise<void>;
  /** Before a sign-up is hashed or written: 429 RATE_LIMITED when the address is over its limit. */
  checkSignUp(address: string): Promise<void>;
}

/** Counters shared by every instance on the database (PostgreSQL), where it offers them. */
export type SharedLimiters = (options: SharedRateLimiterOptions) => Promise<RateLimiterAbstract>;

/**
 * Sign-in and reset limits, with rate-limiter-flexible: in memory on
 * SQLite (one process), and on PostgreSQL in the database, so instances
 * behind one load balancer count each guess once between them (an
 * attacker cannot spread guesses over instances). The memory limiter
 * stands in while the database does not answer.
 */
export async function createAccountLimits(options: AccountLimitOptions = {}, shared?: SharedLimiters): Promise<AccountLimits> {
  const limiter = async (name: string, limit: AttemptLimit): Promise<RateLimiterAbstract> => {
    const memory = new RateLimiterMemory({ points: limit.points, duration: limit.seconds, keyPrefix: name });
    return shared === undefined ? memory : shared({ points: limit.points, duration: limit.seconds, keyPrefix: name, insuranceLimiter: memory });
  };
  const failures = await limiter('signin_failures', options.failuresPerIdentifier ?? { points: 10, seconds: 900 });
  const addresses = await limiter('signin_addresses', options.signInsPerAddress ?? { points: 60, seconds: 900 });
  const resets = await limiter('resets', options.resetsPerKey ?? { points: 5, seconds: 3600 });
  const signUps = await limiter('signups', options.signUpsPerAddress ?? { points: 20, seconds: 3600 });
  // The key is the account the identifier names, folded exactly as the database compares identifiers (A–Z to a–z, nothing else:
  // see SqlCompilerHooks.foldCase), so no spelling of one account counts apart from another, and no other account's success clears it.
  // Kept as a digest: a megabyte identifier must not be a megabyte key held for the window.
  const key = (identifier: string): string => createHash('sha256').update(foldAsciiCase(identifier)).digest('base64url');

  return {
    async checkSignIn(identifier, address) {
      // Counted as a failure before the password is checked (a success clears it): concurrent guesses cannot all pass a check made before any of them failed.
      await consume(addresses, address);
      await consume(failures, key(identifier));
    },
    async succeededSignIn(identifier) {
      await failures.delete(key(identifier));
    },
    async checkSignUp(address) {
      await consume(signUps, address);
    },
    async checkReset(identifier, address) {
      await consume(resets, `id:${key(identifier)}`);
      await consume(resets, `ip:${address}`);
    },
  };
}

async function consume(limiter: RateLimiterAbstract, key: string): Promise<void> {
  try {
    await limiter.consume(key);
  } catch (error) {
    if (error instanceof RateLimiterRes) throw limited(error.msBeforeNext);
    throw error;
  }
}

/** 429 with the seconds to wait, which both front-ends send as `Retry-After` (RFC 6585 §4). */
function limited(msBeforeNext: number): ApiError {
  const seconds = Math.max(1, Math.ceil(msBeforeNext / 1000));
  return new ApiError('RATE_LIMITED', { detail: `Too many attempts; try again in ${seconds} s`, extensions: { retryAfter: seconds } });
}

/** A–Z to a–z and nothing else: how both databases compare account identifiers. */
export function foldAsciiCase(text: string): string {
  return text.replace(/[A-Z]/g, (letter) => letter.toLowerCase());
}
