import { decodeProtectedHeader } from 'jose';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDialect } from '../support/databases.js';
import { http, type HttpResponse } from '../support/http.js';
import { createResponseValidator } from '../support/openapi-validator.js';
import { startServer, type TestServer } from '../support/start-server.js';

const ADMIN_KEY = 'accounts-test-admin-key-0123456789';
/** Cheap hashes: these tests prove behaviour, not cost (bench/micro/sign-in.mjs measures that). */
const CHEAP_HASH = { memoryCost: 1024, timeCost: 1, parallelism: 1 };

type Style = 'rest' | 'graphql';
const STYLES: readonly Style[] = ['rest', 'graphql'];

const SESSION_FIELDS = 'accessToken tokenType expiresIn refreshToken refreshExpiresIn accountId';

/** What one flow answered, in either style: the data, or the error code. */
interface Outcome {
  readonly code: string | undefined;
  readonly data: Record<string, unknown> | undefined;
  readonly response: HttpResponse;
}

/**
 * The accounts flows through both styles on both databases: the same
 * outcome and the same code for each, and the password absent from every
 * response, log line and event of the run.
 */
describeEachDialect('Accounts: sign-up, sign-in and tokens, the same in REST and GraphQL', (ctx) => {
  let server: TestServer;
  const logLines: string[] = [];
  const bodies: string[] = [];
  const passwords = new Set<string>();
  let counter = 0;

  const remember = (response: HttpResponse): HttpResponse => {
    bodies.push(response.text);
    return response;
  };
  const restCalls: { method: string; path: string; response: HttpResponse }[] = [];
  const rest = async (method: string, path: string, body?: unknown, token?: string): Promise<HttpResponse> => {
    const response = remember(await http(server.url, method, path, { headers: token === undefined ? {} : { authorization: `Bearer ${token}` }, ...(body === undefined ? {} : { body }) }));
    restCalls.push({ method, path, response });
    return response;
  };
  const graphql = async (query: string, variables: Record<string, unknown> = {}, token?: string): Promise<HttpResponse> =>
    remember(await http(server.url, 'POST', '/graphql', { body: { query, variables }, headers: token === undefined ? {} : { authorization: `Bearer ${token}` } }));

  const outcome = (response: HttpResponse, field?: string): Outcome => {
    const code = (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;
    const data = field === undefined ? (response.json as Record<string, unknown> | undefined) : (response.json?.data?.[field] as Record<string, unknown> | undefined);
    return { code, data: code === undefined ? data : undefined, response };
  };

  /** Each flow in each style. */
  const flows = {
    signUp: async (style: Style, input: Record<string, unknown>, password: string): Promise<Outcome> =>
      style === 'rest'
        ? outcome(await rest('POST', '/auth/sign-up', { ...input, password }))
        : outcome(
            await graphql(`mutation ($input: CreateUserInput!, $password: String!) { signUp(input: $input, password: $password) { ${SESSION_FIELDS} account { id email } } }`, {
              input,
              password,
            }),
            'signUp',
          ),
    signIn: async (style: Style, email: string, password: string): Promise<Outcome> =>
      style === 'rest'
        ? outcome(await rest('POST', '/auth/sign-in', { email, password }))
        : outcome(await graphql(`mutation ($email: String!, $password: String!) { signIn(email: $email, password: $password) { ${SESSION_FIELDS} } }`, { email, password }), 'signIn'),
    refresh: async (style: Style, refreshToken: string): Promise<Outcome> =>
      style === 'rest'
        ? outcome(await rest('POST', '/auth/refresh', { refreshToken }))
        : outcome(await graphql(`mutation ($t: String!) { refreshSession(refreshToken: $t) { ${SESSION_FIELDS} } }`, { t: refreshToken }), 'refreshSession'),
    signOut: async (style: Style, refreshToken: string): Promise<Outcome> =>
      style === 'rest' ? outcome(await rest('POST', '/auth/sign-out', { refreshToken })) : outcome(await graphql('mutation ($t: String!) { signOut(refreshToken: $t) }', { t: refreshToken }), 'signOut'),
    signOutEverywhere: async (style: Style, token: string): Promise<Outcome> =>
      style === 'rest' ? outcome(await rest('POST', '/auth/sign-out-everywhere', undefined, token)) : outcome(await graphql('mutation { signOutEverywhere }', {}, token), 'signOutEverywhere'),
    changePassword: async (style: Style, token: string, currentPassword: string, newPassword: string): Promise<Outcome> =>
      style === 'rest'
        ? outcome(await rest('POST', '/auth/change-password', { currentPassword, newPassword }, token))
        : outcome(await graphql('mutation ($c: String!, $n: String!) { changePassword(currentPassword: $c, newPassword: $n) }', { c: currentPassword, n: newPassword }, token), 'changePassword'),
    requestReset: async (style: Style, email: string): Promise<Outcome> =>
      style === 'rest' ? outcome(await rest('POST', '/auth/password-reset/request', { email })) : outcome(await graphql('mutation ($e: String!) { requestPasswordReset(email: $e) }', { e: email }), 'requestPasswordReset'),
    confirmReset: async (style: Style, token: string, password: string): Promise<Outcome> =>
      style === 'rest'
        ? outcome(await rest('POST', '/auth/password-reset/confirm', { token, password }))
        : outcome(await graphql('mutation ($t: String!, $p: String!) { resetPassword(token: $t, password: $p) }', { t: token, p: password }), 'resetPassword'),
    verifyEmail: async (style: Style, token: string): Promise<Outcome> =>
      style === 'rest' ? outcome(await rest('POST', '/auth/verify-email/confirm', { token })) : outcome(await graphql('mutation ($t: String!) { verifyEmail(token: $t) }', { t: token }), 'verifyEmail'),
    me: async (style: Style, token: string | undefined): Promise<Outcome> =>
      style === 'rest' ? outcome(await rest('GET', '/me', undefined, token)) : outcome(await graphql('{ me { id name email role isVerified } }', {}, token), 'me'),
  };

  /** A fresh account, signed up in `style`: its email, password and session. */
  const newAccount = async (style: Style, name = 'Someone'): Promise<{ email: string; password: string; session: Record<string, unknown> }> => {
    counter += 1;
    const email = `person-${counter}-${style}@example.com`;
    const password = `correct horse battery ${counter}`;
    passwords.add(password);
    const signedUp = await flows.signUp(style, { name, email }, password);
    expect(signedUp.code, JSON.stringify(signedUp.response.json)).toBeUndefined();
    return { email, password, session: signedUp.data as Record<string, unknown> };
  };

  const events = async (type: string): Promise<{ record_id: string; payload: Record<string, unknown> }[]> => {
    const rows = await server.db.all<{ record_id: string; payload: unknown }>(
      `SELECT record_id, record AS payload FROM _diglot_events WHERE type = ${server.db.sql.placeholder(0)} ORDER BY seq`,
      [type],
    );
    return rows.map((row) => ({ record_id: row.record_id, payload: (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<string, unknown> }));
  };

  beforeAll(async () => {
    server = await startServer(() => ctx.open(), {
      rules: true,
      seed: { counts: { User: 3, Post: 3, Product: 1, Order: 1, OrderItem: 1 }, linksPerRecord: 1 },
      server: {
        auth: { adminKey: ADMIN_KEY },
        logger: { level: 'info', stream: { write: (line: string) => void logLines.push(line) } },
        accounts: { passwordHash: CHEAP_HASH, limits: { failuresPerIdentifier: { points: 5, seconds: 60 }, signInsPerAddress: { points: 10_000, seconds: 60 }, signUpsPerAddress: { points: 10_000, seconds: 60 } } },
      },
    });
  });
  afterAll(async () => {
    await server.close();
  });

  it('signs up in both styles with the same answer, and refuses weak passwords and a taken email alike', async () => {
    for (const style of STYLES) {
      const { session } = await newAccount(style, `Signed up by ${style}`);
      expect(session).toMatchObject({ tokenType: 'Bearer', expiresIn: 900 });
      expect(typeof session['accessToken']).toBe('string');
      expect(String(session['refreshToken'])).toMatch(/^drt_/);
      expect(decodeProtectedHeader(String(session['accessToken'])).kid).toMatch(/^diglot-/);
    }
    for (const weak of ['short', 'password123', 'PASSWORD1']) {
      const codes = await Promise.all(STYLES.map(async (style) => (await flows.signUp(style, { name: 'Weak', email: `weak-${style}@example.com` }, weak)).code));
      expect(codes).toEqual(['WEAK_PASSWORD', 'WEAK_PASSWORD']);
    }
    const { email } = await newAccount('rest');
    const taken = await Promise.all(STYLES.map(async (style) => (await flows.signUp(style, { name: 'Again', email }, 'another long password')).code));
    expect(taken).toEqual(['UNIQUE_VIOLATION', 'UNIQUE_VIOLATION']);
    const restWeak = await flows.signUp('rest', { name: 'Weak', email: 'weak@example.com' }, 'short');
    expect(restWeak.response.status).toBe(400);
  });

  it('signs in in both styles; a wrong password and an unknown email get the same answer', async () => {
    const { email, password } = await newAccount('rest');
    for (const style of STYLES) {
      const ok = await flows.signIn(style, email, password);
      expect(ok.code).toBeUndefined();
      expect(ok.data?.['accountId']).toBeTypeOf('string');
      const wrong = await flows.signIn(style, email, 'not the password at all');
      const unknown = await flows.signIn(style, 'nobody@example.com', 'not the password at all');
      expect([wrong.code, unknown.code]).toEqual(['INVALID_CREDENTIALS', 'INVALID_CREDENTIALS']);
      if (style === 'rest') {
        expect(wrong.response.status).toBe(401);
        expect(wrong.response.json.detail).toBe(unknown.response.json.detail);
      } else {
        expect(wrong.response.json.errors[0].message).toBe(unknown.response.json.errors[0].message);
      }
    }
    expect(logLines.some((line) => line.includes('"outcome":"failure"'))).toBe(true);
    expect(logLines.some((line) => line.includes('"outcome":"success"'))).toBe(true);
  });

  it('reads /me and { me } as GET /users/<own id> reads it, and writes with the access token', async () => {
    const { session } = await newAccount('graphql', 'Me Myself');
    const token = String(session['accessToken']);
    const id = String(session['accountId']);
    const own = await rest('GET', `/users/${id}`, undefined, token);
    const restMe = await flows.me('rest', token);
    expect(restMe.response.status).toBe(200);
    expect(restMe.data).toEqual(own.json);
    expect(restMe.data?.['email']).toMatch(/@example\.com$/);
    const graphqlMe = await flows.me('graphql', token);
    expect(graphqlMe.data).toEqual({ id, name: 'Me Myself', email: own.json.email, role: 'MEMBER', isVerified: false });
    expect(session['account']).toEqual({ id, email: own.json.email });
    const anonymous = await Promise.all(STYLES.map(async (style) => (await flows.me(style, undefined)).code));
    expect(anonymous).toEqual(['UNAUTHENTICATED', 'UNAUTHENTICATED']);
    const post = await rest('POST', '/posts', { title: 'Mine', body: 'Written with my own token' }, token);
    expect(post.status).toBe(201);
    expect(post.json.author).toBe(id);
  });

  it('rotates refresh tokens; reusing a rotated one ends the whole family', async () => {
    for (const style of STYLES) {
      const { session } = await newAccount(style);
      const first = String(session['refreshToken']);
      const second = await flows.refresh(style, first);
      expect(second.code).toBeUndefined();
      const secondToken = String(second.data?.['refreshToken']);
      expect(secondToken).not.toBe(first);
      const third = await flows.refresh(style, secondToken);
      expect(third.code).toBeUndefined();
      const reused = await flows.refresh(style, first);
      expect(reused.code).toBe('REFRESH_TOKEN_REUSED');
      if (style === 'rest') expect(reused.response.status).toBe(401);
      // The newest token of the family was revoked with it.
      expect((await flows.refresh(style, String(third.data?.['refreshToken']))).code).toBe('REFRESH_TOKEN_INVALID');
      expect((await flows.refresh(style, 'drt_made-up')).code).toBe('REFRESH_TOKEN_INVALID');
    }
  });

  it('signs out one session, or every session', async () => {
    for (const style of STYLES) {
      const { email, password, session } = await newAccount(style);
      const other = (await flows.signIn(style, email, password)).data as Record<string, unknown>;
      expect((await flows.signOut(style, String(session['refreshToken']))).code).toBeUndefined();
      expect((await flows.refresh(style, String(session['refreshToken']))).code).toBe('REFRESH_TOKEN_INVALID');
      const otherRefreshed = await flows.refresh(style, String(other['refreshToken']));
      expect(otherRefreshed.code).toBeUndefined();
      const third = (await flows.signIn(style, email, password)).data as Record<string, unknown>;
      expect((await flows.signOutEverywhere(style, String(third['accessToken']))).code).toBeUndefined();
      expect((await flows.refresh(style, String(otherRefreshed.data?.['refreshToken']))).code).toBe('REFRESH_TOKEN_INVALID');
      expect((await flows.refresh(style, String(third['refreshToken']))).code).toBe('REFRESH_TOKEN_INVALID');
      expect((await flows.signOutEverywhere(style, 'not-a-token')).code).toBe('UNAUTHENTICATED');
    }
  });

  it('changes the password with the current one; the other sessions end, this one goes on', async () => {
    for (const style of STYLES) {
      const { email, password, session } = await newAccount(style);
      const other = (await flows.signIn(style, email, password)).data as Record<string, unknown>;
      const token = String(session['accessToken']);
      const fresh = `a brand new password ${style}`;
      passwords.add(fresh);
      expect((await flows.changePassword(style, token, 'wrong current password', fresh)).code).toBe('INVALID_CREDENTIALS');
      expect((await flows.changePassword(style, token, password, 'short')).code).toBe('WEAK_PASSWORD');
      expect((await flows.changePassword(style, token, password, fresh)).code).toBeUndefined();
      expect((await flows.refresh(style, String(other['refreshToken']))).code).toBe('REFRESH_TOKEN_INVALID');
      expect((await flows.refresh(style, String(session['refreshToken']))).code).toBeUndefined();
      expect((await flows.signIn(style, email, password)).code).toBe('INVALID_CREDENTIALS');
      expect((await flows.signIn(style, email, fresh)).code).toBeUndefined();
    }
  });

  it('resets a password with a single-use token handed out as an event; an unknown email gets the same answer and no event', async () => {
    for (const style of STYLES) {
      const { email, session } = await newAccount(style);
      const before = (await events('account.password_reset_requested')).length;
      const requested = await flows.requestReset(style, email);
      expect(requested.code).toBeUndefined();
      const unknown = await flows.requestReset(style, `nobody-${style}@example.com`);
      expect(unknown.response.status).toBe(requested.response.status);
      expect(unknown.response.text).toBe(requested.response.text);
      const sent = (await events('account.password_reset_requested')).slice(before);
      expect(sent).toHaveLength(1);
      expect(sent[0]?.record_id).toBe(session['accountId']);
      const link = String(sent[0]?.payload['link']);
      expect(link).toMatch(/\/reset-password\?token=dot_/);
      const token = new URL(link).searchParams.get('token') as string;
      const fresh = `reset to this password ${style}`;
      passwords.add(fresh);
      expect((await flows.confirmReset(style, token, 'short')).code).toBe('WEAK_PASSWORD');
      expect((await flows.confirmReset(style, token, fresh)).code).toBeUndefined();
      expect((await flows.confirmReset(style, token, fresh)).code).toBe('ONE_TIME_TOKEN_INVALID');
      expect((await flows.refresh(style, String(session['refreshToken']))).code).toBe('REFRESH_TOKEN_INVALID');
      expect((await flows.signIn(style, email, fresh)).code).toBeUndefined();
      expect(logLines.some((line) => line.includes(token))).toBe(false);
    }
  });

  it('verifies the email with the token of the event sent at sign-up', async () => {
    for (const style of STYLES) {
      const { session } = await newAccount(style);
      const id = String(session['accountId']);
      const sent = (await events('account.verification_requested')).filter((event) => event.record_id === id);
      expect(sent).toHaveLength(1);
      const token = new URL(String(sent[0]?.payload['link'])).searchParams.get('token') as string;
      expect((await flows.verifyEmail(style, token)).code).toBeUndefined();
      expect((await flows.verifyEmail(style, token)).code).toBe('ONE_TIME_TOKEN_INVALID');
      expect((await flows.me(style, String(session['accessToken']))).data?.['isVerified']).toBe(true);
    }
  });

  it('stops a suspended or deleted account at its next refresh', async () => {
    for (const style of STYLES) {
      const suspended = await newAccount(style);
      const id = String(suspended.session['accountId']);
      // Set as the back office would (the field is @readonly in the API).
      await server.db.run(`UPDATE users SET suspended_reason = 'spam' WHERE id = ${server.db.sql.placeholder(0)}`, [id]);
      expect((await flows.refresh(style, String(suspended.session['refreshToken']))).code).toBe('ACCOUNT_SUSPENDED');
      expect((await flows.signIn(style, suspended.email, suspended.password)).code).toBe('ACCOUNT_SUSPENDED');

      const deleted = await newAccount(style);
      const gone = await rest('DELETE', `/users/${String(deleted.session['accountId'])}`, undefined, String(deleted.session['accessToken']));
      expect(gone.status).toBe(204);
      expect((await flows.refresh(style, String(deleted.session['refreshToken']))).code).toBe('REFRESH_TOKEN_INVALID');
      expect((await flows.signIn(style, deleted.email, deleted.password)).code).toBe('INVALID_CREDENTIALS');
    }
  });

  it('answers a burst of bad sign-ins with 429 and Retry-After, in both styles', async () => {
    const { email, password } = await newAccount('rest');
    const codes: (string | undefined)[] = [];
    for (let i = 0; i < 7; i++) codes.push((await flows.signIn(i % 2 === 0 ? 'rest' : 'graphql', email, `wrong guess number ${i}`)).code);
    expect(codes.slice(0, 5)).toEqual(Array(5).fill('INVALID_CREDENTIALS'));
    expect(codes.slice(5)).toEqual(['RATE_LIMITED', 'RATE_LIMITED']);
    const restLimited = await flows.signIn('rest', email, password);
    expect(restLimited.response.status).toBe(429);
    expect(Number(restLimited.response.headers.get('retry-after'))).toBeGreaterThan(0);
    const graphqlLimited = await flows.signIn('graphql', email, password);
    expect(graphqlLimited.code).toBe('RATE_LIMITED');
    expect(Number(graphqlLimited.response.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('keeps the previous signing key valid after a rotation', async () => {
    const { session } = await newAccount('rest');
    const before = String(session['accessToken']);
    const accounts = await import('../../src/storage/accounts.js');
    const store = new accounts.AccountStore(server.db, server.model);
    const oldKid = decodeProtectedHeader(before).kid;
    const { loadSigningKeys } = await import('../../src/auth/accounts/signing-keys.js');
    const keys = await loadSigningKeys({ store, accessTokenSeconds: 900, now: Date.now });
    const newKid = await keys.rotate();
    expect(newKid).not.toBe(oldKid);
    expect((await flows.me('rest', before)).response.status).toBe(200);
    // The server reads the new key when it first meets its kid.
    const fresh = await keys.sign({ role: 'MEMBER' }, String(session['accountId']));
    expect((await flows.me('rest', fresh)).response.status).toBe(200);
  });

  it('answers every /auth and /me request as the OpenAPI document says', async () => {
    const validator = createResponseValidator((await http(server.url, 'GET', '/openapi.json')).json as object);
    const checked = restCalls.filter((call) => call.path.startsWith('/auth/') || call.path === '/me');
    expect(new Set(checked.map((call) => call.path)).size).toBeGreaterThanOrEqual(9);
    for (const { method, path, response } of checked) {
      expect(validator.validate(method, path, response.status, response.headers.get('content-type'), response.json, response.headers), `${method} ${path} ${response.status}`).toEqual([]);
    }
  });

  it('never lets a password out: not in any response, log line or event', async () => {
    expect(passwords.size).toBeGreaterThan(10);
    const outbox = await server.db.all<{ payload: unknown }>("SELECT COALESCE(record, '') || COALESCE(previous, '') || principal AS payload FROM _diglot_events");
    const everything = [...bodies, ...logLines, ...outbox.map((row) => (typeof row.payload === 'string' ? row.payload : JSON.stringify(row.payload)))];
    for (const password of passwords) {
      expect(everything.filter((text) => text.includes(password))).toEqual([]);
    }
    const schema = await rest('GET', '/openapi.json');
    const introspection = await graphql('{ __type(name: "User") { fields { name } } }');
    expect(schema.text.toLowerCase()).not.toMatch(/password_hash|passwordhash/);
    expect(JSON.stringify(introspection.json)).not.toMatch(/password/i);
  });
});
