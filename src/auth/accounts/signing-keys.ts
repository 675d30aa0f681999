import { createHash, randomBytes } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT, type JWTPayload } from 'jose';
import { ApiError } from '../../errors/api-error.js';
import { DEFAULT_CLOCK_TOLERANCE_SECONDS, ISSUED_AT_CHECK, REQUIRED_CLAIMS } from '../jwt-verifier.js';
import type { AccountStore } from '../../storage/accounts.js';
import { asymmetricSigningKeys } from './asymmetric-key.js';

/** Every key id of a token Diglot signs starts so: the authenticator sends such tokens here. */
export const ISSUED_KID_PREFIX = 'diglot-';

/** The issuer of Diglot's own tokens (`iss`), checked when they come back. */
export const ISSUER = 'diglot';

export interface SigningKeysOptions {
  readonly store: AccountStore;
  /** A secret of 32 bytes or more to sign with instead of keys kept in the database (DIGLOT_JWT_SECRET). */
  readonly secret?: string | undefined;
  /** A private key (PEM) to sign with instead: Ed25519, P-256, P-384 or RSA; its public half is served as a JWKS. */
  readonly privateKey?: string | undefined;
  /** How long an access token lives: a retired key verifies this long after it is retired. */
  readonly accessTokenSeconds: number;
  readonly now: () => number;
}

/** The HS256 keys Diglot signs its access tokens with, by `kid`. */
export interface SigningKeys {
  /** A token for `claims`, signed with the current key, `kid` in its header. */
  sign(claims: Readonly<Record<string, unknown>>, subject: string): Promise<string>;
  /** Whether a token's key id is one of Diglot's (then `verify` is its verifier). */
  owns(token: string): boolean;
  /** Checks a token Diglot signed; 401 UNAUTHENTICATED when it does not verify. */
  verify(token: string, now: Date): Promise<JWTPayload>;
  /** Makes a new current key; the others verify their tokens until those expire. Returns the new kid. */
  rotate(): Promise<string>;
  /** The JWKS document of the public keys (RFC 7517), when the tokens are signed with a private key; undefined for shared secrets. */
  jwks(): { readonly keys: readonly object[] } | undefined;
}

interface Key {
  readonly kid: string;
  readonly secret: Uint8Array;
  readonly retiredAt: number | null;
}

/** How often a signing server reads the keys again (`diglot keys rotate-signing` reaches it within this time). */
const REFRESH_KEYS_MS = 60_000;

/** How often an unknown Diglot kid may send the keys to be read again (another instance rotated them): made-up kids cost one query per period. */
const RELOAD_COOLDOWN_MS = 5_000;

/**
 * Loads the signing keys, making the first one on first start. With
 * `secret`, that secret is the only key and nothing is stored.
 */
export async function loadSigningKeys(options: SigningKeysOptions): Promise<SigningKeys> {
  const { store, now } = options;
  if (options.privateKey !== undefined) {
    const asymmetric = await asymmetricSigningKeys(options.privateKey, ISSUER, ISSUED_KID_PREFIX, options.accessTokenSeconds, now);
    return { ...asymmetric, owns: (token) => kidOf(token)?.startsWith(ISSUED_KID_PREFIX) === true };
  }
  let keys: Key[] = [];
  /** When the keys were last read: a signing server reads them again each minute, so a rotation reaches it. */
  let loadedAt = 0;
  /** When an unknown kid last sent the keys to be read again. */
  let lastMiss = Number.NEGATIVE_INFINITY;
  const fixed = options.secret === undefined ? undefined : fixedKey(options.secret);

  const load = async (): Promise<void> => {
    loadedAt = now();
    if (fixed !== undefined) {
      keys = [fixed];
      return;
    }
    let rows = await store.signingKeys();
    if (rows.length === 0) {
      try {
        await store.addSigningKey(newKid(), randomBytes(32).toString('base64url'), now());
      } catch {
        // Another instance made the first key at the same moment: read theirs.
      }
      rows = await store.signingKeys();
    }
    keys = rows.map((row) => ({ kid: row.kid, secret: Buffer.from(row.secret, 'base64url'), retiredAt: row.retiredAt }));
  };
  await load();

  const current = (): Key => {
    const key = keys.find((candidate) => candidate.retiredAt === null) ?? keys[0];
    if (key === undefined) throw new Error('No signing key');
    return key;
  };
  const usable = (key: Key): boolean => key.retiredAt === null || key.retiredAt + (options.accessTokenSeconds + 60) * 1000 > now();

  return {
    sign: async (claims, subject) => {
      if (now() - loadedAt > REFRESH_KEYS_MS) await load();
      const key = current();
      return new SignJWT({ ...claims })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT', kid: key.kid })
        .setSubject(subject)
        .setIssuer(ISSUER)
        .setIssuedAt(Math.floor(now() / 1000))
        .setExpirationTime(Math.floor(now() / 1000) + options.accessTokenSeconds)
        .sign(key.secret);
    },
    owns: (token) => kidOf(token)?.startsWith(ISSUED_KID_PREFIX) === true,
    verify: async (token, at) => {
      const kid = kidOf(token);
      let key = keys.find((candidate) => candidate.kid === kid);
      if (key === undefined && kid?.startsWith(ISSUED_KID_PREFIX) === true && now() - lastMiss > RELOAD_COOLDOWN_MS) {
        lastMiss = now();
        await load();
        key = keys.find((candidate) => candidate.kid === kid);
      }
      if (key === undefined || !usable(key)) throw new ApiError('UNAUTHENTICATED', { detail: "The token's key is not known (or retired)" });
      try {
        const { payload } = await jwtVerify(token, key.secret, { algorithms: ['HS256'], issuer: ISSUER, currentDate: at, ...REQUIRED_CLAIMS, ...ISSUED_AT_CHECK, clockTolerance: DEFAULT_CLOCK_TOLERANCE_SECONDS });
        return payload;
      } catch (error) {
        throw new ApiError('UNAUTHENTICATED', { detail: error instanceof errors.JWTExpired ? 'The token has expired' : 'The token does not verify' });
      }
    },
    rotate: async () => {
      if (fixed !== undefined) throw new Error('The signing key is given by DIGLOT_JWT_SECRET: change that secret to rotate it');
      const kid = await rotateSigningKey(store, now());
      await load();
      return kid;
    },
    jwks: () => undefined,
  };
}

/** Adds a new current signing key (`diglot keys rotate-signing`) and returns its kid. */
export async function rotateSigningKey(store: AccountStore, now: number): Promise<string> {
  const kid = newKid();
  await store.addSigningKey(kid, randomBytes(32).toString('base64url'), now);
  return kid;
}

function newKid(): string {
  return `${ISSUED_KID_PREFIX}${randomBytes(9).toString('base64url')}`;
}

/** The key of DIGLOT_JWT_SECRET: its kid names a hash of it, so a changed secret is a new key. */
function fixedKey(secret: string): Key {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.byteLength < 32) throw new Error('The JWT secret must be at least 32 bytes long');
  return { kid: `${ISSUED_KID_PREFIX}env-${createHash('sha256').update(bytes).digest('base64url').slice(0, 12)}`, secret: bytes, retiredAt: null };
}

function kidOf(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token).kid;
  } catch {
    return undefined;
  }
}
