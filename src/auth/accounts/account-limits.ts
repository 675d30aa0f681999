import { createHash } from 'node:crypto';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';
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

/**
 * Sign-in and reset limits, with rate-limiter-flexible's in-memory store:
 * counts are per server process, so several instances behind a balancer
 * each allow the limit (see docs/accounts.md).
 */
export function createAccountLimits(options: AccountLimitOptions = {}): AccountLimits {
  const limiter = (limit: AttemptLimit): RateLimiterMemory => new RateLimiterMemory({ points: limit.points, duration: limit.seconds });
  const failures = limiter(options.failuresPerIdentifier ?? { points: 10, seconds: 900 });
  const addresses = limiter(options.signInsPerAddress ?? { points: 60, seconds: 900 });
  const resets = limiter(options.resetsPerKey ?? { points: 5, seconds: 3600 });
  const signUps = limiter(options.signUpsPerAddress ?? { points: 20, seconds: 3600 });
  // Identifiers are compared as people type them in any case, and kept as a digest: a megabyte identifier must not be a megabyte key held for the window.
  const key = (identifier: string): string => createHash('sha256').update(identifier.trim().toLowerCase()).digest('base64url');

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

async function consume(limiter: RateLimiterMemory, key: string): Promise<void> {
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
