import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, errors, jwtVerify, type JWTPayload, type JWTVerifyGetKey, type JWTVerifyOptions } from 'jose';
import { ApiError } from '../errors/api-error.js';

export interface JwtVerifierOptions {
  /** HS256/384/512: the shared secret, at least 32 bytes (RFC 7518 §3.2: a key as long as the hash). */
  readonly jwtSecret?: string;
  /** RS*, PS*, ES*, EdDSA: the issuer's public key, as PEM (SPKI) or as one JWK in JSON. */
  readonly jwtPublicKey?: string;
  /** RS*, PS*, ES*, EdDSA: the issuer's JWKS URL, fetched when first needed and again for an unknown `kid`. */
  readonly jwksUrl?: string;
  /** The accepted `iss` (one of them, for a list); unchecked when absent. */
  readonly issuer?: string | readonly string[];
  /** The accepted `aud` (one of them, for a list); unchecked when absent. */
  readonly audience?: string | readonly string[];
  /** Narrows the algorithms the keys above allow (they can never widen it; `none` is never accepted). */
  readonly algorithms?: readonly string[];
  /** Leeway for `exp`, `nbf` and `iat`, for clocks that disagree a little (default 60). */
  readonly clockToleranceSeconds?: number;
  /** After a JWKS fetch, how long an unknown `kid` waits before it may cause another (default 30 s: a stream of made-up kids costs the issuer one request per period). */
  readonly jwksCooldownMs?: number;
  /** How long a JWKS fetch may take (default 5 s). */
  readonly jwksTimeoutMs?: number;
}

const HMAC_ALGORITHMS = ['HS256', 'HS384', 'HS512'];
const RSA_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'];
const EC_ALGORITHMS: Readonly<Record<string, string>> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };
const ASYMMETRIC_ALGORITHMS = [...RSA_ALGORITHMS, 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Clocks may disagree by this much (seconds): `exp`, `nbf` and `iat` are judged with it. */
export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 60;

/** A token without `exp` would be valid forever (and streams opened with it would never end): jose refuses it. */
export const REQUIRED_CLAIMS: Readonly<Pick<JWTVerifyOptions, 'requiredClaims'>> = Object.freeze({ requiredClaims: ['exp'] });

/**
 * jose refuses an `iat` in the future (beyond the tolerance) only under
 * `maxTokenAge`, which also requires `iat`: so it is set for the tokens that
 * carry one (RFC 7519 §4.1.6 leaves `iat` optional). The age itself is
 * bounded by `exp`; the maximum is only a century no token lives.
 */
export const ISSUED_AT_CHECK: Readonly<Pick<JWTVerifyOptions, 'maxTokenAge'>> = Object.freeze({ maxTokenAge: 100 * 365 * 24 * 3600 });

/** Whether the (not yet verified) token says when it was issued; a malformed one is left for jose to refuse. */
export function carriesIssuedAt(token: string): boolean {
  try {
    return decodeJwt(token).iat !== undefined;
  } catch {
    return false;
  }
}

/** A token whose signature and registered claims were checked. */
export type JwtVerifier = (token: string, now: Date) => Promise<JWTPayload>;

/**
 * Verifies JWTs with the keys configured, or undefined when none is: which
 * key depends on the token's `alg` (the secret for HS*, the public key or key
 * set for the rest), so a public key can never serve as an HMAC secret
 * (the RFC 8725 §2.1 algorithm confusion). Failures are 401
 * UNAUTHENTICATED, whose detail names the reason and never the token; a key
 * set that cannot be fetched is 503 AUTHENTICATION_UNAVAILABLE.
 */
export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier | undefined {
  const secret = options.jwtSecret === undefined ? undefined : secretKey(options.jwtSecret);
  if (options.jwtPublicKey !== undefined && options.jwksUrl !== undefined) {
    throw new Error('Give the JWT public key or the JWKS URL, not both');
  }
  const publicKey = options.jwtPublicKey === undefined ? undefined : publicKeyOf(options.jwtPublicKey);
  const jwks = options.jwksUrl === undefined ? undefined : remoteKeySet(options.jwksUrl, options);
  if (secret === undefined && publicKey === undefined && jwks === undefined) return undefined;

  const allowed = [
    ...(secret === undefined ? [] : HMAC_ALGORITHMS),
    ...(publicKey === undefined ? [] : publicKey.algorithms),
    ...(jwks === undefined ? [] : ASYMMETRIC_ALGORITHMS),
  ];
  const algorithms = options.algorithms === undefined ? allowed : allowed.filter((alg) => options.algorithms?.includes(alg));
  if (algorithms.length === 0) throw new Error(`None of the algorithms ${options.algorithms?.join(', ') ?? ''} fits the JWT keys configured (${allowed.join(', ')})`);

  // jose checks `alg` against `algorithms` before asking for a key, so each branch only sees the algorithms its key allows.
  const getKey: JWTVerifyGetKey = async (header, token) => {
    if (header.alg.startsWith('HS') && secret !== undefined) return secret;
    if (publicKey !== undefined) return publicKey.key;
    if (jwks !== undefined) return jwks(header, token);
    throw new errors.JOSEAlgNotAllowed('No key for this algorithm');
  };
  const verifyOptions = {
    algorithms,
    ...REQUIRED_CLAIMS,
    clockTolerance: options.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS,
    ...(options.issuer === undefined ? {} : { issuer: typeof options.issuer === 'string' ? options.issuer : [...options.issuer] }),
    ...(options.audience === undefined ? {} : { audience: typeof options.audience === 'string' ? options.audience : [...options.audience] }),
  };
  return async (token, now) => {
    try {
      const { payload } = await jwtVerify(token, getKey, { ...verifyOptions, ...(carriesIssuedAt(token) ? ISSUED_AT_CHECK : {}), currentDate: now });
      return payload;
    } catch (error) {
      throw refusal(error);
    }
  };
}

function secretKey(secret: string): Uint8Array {
  const bytes = new TextEncoder().encode(secret);
  if (bytes.byteLength < 32) throw new Error(`The JWT secret must be at least 32 bytes long (it is ${bytes.byteLength}): a shorter HMAC key can be guessed offline from one token`);
  return bytes;
}

/** The key and the algorithms it may verify, from its type (and curve). */
function publicKeyOf(text: string): { readonly key: KeyObject; readonly algorithms: readonly string[] } {
  let key: KeyObject;
  try {
    const trimmed = text.trim();
    key = trimmed.startsWith('{') ? createPublicKey({ key: JSON.parse(trimmed) as JsonWebKey, format: 'jwk' }) : createPublicKey(trimmed);
  } catch (error) {
    throw new Error(`The JWT public key is not a PEM public key or a JWK: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
  }
  const type = key.asymmetricKeyType;
  const algorithms =
    type === 'rsa' ? RSA_ALGORITHMS
    : type === 'rsa-pss' ? RSA_ALGORITHMS.filter((alg) => alg.startsWith('PS'))
    : type === 'ec' ? [EC_ALGORITHMS[key.asymmetricKeyDetails?.namedCurve ?? ''] ?? '']
    : type === 'ed25519' ? ['EdDSA', 'Ed25519']
    : [''];
  if (algorithms.includes('')) throw new Error(`The JWT public key is a ${type ?? 'unknown'} key; RSA, EC (P-256, P-384, P-521) and Ed25519 keys are accepted`);
  return { key, algorithms };
}

/** Anything that stops the key set from being fetched, told apart from a token that does not match it. */
class KeySetUnavailable extends Error {}

function remoteKeySet(url: string, options: JwtVerifierOptions): JWTVerifyGetKey {
  if (!URL.canParse(url) || !/^https?:$/.test(new URL(url).protocol)) throw new Error(`The JWKS URL must be an http(s) URL, not ${JSON.stringify(url)}`);
  const keySet = createRemoteJWKSet(new URL(url), { cooldownDuration: options.jwksCooldownMs ?? 30_000, timeoutDuration: options.jwksTimeoutMs ?? 5000 });
  return async (header, token) => {
    try {
      return await keySet(header, token);
    } catch (error) {
      // No or several matching keys is the token's fault; a failed fetch or a malformed set is the issuer's.
      if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported) throw error;
      throw new KeySetUnavailable('The JWKS could not be fetched', { cause: error });
    }
  };
}

/** A failed verification as the client may see it: the reason, never the token or its claims. */
function refusal(error: unknown): ApiError {
  if (error instanceof KeySetUnavailable) {
    return new ApiError('AUTHENTICATION_UNAVAILABLE', { detail: 'The key set that verifies tokens could not be fetched; try again shortly', cause: error.cause });
  }
  return new ApiError('UNAUTHENTICATED', { detail: reasonOf(error) });
}

function reasonOf(error: unknown): string {
  if (error instanceof errors.JWTExpired) return 'The token has expired';
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.reason === 'missing') return `The token has no ${error.claim} claim, which is required`;
    switch (error.claim) {
      case 'nbf':
        return 'The token is not valid yet';
      case 'iss':
        return "The token's issuer is not accepted";
      case 'aud':
        return "The token's audience is not accepted";
      case 'iat':
        return 'The token was issued in the future';
      default:
        return `The token's ${error.claim} claim is not valid`;
    }
  }
  if (error instanceof errors.JOSEAlgNotAllowed || error instanceof errors.JOSENotSupported) return "The token's algorithm is not accepted";
  if (error instanceof errors.JWSSignatureVerificationFailed) return "The token's signature does not verify";
  if (error instanceof errors.JWKSNoMatchingKey) return 'No key of the issuer matches the token';
  if (error instanceof errors.JWKSMultipleMatchingKeys) return 'Several keys of the issuer match the token; it needs a kid';
  return 'The token is malformed';
}
