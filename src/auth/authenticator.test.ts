/**
 * The authenticator on its own: the Authorization header in, a principal (or
 * a 401) out. JWTs signed here with real keys (HMAC secrets, RSA, EC and
 * Ed25519 key pairs), a JWKS served over a real socket on 127.0.0.1, API
 * keys in a real database on both dialects, and a clock the tests move, so
 * expiry is exact and nothing waits.
 */
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, type JWTPayload } from 'jose';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDialect } from '../../test/support/databases.js';
import { isApiError, type ApiError } from '../errors/api-error.js';
import { ANONYMOUS, type Principal } from '../plan/principal.js';
import { loadSchema } from '../schema/load-schema.js';
import { ApiKeyStore } from '../storage/api-keys.js';
import type { Database } from '../storage/dialect.js';
import { migrate } from '../storage/migrate/migrate.js';
import { generateApiKey } from './api-key.js';
import { createAuthenticator, type Authenticator, type AuthenticatorOptions } from './authenticator.js';

const SECRET = 'a-test-secret-that-is-at-least-32-bytes-long';
const T0 = Date.UTC(2030, 0, 1);
const seconds = (ms: number): number => Math.floor(ms / 1000);

/** A clock the test moves. */
function clock(start = T0): { now: () => number; advance(ms: number): void } {
  let at = start;
  return { now: () => at, advance: (ms) => (at += ms) };
}

function authenticator(options: Partial<AuthenticatorOptions> = {}, at = clock()): Authenticator {
  return createAuthenticator({ adminRole: 'ADMIN', jwtSecret: SECRET, now: at.now, ...options });
}

type Key = Uint8Array | KeyObject;

async function sign(claims: JWTPayload, options: { key?: Key; alg?: string; kid?: string; iat?: number; exp?: number | null } = {}): Promise<string> {
  const iat = options.iat ?? seconds(T0);
  const jwt = new SignJWT({ ...claims }).setProtectedHeader({ alg: options.alg ?? 'HS256', ...(options.kid === undefined ? {} : { kid: options.kid }) }).setIssuedAt(iat);
  if (options.exp !== null) jwt.setExpirationTime(options.exp ?? iat + 3600);
  return jwt.sign(options.key ?? new TextEncoder().encode(SECRET));
}

async function principal(auth: Authenticator, header: string | undefined): Promise<Principal> {
  return auth.authenticate(header);
}

/** The 401 (or other ApiError) an authentication ends with. */
async function refusal(auth: Authenticator, header: string | undefined): Promise<ApiError> {
  try {
    await auth.authenticate(header);
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
  throw new Error(`${String(header)} was accepted`);
}

const base64url = (value: unknown): string => Buffer.from(JSON.stringify(value)).toString('base64url');

describe('credentials in the Authorization header', () => {
  it('no header is the anonymous principal', async () => {
    expect(await principal(authenticator(), undefined)).toBe(ANONYMOUS);
  });

  it('a valid HS256 token is its subject, with its role and every claim', async () => {
    const token = await sign({ sub: '42', role: 'MEMBER', plan: { tier: 'pro' } });
    const who = await principal(authenticator(), `Bearer ${token}`);
    expect(who).toMatchObject({ id: '42', role: 'MEMBER', admin: false, via: 'jwt' });
    expect(who.claims).toMatchObject({ sub: '42', role: 'MEMBER', plan: { tier: 'pro' } });
    // Shared by every request that sends the token: nobody may change it.
    expect(Object.isFrozen(who.claims['plan'])).toBe(true);
  });

  it('the scheme is case-insensitive (RFC 9110 §11.1); HS384 and HS512 verify with the same secret', async () => {
    for (const alg of ['HS384', 'HS512']) {
      const token = await sign({ sub: '7' }, { alg });
      expect((await principal(authenticator(), `bearer ${token}`)).id).toBe('7');
    }
  });

  it('the role named ADMIN is the admin role; a token without a role has none', async () => {
    expect((await principal(authenticator(), `Bearer ${await sign({ sub: '1', role: 'ADMIN' })}`)).admin).toBe(true);
    expect(await principal(authenticator(), `Bearer ${await sign({ sub: '2' })}`)).toMatchObject({ role: null, admin: false });
  });

  it('reads the id and the role from the claims named by dotted paths', async () => {
    const auth = authenticator({ idClaim: 'user_id', roleClaim: 'app_metadata.role' });
    const token = await sign({ sub: 'ignored', user_id: 42, role: 'ignored', app_metadata: { role: 'MODERATOR' } });
    expect(await principal(auth, `Bearer ${token}`)).toMatchObject({ id: '42', role: 'MODERATOR' });
  });

  it('refuses a token without its id claim, or with a role that is not a string', async () => {
    expect((await refusal(authenticator(), `Bearer ${await sign({ role: 'MEMBER' })}`)).detail).toContain('no sub claim');
    expect((await refusal(authenticator(), `Bearer ${await sign({ sub: '1', role: ['A', 'B'] })}`)).detail).toContain('role claim is not a string');
  });

  it('refuses an expired token, and accepts one that expired within the 60 s clock tolerance', async () => {
    const expired = await sign({ sub: '1' }, { iat: seconds(T0) - 3600, exp: seconds(T0) - 61 });
    const error = await refusal(authenticator(), `Bearer ${expired}`);
    expect(error).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, detail: 'The token has expired' });
    const justExpired = await sign({ sub: '1' }, { iat: seconds(T0) - 3600, exp: seconds(T0) - 10 });
    expect((await principal(authenticator(), `Bearer ${justExpired}`)).id).toBe('1');
  });

  it('refuses a token without exp (it would never expire), and one issued in the future beyond the clock tolerance', async () => {
    const unexpiring = await sign({ sub: '1' }, { exp: null });
    expect(await refusal(authenticator(), `Bearer ${unexpiring}`)).toMatchObject({ code: 'UNAUTHENTICATED', status: 401, detail: 'The token has no exp claim, which is required' });
    const fromTheFuture = await sign({ sub: '1' }, { iat: seconds(T0) + 6000, exp: seconds(T0) + 9000 });
    expect((await refusal(authenticator(), `Bearer ${fromTheFuture}`)).detail).toBe('The token was issued in the future');
    // `iat` is optional (RFC 7519 §4.1.6); within the tolerance a clock a little ahead of ours is fine.
    const undated = await new SignJWT({ sub: '1' }).setProtectedHeader({ alg: 'HS256' }).setExpirationTime(seconds(T0) + 3600).sign(new TextEncoder().encode(SECRET));
    expect((await principal(authenticator(), `Bearer ${undated}`)).id).toBe('1');
    const slightlyAhead = await sign({ sub: '1' }, { iat: seconds(T0) + 50, exp: seconds(T0) + 3600 });
    expect((await principal(authenticator(), `Bearer ${slightlyAhead}`)).id).toBe('1');
  });

  it('refuses a token whose nbf is in the future', async () => {
    const early = await sign({ sub: '1', nbf: seconds(T0) + 600 });
    expect((await refusal(authenticator(), `Bearer ${early}`)).detail).toBe('The token is not valid yet');
  });

  it('refuses a token signed with another secret', async () => {
    const forged = await sign({ sub: '1', role: 'ADMIN' }, { key: new TextEncoder().encode('another-secret-another-secret-another-secret') });
    expect((await refusal(authenticator(), `Bearer ${forged}`)).detail).toBe("The token's signature does not verify");
  });

  it('refuses alg: none, whatever the claims say', async () => {
    const unsigned = `${base64url({ alg: 'none', typ: 'JWT' })}.${base64url({ sub: '1', role: 'ADMIN', exp: seconds(T0) + 60 })}.`;
    expect((await refusal(authenticator(), `Bearer ${unsigned}`)).detail).toBe("The token's algorithm is not accepted");
  });

  it('checks the issuer and the audience when they are configured', async () => {
    const auth = authenticator({ issuer: 'https://id.example', audience: ['diglot', 'other'] });
    const good = await sign({ sub: '1', iss: 'https://id.example', aud: 'diglot' });
    expect((await principal(auth, `Bearer ${good}`)).id).toBe('1');
    const wrongIssuer = await sign({ sub: '1', iss: 'https://evil.example', aud: 'diglot' });
    expect((await refusal(auth, `Bearer ${wrongIssuer}`)).detail).toBe("The token's issuer is not accepted");
    const wrongAudience = await sign({ sub: '1', iss: 'https://id.example', aud: 'someone-else' });
    expect((await refusal(auth, `Bearer ${wrongAudience}`)).detail).toBe("The token's audience is not accepted");
  });

  it('refuses garbage, an empty or malformed Bearer credential, and other schemes, all as 401', async () => {
    const auth = authenticator();
    for (const header of ['Bearer garbage', 'Bearer a.b', 'Bearer e30.e30.!!', 'Bearer', 'Bearer  ', 'Bearer a b', 'Basic dXNlcjpwYXNz', '', 'Bearer dk_short']) {
      expect((await refusal(auth, header)).code, header).toBe('UNAUTHENTICATED');
    }
    expect((await refusal(auth, 'Basic dXNlcjpwYXNz')).detail).toContain('Only Bearer');
  });

  it('refuses JWTs when no key is configured, rather than treating them as anonymous', async () => {
    const auth = createAuthenticator({ adminRole: 'ADMIN' });
    expect((await refusal(auth, `Bearer ${await sign({ sub: '1' })}`)).detail).toContain('accepts no JWTs');
  });

  it('refuses a secret shorter than 32 bytes and a bad claim path at start-up', () => {
    expect(() => authenticator({ jwtSecret: 'short' })).toThrow(/at least 32 bytes/);
    expect(() => authenticator({ roleClaim: 'app_metadata..role' })).toThrow(/claim path/);
  });

  it('never puts the token in a refusal', async () => {
    const token = await sign({ sub: '1' }, { key: new TextEncoder().encode('another-secret-another-secret-another-secret') });
    const error = await refusal(authenticator(), `Bearer ${token}`);
    expect(JSON.stringify({ message: error.message, detail: error.detail, extensions: error.extensions })).not.toContain(token.split('.')[1]);
  });
});

describe('public keys', () => {
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const ed = generateKeyPairSync('ed25519');
  const pem = (key: KeyObject): string => key.export({ type: 'spki', format: 'pem' }).toString();

  it('verifies RS256 and PS256 with an RSA public key in PEM', async () => {
    const auth = createAuthenticator({ adminRole: 'ADMIN', jwtPublicKey: pem(rsa.publicKey), now: clock().now });
    for (const alg of ['RS256', 'PS256']) {
      expect((await principal(auth, `Bearer ${await sign({ sub: alg }, { key: rsa.privateKey, alg })}`)).id).toBe(alg);
    }
  });

  it('verifies ES256 with a P-256 key, and EdDSA with an Ed25519 key given as a JWK', async () => {
    const ecAuth = createAuthenticator({ adminRole: 'ADMIN', jwtPublicKey: pem(ec.publicKey), now: clock().now });
    expect((await principal(ecAuth, `Bearer ${await sign({ sub: 'ec' }, { key: ec.privateKey, alg: 'ES256' })}`)).id).toBe('ec');
    const edAuth = createAuthenticator({ adminRole: 'ADMIN', jwtPublicKey: JSON.stringify(ed.publicKey.export({ format: 'jwk' })), now: clock().now });
    expect((await principal(edAuth, `Bearer ${await sign({ sub: 'ed' }, { key: ed.privateKey, alg: 'EdDSA' })}`)).id).toBe('ed');
  });

  it('refuses an HMAC token "signed" with the public key (algorithm confusion, RFC 8725 §2.1)', async () => {
    const auth = createAuthenticator({ adminRole: 'ADMIN', jwtPublicKey: pem(rsa.publicKey), now: clock().now });
    const confused = await sign({ sub: '1', role: 'ADMIN' }, { key: new TextEncoder().encode(pem(rsa.publicKey)), alg: 'HS256' });
    expect((await refusal(auth, `Bearer ${confused}`)).detail).toBe("The token's algorithm is not accepted");
  });

  it('refuses a token signed by another key pair, and pins algorithms when asked', async () => {
    const auth = createAuthenticator({ adminRole: 'ADMIN', jwtPublicKey: pem(rsa.publicKey), algorithms: ['RS256'], now: clock().now });
    const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect((await refusal(auth, `Bearer ${await sign({ sub: '1' }, { key: other.privateKey, alg: 'RS256' })}`)).detail).toBe("The token's signature does not verify");
    expect((await refusal(auth, `Bearer ${await sign({ sub: '1' }, { key: rsa.privateKey, alg: 'PS256' })}`)).detail).toBe("The token's algorithm is not accepted");
  });

  it('refuses a key that is not a public key at start-up', () => {
    expect(() => createAuthenticator({ adminRole: 'ADMIN', jwtPublicKey: 'not a key' })).toThrow(/not a PEM public key or a JWK/);
  });
});

describe('a JWKS URL', () => {
  const pairs = new Map(['a', 'b', 'c'].map((kid) => [kid, generateKeyPairSync('rsa', { modulusLength: 2048 })]));
  const pair = (kid: string): { readonly privateKey: KeyObject; readonly publicKey: KeyObject } => {
    const found = pairs.get(kid);
    if (found === undefined) throw new Error(kid);
    return found;
  };
  let published: string[] = [];
  let status = 200;
  let fetches = 0;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    server = createServer((_request, response) => {
      fetches++;
      const keys = published.map((kid) => ({ ...pair(kid).publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }));
      response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  afterEach(() => {
    fetches = 0;
    status = 200;
  });

  const token = (kid: string, sub = kid): Promise<string> => sign({ sub }, { key: pair(kid).privateKey, alg: 'RS256', kid });

  it('fetches the set when first needed, and again for an unknown kid, including after a rotation', async () => {
    published = ['a'];
    const auth = authenticator({ jwksUrl: url, jwksCooldownMs: 0 });
    expect((await principal(auth, `Bearer ${await token('a')}`)).id).toBe('a');
    expect(fetches).toBe(1);

    published = ['a', 'b'];
    expect((await principal(auth, `Bearer ${await token('b')}`)).id).toBe('b');
    expect(fetches).toBe(2);

    // Rotation: the issuer drops a and b for c.
    published = ['c'];
    expect((await principal(auth, `Bearer ${await token('c')}`)).id).toBe('c');
    expect(fetches).toBe(3);
    const error = await refusal(auth, `Bearer ${await token('a', 'new token from the old key')}`);
    expect(error.detail).toBe('No key of the issuer matches the token');
    expect(fetches).toBe(4);
  });

  it('does not fetch again for an unknown kid within the cooldown after a fetch', async () => {
    published = ['a'];
    const auth = authenticator({ jwksUrl: url });
    expect((await principal(auth, `Bearer ${await token('a')}`)).id).toBe('a');
    expect((await refusal(auth, `Bearer ${await token('b')}`)).code).toBe('UNAUTHENTICATED');
    expect(fetches).toBe(1);
  });

  it('answers 503 AUTHENTICATION_UNAVAILABLE when the set cannot be fetched', async () => {
    published = ['a'];
    status = 500;
    const error = await refusal(authenticator({ jwksUrl: url }), `Bearer ${await token('a')}`);
    expect(error).toMatchObject({ code: 'AUTHENTICATION_UNAVAILABLE', status: 503 });
  });
});

describe('the verified-credential cache', () => {
  it('verifies a token once, answers it again at once, and drops it at its exp', async () => {
    const at = clock();
    const auth = authenticator({}, at);
    const header = `Bearer ${await sign({ sub: '42' }, { exp: seconds(T0) + 60 })}`;
    expect((await principal(auth, header)).id).toBe('42');
    expect(auth.verifications).toBe(1);
    const again = auth.authenticate(header);
    // A remembered token is answered synchronously: no promise, no signature check.
    expect(again).not.toBeInstanceOf(Promise);
    expect((again as Principal).id).toBe('42');
    expect(auth.verifications).toBe(1);

    // Past exp the entry is gone: the token is checked again (and still passes within the clock tolerance)…
    at.advance(61_000);
    expect((await principal(auth, header)).id).toBe('42');
    expect(auth.verifications).toBe(2);
    // …and past the tolerance it is refused.
    at.advance(60_000);
    expect((await refusal(auth, header)).detail).toBe('The token has expired');
    expect(auth.verifications).toBe(3);
  });

  it('does not remember a refused token', async () => {
    const auth = authenticator();
    const header = `Bearer ${await sign({ sub: '1' }, { key: new TextEncoder().encode('another-secret-another-secret-another-secret') })}`;
    await refusal(auth, header);
    await refusal(auth, header);
    expect(auth.verifications).toBe(2);
  });
});

describe('the admin key', () => {
  const ADMIN_KEY = 'an-admin-key-for-tests-only';

  it('is the admin principal, synchronously', () => {
    const who = authenticator({ adminKey: ADMIN_KEY }).authenticate(`Bearer ${ADMIN_KEY}`);
    expect(who).toMatchObject({ id: null, role: 'ADMIN', admin: true, via: 'admin-key' });
  });

  it('is refused when it is not the configured one, or when none is configured', async () => {
    expect((await refusal(authenticator({ adminKey: ADMIN_KEY }), `Bearer ${ADMIN_KEY}x`)).code).toBe('UNAUTHENTICATED');
    expect((await refusal(authenticator(), `Bearer ${ADMIN_KEY}`)).code).toBe('UNAUTHENTICATED');
  });

  it('must be at least 16 characters', () => {
    expect(() => authenticator({ adminKey: 'short' })).toThrow(/at least 16/);
  });
});

describeEachDialect('API keys', (ctx) => {
  let db: Database;
  let store: ApiKeyStore;

  beforeAll(async () => {
    db = await ctx.open();
    const loaded = loadSchema([{ file: 'keys.graphql', text: 'type Note { id: ID!  text: String }' }]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    await migrate(db, loaded.model);
    store = new ApiKeyStore(db);
  });

  async function newKey(name: string, role: string): Promise<{ key: string; id: string }> {
    const { key, hash } = generateApiKey();
    const id = `key-${name}`;
    expect(await store.insert({ id, name, role, hash, createdAt: new Date(T0).toISOString() })).toBe(true);
    return { key, id };
  }

  it('is its key id and role; ADMIN keys are admin', async () => {
    const auth = authenticator({ db });
    const ci = await newKey('ci', 'MEMBER');
    expect(await principal(auth, `Bearer ${ci.key}`)).toMatchObject({ id: ci.id, role: 'MEMBER', admin: false, via: 'api-key', claims: {} });
    const ops = await newKey('ops', 'ADMIN');
    expect((await principal(auth, `Bearer ${ops.key}`)).admin).toBe(true);
  });

  it('stores only the hash, and a taken name is refused', async () => {
    const { key } = await newKey('hashed', 'MEMBER');
    const rows = await db.all('SELECT * FROM _diglot_api_keys');
    expect(JSON.stringify(rows)).not.toContain(key);
    expect(await store.insert({ ...generateApiKey(), id: 'other', name: 'hashed', role: 'MEMBER', createdAt: new Date(T0).toISOString() })).toBe(false);
  });

  it('refuses an unknown key and a malformed one (that one without a query)', async () => {
    const auth = authenticator({ db });
    expect((await refusal(auth, `Bearer ${generateApiKey().key}`)).detail).toBe('The API key is not known');
    const statements = db.statementCount;
    expect((await refusal(auth, 'Bearer dk_tooShort')).detail).toBe('The API key is malformed');
    expect(db.statementCount).toBe(statements);
  });

  it('is looked up once per cache period; a revocation takes effect when the period ends', async () => {
    const at = clock();
    const auth = authenticator({ db, apiKeyCacheMs: 5000 }, at);
    const deploy = await newKey('deploy', 'MEMBER');
    expect((await principal(auth, `Bearer ${deploy.key}`)).id).toBe(deploy.id);
    const statements = db.statementCount;
    expect((auth.authenticate(`Bearer ${deploy.key}`) as Principal).id).toBe(deploy.id);
    expect(db.statementCount).toBe(statements);

    expect(await store.revoke('deploy', new Date(T0).toISOString())).toBe('revoked');
    at.advance(4000);
    expect((await principal(auth, `Bearer ${deploy.key}`)).id).toBe(deploy.id);
    at.advance(1001);
    expect((await refusal(auth, `Bearer ${deploy.key}`)).detail).toBe('The API key has been revoked');
  });

  it('with no cache period, a revoked key is refused on the next request', async () => {
    const auth = authenticator({ db, apiKeyCacheMs: 0 });
    const once = await newKey('once', 'MEMBER');
    expect((await principal(auth, `Bearer ${once.key}`)).id).toBe(once.id);
    expect(await store.revoke(once.id, new Date(T0).toISOString())).toBe('revoked');
    expect((await refusal(auth, `Bearer ${once.key}`)).detail).toBe('The API key has been revoked');
    expect(await store.revoke(once.id, new Date(T0).toISOString())).toBe('already-revoked');
    expect(await store.revoke('nothing-by-that-name', new Date(T0).toISOString())).toBe('not-found');
  });

  it('refuses API keys when the authenticator has no database', async () => {
    expect((await refusal(authenticator(), `Bearer ${generateApiKey().key}`)).detail).toContain('not accepted');
  });
});
