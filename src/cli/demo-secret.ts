import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** What `diglot start` signs the demo token with and accepts as the admin key, made once per database. */
export interface DemoSecret {
  readonly jwtSecret: string;
  readonly adminKey: string;
}

type StoredSecret = Partial<Record<keyof DemoSecret, unknown>>;

/**
 * Where the demo secret lives: beside a SQLite file (`diglot.db.secret`),
 * else in the files directory, the one other place that belongs to this
 * server (PostgreSQL, `:memory:`).
 */
export function demoSecretPath(db: string, filesDirectory: string): string {
  const sqliteFile = !/^postgres(?:ql)?:\/\//i.test(db) && db !== ':memory:' && db !== '';
  return sqliteFile ? `${db}.secret` : join(filesDirectory, 'demo.secret');
}

/**
 * The demo secret at `path`, made on first use: 32 random bytes each,
 * written only by its owner's account (mode 0600) and never overwritten,
 * so every later `start` prints the same admin key and accepts the tokens
 * printed before.
 */
export function loadDemoSecret(path: string): DemoSecret {
  const made: DemoSecret = { jwtSecret: randomBytes(32).toString('base64url'), adminKey: randomBytes(32).toString('base64url') };
  mkdirSync(dirname(path), { recursive: true });
  try {
    // `wx`: created here or not at all, so two starts at once cannot each write their own.
    writeFileSync(path, `${JSON.stringify(made)}\n`, { mode: 0o600, flag: 'wx' });
    return made;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  let read: StoredSecret | null = null;
  try {
    read = JSON.parse(readFileSync(path, 'utf8')) as StoredSecret | null;
  } catch {
    // Reported below, as for a file of the wrong shape.
  }
  if (typeof read?.jwtSecret !== 'string' || read.jwtSecret.length < 32 || typeof read.adminKey !== 'string' || read.adminKey.length < 16) {
    throw new Error(`${path} is not a Diglot demo secret; remove it and a new one is made`);
  }
  return { jwtSecret: read.jwtSecret, adminKey: read.adminKey };
}
