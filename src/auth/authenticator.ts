import type { JWTPayload } from 'jose';
import { ApiError } from '../errors/api-error.js';
import { ANONYMOUS, type Principal } from '../plan/principal.js';
import type { CredentialLifetime } from '../plan/request-context.js';
import { ApiKeyStore } from '../storage/api-keys.js';
import type { Database } from '../storage/dialect.js';
import { LruCache } from '../util/lru-cache.js';
import type { KeyRevocations } from './key-revocations.js';
import { API_KEY_PREFIX, isApiKeyShape } from './api-key.js';
import { parseClaimPath, readClaim } from './claim-path.js';
import { credentialLifetime } from './credential-expiry.js';
import { hashCredential } from './credential-hash.js';
import type { SigningKeys } from './accounts/signing-keys.js';
import { createJwtVerifier, type JwtVerifierOptions } from './jwt-verifier.js';

/** How a server accepts credentials: the server option `auth` (CLI flags and environment in src/cli/). */
export interface AuthOptions extends JwtVerifierOptions {
  /** The token claim that holds the principal's id, a dotted path (default `sub`). */
  readonly idClaim?: string;
  /** The token claim that holds the principal's role, a dotted path such as `app_metadata.role` (default `role`). */
  readonly roleClaim?: string;
  /** A key that is the admin role (Hasura's admin secret): for operators, tests and outside checks; at least 16 characters. */
  readonly adminKey?: string;
  /** How long a looked-up API key is trusted before it is looked up again, so a revocation takes up to this long (default 5,000 ms; 0: every request). */
  readonly apiKeyCacheMs?: number;
  /** Verified credentials remembered (default 10,000). */
  readonly cacheSize?: number;
}

export interface AuthenticatorOptions extends AuthOptions {
  /** The role that is allowed everything (see admin-role.ts). */
  readonly adminRole: string;
  /** Where API keys are looked up; without it an API key is refused. */
  readonly db?: Database;
  /** The keys of the tokens this server issues itself (accounts): such a token is checked with them, whatever outside keys are configured. */
  readonly issuedTokens?: Pick<SigningKeys, 'owns' | 'verify'>;
  /** Accounts suspended now: a token of one is refused at once (403 ACCOUNT_SUSPENDED), remembered or not. */
  readonly suspended?: { has(accountId: string): boolean; watch(accountId: string, end: () => void): () => void };
  /** Revocations of API keys: a revoked key is forgotten at once, and the streams it opened end. */
  readonly revocations?: Pick<KeyRevocations, 'watch' | 'onRevoke'>;
  /** The clock, in ms since the epoch (tests move it; token checks and cache expiry both read it). */
  readonly now?: () => number;
}

export interface Authenticator {
  /**
   * The principal an `Authorization` header value stands for: anonymous
   * without one. A credential remembered from an earlier request is answered
   * at once (a hash and a map lookup), anything else asynchronously. A bad,
   * expired or revoked credential throws (or rejects with) 401
   * UNAUTHENTICATED — never anonymous; a key set or database that does not
   * answer, 503.
   */
  authenticate(authorization: string | undefined): Principal | Promise<Principal>;
  /** How long a principal this authenticator answered stays good: until its token's `exp`, or its account's suspension. */
  readonly lifetimeOf: (principal: Principal) => CredentialLifetime;
  /** Token signatures checked so far (observability, tests: a remembered token costs none). */
  readonly verifications: number;
}

const OWN_ID = parseClaimPath('sub');
const OWN_ROLE = parseClaimPath('role');

/** RFC 6750 §2.1: `Bearer` (any case, RFC 9110 §11.1), spaces, a b64token. */
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

interface Remembered {
  readonly principal: Principal;
  /** ms since the epoch: the token's `exp`, or the end of an API key's cache period. */
  readonly until: number;
}

/**
 * Turns the `Authorization` header into a principal: the admin key, an API
 * key (`dk_…`, looked up by its hash), or a JWT (checked by jwt-verifier.ts).
 * Every credential that passed is remembered by its hash until it expires
 * (a token at its `exp`, an API key after `apiKeyCacheMs`), so a client that
 * sends the same one again costs no signature check and no database query.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const now = options.now ?? Date.now;
  const verify = createJwtVerifier(options);
  const configuredId = parseClaimPath(options.idClaim ?? 'sub');
  const configuredRole = parseClaimPath(options.roleClaim ?? 'role');
  const store = options.db === undefined ? undefined : new ApiKeyStore(options.db);
  const apiKeyCacheMs = options.apiKeyCacheMs ?? 5000;
  const remembered = new LruCache<string, Remembered>(options.cacheSize ?? 10_000);
  if (options.adminKey !== undefined && options.adminKey.length < 16) throw new Error('The admin key must be at least 16 characters long');
  // Compared as hashes: how long the comparison takes tells nothing about the key, only about a hash no one can invert.
  const adminHash = options.adminKey === undefined ? undefined : hashCredential(options.adminKey);
  const admin: Principal = Object.freeze({ id: null, role: options.adminRole, claims: Object.freeze({}), admin: true, via: 'admin-key' });
  let verifications = 0;
  /** API key id → the hash its principal is remembered under, so a revocation can forget it. */
  const rememberedKeys = new Map<string, string>();
  options.revocations?.onRevoke((keyId) => {
    const forgotten = keyId === undefined ? [...rememberedKeys.entries()] : [[keyId, rememberedKeys.get(keyId)] as const];
    for (const [id, hash] of forgotten) {
      if (hash !== undefined) remembered.delete(hash);
      rememberedKeys.delete(id);
    }
  });

  const fromApiKey = async (hash: string): Promise<Principal> => {
    if (store === undefined) throw unauthenticated('API keys are not accepted by this server');
    const key = await store.findByHash(hash);
    if (key === undefined) throw unauthenticated('The API key is not known');
    if (key.revokedAt !== null) throw unauthenticated('The API key has been revoked');
    const principal: Principal = Object.freeze({ id: key.id, role: key.role, claims: Object.freeze({}), admin: key.role === options.adminRole, via: 'api-key' });
    if (apiKeyCacheMs > 0) {
      remembered.set(hash, { principal, until: now() + apiKeyCacheMs });
      rememberedKeys.set(key.id, hash);
    }
    return principal;
  };

  const fromJwt = async (token: string, hash: string, check: NonNullable<typeof verify>, own = false): Promise<Principal> => {
    verifications++;
    const payload = await check(token, new Date(now()));
    // Diglot's own tokens say who and what in `sub` and `role`, whatever claims outside tokens use.
    const principal = own ? principalOf(payload, OWN_ID, OWN_ROLE) : principalOf(payload);
    if (own) ownPrincipals.add(principal);
    // The verifier requires `exp`: a token is remembered until it expires, never longer.
    remembered.set(hash, { principal, until: (payload.exp ?? 0) * 1000 });
    return principal;
  };

  const principalOf = (payload: JWTPayload, idPath = configuredId, rolePath = configuredRole): Principal => {
    const id = readClaim(payload, idPath);
    if (!(typeof id === 'string' && id !== '') && !(typeof id === 'number' && Number.isFinite(id))) {
      throw unauthenticated(`The token has no ${idPath.join('.')} claim (a string) to say who it is`);
    }
    const claimed = readClaim(payload, rolePath);
    if (claimed !== undefined && claimed !== null && typeof claimed !== 'string') throw unauthenticated(`The token's ${rolePath.join('.')} claim is not a string`);
    const role = typeof claimed === 'string' ? claimed : null;
    return Object.freeze({ id: String(id), role, claims: deepFreeze(payload), admin: role === options.adminRole, via: 'jwt' });
  };

  const suspended = options.suspended;
  /** Principals of the tokens this server issued: the ones an account's suspension refuses (an outside issuer's `sub` is its own business). */
  const ownPrincipals = new WeakSet<Principal>();
  /** Checked on every request, after the cache: a token stays valid until `exp`, its account's suspension does not wait for that. */
  const unlessSuspended = (principal: Principal): Principal => {
    if (suspended !== undefined && principal.id !== null && ownPrincipals.has(principal) && suspended.has(principal.id)) {
      throw new ApiError('ACCOUNT_SUSPENDED', { detail: 'This account is suspended' });
    }
    return principal;
  };
  const authenticate = (authorization: string | undefined): Principal | Promise<Principal> => {
    const result = authenticateCredential(authorization);
    return result instanceof Promise ? result.then(unlessSuspended) : unlessSuspended(result);
  };

  const authenticateCredential = (authorization: string | undefined): Principal | Promise<Principal> => {
    if (authorization === undefined) return ANONYMOUS;
    const token = bearerToken(authorization);
    const hash = hashCredential(token);
    const known = remembered.get(hash);
    if (known !== undefined) {
      if (known.until > now()) return known.principal;
      remembered.delete(hash);
    }
    if (hash === adminHash) return admin;
    if (token.startsWith(API_KEY_PREFIX)) {
      if (!isApiKeyShape(token)) throw unauthenticated('The API key is malformed');
      return fromApiKey(hash);
    }
    if (!JWT_SHAPE.test(token)) throw unauthenticated('The credential is neither a JWT nor an API key of this server');
    if (options.issuedTokens?.owns(token) === true) return fromJwt(token, hash, options.issuedTokens.verify, true);
    if (verify === undefined) throw unauthenticated('This server accepts no JWTs: no secret, public key or JWKS URL is configured');
    return fromJwt(token, hash, verify);
  };

  const lifetimeOf = (principal: Principal): CredentialLifetime => {
    if (principal.via === 'api-key' && options.revocations !== undefined) return credentialLifetime(principal, options.revocations, 'revoked');
    const suspendable = suspended !== undefined && principal.id !== null && ownPrincipals.has(principal);
    return credentialLifetime(principal, suspendable ? suspended : undefined);
  };

  return {
    authenticate,
    lifetimeOf,
    get verifications() {
      return verifications;
    },
  };
}

/** The token of a `Bearer` header; any other scheme, or a malformed one, is refused. */
function bearerToken(authorization: string): string {
  const match = BEARER.exec(authorization);
  if (match?.[1] !== undefined) return match[1];
  if (/^Bearer(?: |$)/i.test(authorization)) throw unauthenticated('The Bearer credential is malformed (RFC 6750 §2.1)');
  throw unauthenticated('Only Bearer credentials are accepted (Authorization: Bearer <token or key>)');
}

function unauthenticated(detail: string): ApiError {
  return new ApiError('UNAUTHENTICATED', { detail });
}

/** Claims are shared by every request that sends the token: nobody may change them. */
function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
