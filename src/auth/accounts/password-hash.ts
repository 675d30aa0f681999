import { availableParallelism } from 'node:os';
import { hash, parseOptions, verify } from '@node-rs/argon2';

/** argon2id's cost: memory in KiB, passes, lanes. */
export interface PasswordHashParameters {
  readonly memoryCost: number;
  readonly timeCost: number;
  readonly parallelism: number;
}

/**
 * OWASP's Password Storage Cheat Sheet (2025): argon2id with m=19456 KiB
 * (19 MiB), t=2, p=1 is the first of its equivalent settings. Chosen over
 * the heavier ones because a sign-in takes one hash on a worker thread, and
 * the server should serve tens of them a second on two cores.
 */
export const DEFAULT_PASSWORD_HASH: PasswordHashParameters = Object.freeze({ memoryCost: 19_456, timeCost: 2, parallelism: 1 });

/** Hashes and checks passwords; the work runs on libuv's thread pool, never on the event loop. */
export interface PasswordHasher {
  /** The argon2id PHC string (salt and parameters in it). */
  hash(password: string): Promise<string>;
  /** Whether the password matches; a stored value that is not a hash never does. */
  verify(stored: string, password: string): Promise<boolean>;
  /** Whether a stored hash was made with other parameters than today's, and should be made again. */
  outdated(stored: string): boolean;
  /** Costs as much as a real check, for identifiers that have no account: the answer must not be faster. */
  verifyDummy(password: string): Promise<void>;
}

/**
 * `concurrency`: hashes running at once (default: one less than the cores,
 * at least one). Each takes a core for tens of milliseconds; were every
 * libuv thread hashing, a storm of sign-ins would leave the event loop no
 * core, and every other request would wait (bench/micro/sign-in.mjs).
 */
export function createPasswordHasher(parameters: PasswordHashParameters = DEFAULT_PASSWORD_HASH, concurrency = Math.max(1, availableParallelism() - 1)): PasswordHasher {
  const queue = createQueue(concurrency);
  // No `algorithm`: @node-rs/argon2's default is argon2id (its `Algorithm` is a const enum, which isolated modules cannot name).
  const options = { ...parameters };
  let dummy: Promise<string> | undefined;
  return {
    hash: (password) => queue(() => hash(password, options)),
    verify: async (stored, password) => {
      try {
        return await queue(() => verify(stored, password));
      } catch {
        return false;
      }
    },
    outdated: (stored) => {
      try {
        const used = parseOptions(stored);
        return used.memoryCost !== parameters.memoryCost || used.timeCost !== parameters.timeCost || used.parallelism !== parameters.parallelism || !stored.startsWith('$argon2id$');
      } catch {
        return true;
      }
    },
    verifyDummy: async (password) => {
      dummy ??= queue(() => hash('diglot dummy password', options));
      const made = await dummy;
      await queue(() => verify(made, password)).catch(() => false);
    },
  };
}

/** Runs at most `limit` tasks at once, the others in arrival order. */
function createQueue(limit: number): <T>(task: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (task) => {
    // A finished task hands its slot to the next waiter, so no newcomer slips in between.
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next === undefined) running--;
      else next();
    }
  };
}
