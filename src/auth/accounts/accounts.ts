import { randomBytes } from 'node:crypto';
import { decodeJwt } from 'jose';
import { adminRoleOf } from '../admin-role.js';
import type { Engine } from '../../engine/engine.js';
import { ApiError, isApiError } from '../../errors/api-error.js';
import { planCreate, planDelete, planUpdate } from '../../plan/build-write.js';
import { ownAccountId, type Principal } from '../../plan/principal.js';
import { serverContext, type RequestContext } from '../../plan/request-context.js';
import type { DeprecatedUse } from '../../plan/deprecated-use.js';
import { validateInput } from '../../plan/validate-input.js';
import type { AccountType, ResourceType } from '../../schema/model.js';
import { AccountStore, isSet, type AccountState, type OneTimePurpose } from '../../storage/accounts.js';
import { newId } from '../../util/ids.js';
import { hashCredential } from '../credential-hash.js';
import { createAccountLimits, type AccountLimitOptions } from './account-limits.js';
import { COMMON_PASSWORDS } from './common-passwords.js';
import { createPasswordHasher, type PasswordHashParameters } from './password-hash.js';
import { loadSigningKeys, type SigningKeys } from './signing-keys.js';
import { createSuspensions, type Suspensions } from './suspensions.js';

export interface AccountsOptions {
  /** Access token lifetime in seconds (default 900: 15 minutes). */
  readonly accessTokenSeconds?: number;
  /** Refresh token lifetime in seconds (default 30 days). */
  readonly refreshTokenSeconds?: number;
  /** Password reset token lifetime in seconds (default 1 hour). */
  readonly resetTokenSeconds?: number;
  /** Email verification token lifetime in seconds (default 2 days). */
  readonly verifyTokenSeconds?: number;
  /** Where the links in reset and verification events point: `<linkBase>/reset-password?token=…` (default `http://localhost:3000`). */
  readonly linkBase?: string;
  /** Sign with this secret (32 bytes or more; DIGLOT_JWT_SECRET) instead of keys kept in the database. */
  readonly signingSecret?: string;
  /** Sign with this private key (PEM: Ed25519, P-256, P-384 or RSA) instead, and serve its public half at /.well-known/jwks.json. */
  readonly signingPrivateKey?: string;
  /** argon2id cost (default: OWASP's m=19456 KiB, t=2, p=1). */
  readonly passwordHash?: PasswordHashParameters;
  /** Hashes computed at once (default: one less than the cores, at least one), so the event loop keeps a core. */
  readonly hashConcurrency?: number;
  readonly limits?: AccountLimitOptions;
  readonly now?: () => number;
}

/** What a sign-in, sign-up or refresh answers, the same in both styles. */
export interface Session {
  readonly accessToken: string;
  readonly tokenType: 'Bearer';
  /** Seconds the access token lives. */
  readonly expiresIn: number;
  readonly refreshToken: string;
  readonly refreshExpiresIn: number;
  readonly accountId: string;
}

/** Who asks, from where, and where to log: what a front-end hands each flow. */
export interface AccountRequest {
  readonly principal: Principal;
  /** The client's address, for rate limits and the log. */
  readonly address: string;
  readonly log: AccountLog;
  /** The request's context: the flow's own writes are charged to it. */
  readonly context: RequestContext;
  /**
   * Told the deprecated things a flow's write uses (a sign-up's input naming
   * an old or deprecated field), as soon as it is planned: the front-end
   * tells the client as it does for any write (headers, `extensions`).
   */
  readonly used: (uses: readonly DeprecatedUse[]) => void;
}

/** A flow's request, from the request context of whichever transport carried it, and where its deprecated uses go. */
export function accountRequestOf(context: RequestContext, used: (uses: readonly DeprecatedUse[]) => void): AccountRequest {
  return { principal: context.principal, address: context.client.address, log: context.log, context, used };
}

export interface AccountLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
}

/**
 * Sign-up, sign-in and tokens for the type marked `@account`: one
 * implementation that REST's /auth routes and GraphQL's mutations both call,
 * so the two styles give the same answers and the same error codes.
 */
export interface Accounts {
  readonly type: ResourceType;
  readonly account: AccountType;
  readonly keys: SigningKeys;
  signUp(input: Readonly<Record<string, unknown>>, password: unknown, request: AccountRequest): Promise<Session>;
  signIn(identifier: unknown, password: unknown, request: AccountRequest): Promise<Session>;
  refresh(refreshToken: unknown, request: AccountRequest): Promise<Session>;
  signOut(refreshToken: unknown, request: AccountRequest): Promise<void>;
  signOutEverywhere(request: AccountRequest): Promise<void>;
  changePassword(current: unknown, next: unknown, request: AccountRequest): Promise<void>;
  requestPasswordReset(identifier: unknown, request: AccountRequest): Promise<void>;
  confirmPasswordReset(token: unknown, password: unknown, request: AccountRequest): Promise<void>;
  requestEmailVerification(request: AccountRequest): Promise<void>;
  confirmEmailVerification(token: unknown, request: AccountRequest): Promise<void>;
  /** Sets an account's password, as an operator does (`diglot start`'s demo accounts): checked as at sign-up. */
  setPassword(accountId: string, password: string): Promise<void>;
  /** The principal a session's access token stands for (as the authenticator would make it), to read the account with. */
  principalOf(session: Session): Principal;
  /** The suspended accounts, known in process: their tokens and streams are refused at once. */
  readonly suspensions: Suspensions;
  /** Stops checking the engine's writes and listening for suspensions (the server closes, or a one-off use is done). */
  close(): Promise<void>;
}

const REFRESH_PREFIX = 'drt_';
const ONE_TIME_PREFIX = 'dot_';
/** Longer passwords are refused before hashing: argon2 of a megabyte is work an attacker would like us to do. */
const MAX_PASSWORD_LENGTH = 256;
const MIN_PASSWORD_LENGTH = 8;
/** Longer than any email address (RFC 5321 allows 254 characters). */
const MAX_LOGGED_IDENTIFIER = 320;

/** Accounts for the engine's model, or undefined when no type is marked `@account`. */
export async function createAccounts(engine: Engine, options: AccountsOptions = {}): Promise<Accounts | undefined> {
  const { model, db } = engine;
  const account = model.account;
  if (account === undefined) return undefined;
  const type = model.typesByName.get(account.type);
  if (type === undefined) throw new Error(`The account type ${account.type} is not in the model`);
  const now = options.now ?? Date.now;
  const accessTokenSeconds = options.accessTokenSeconds ?? 900;
  const refreshTokenSeconds = options.refreshTokenSeconds ?? 30 * 24 * 3600;
  const linkBase = (options.linkBase ?? 'http://localhost:3000').replace(/\/+$/, '');
  const store = new AccountStore(db, model);
  const hasher = createPasswordHasher(options.passwordHash, options.hashConcurrency);
  const keys = await loadSigningKeys({ store, secret: options.signingSecret, privateKey: options.signingPrivateKey, accessTokenSeconds, now });
  const limits = await createAccountLimits(options.limits, db.sharedRateLimiter);
  const suspensions = await createSuspensions(db, store, engine.changes);
  const admin: Principal = Object.freeze({ id: null, role: adminRoleOf(model), claims: Object.freeze({}), admin: true, via: 'admin-key' });

  const issue = async (state: AccountState, familyId = newId()): Promise<Session> => {
    const refreshToken = `${REFRESH_PREFIX}${randomBytes(32).toString('base64url')}`;
    const at = now();
    await store.insertSession({ id: newId(), familyId, accountId: state.id, tokenHash: hashCredential(refreshToken), createdAt: at, expiresAt: at + refreshTokenSeconds * 1000 });
    return sessionOf(state, refreshToken, familyId);
  };
  const sessionOf = async (state: AccountState, refreshToken: string, familyId: string): Promise<Session> => {
    const claims = { ...(state.role === null ? {} : { role: state.role }), sid: familyId };
    const accessToken = await keys.sign(claims, state.id);
    return { accessToken, tokenType: 'Bearer', expiresIn: accessTokenSeconds, refreshToken, refreshExpiresIn: refreshTokenSeconds, accountId: state.id };
  };

  // Through the engine, which wakes the event hub as a record write does: the link leaves at once.
  const event = (eventType: string, accountId: string, payload: Record<string, unknown>): Promise<void> =>
    engine.recordEvent({ id: `evt_${newId()}`, type: eventType, accountId, payload: { accountId, ...payload } });

  const oneTimeToken = async (accountId: string, purpose: OneTimePurpose, seconds: number): Promise<{ token: string; expiresAt: number }> => {
    const token = `${ONE_TIME_PREFIX}${randomBytes(32).toString('base64url')}`;
    const at = now();
    const expiresAt = at + seconds * 1000;
    await store.insertOneTimeToken(hashCredential(token), accountId, purpose, at, expiresAt);
    return { token, expiresAt };
  };

  const requestVerification = async (accountId: string): Promise<void> => {
    if (account.verified === undefined) return;
    const { token, expiresAt } = await oneTimeToken(accountId, 'verify-email', options.verifyTokenSeconds ?? 2 * 24 * 3600);
    await event('account.verification_requested', accountId, { link: `${linkBase}/verify-email?token=${token}`, token, expiresAt: new Date(expiresAt).toISOString() });
  };

  const signedInAccount = ownAccountId;

  // Sign-up's limits hold for every create of the account type, in both styles and on every transport (a plain
  // `POST /users` or `createUser` too), and an identifier conflict on an update counts against them: each 409 tells
  // whether an identifier is taken. The admin is not limited; a sign-up, which counted itself before hashing, is not counted twice.
  const countedSignUps = new WeakSet<RequestContext>();
  const identifierPointer = `/${account.identifier}`;
  const suspensionWritten = async (id: string, suspended: boolean): Promise<void> => {
    // Told to every process before the write is answered: the account's next request anywhere is refused.
    await suspensions.changed(id, suspended);
    // Suspension ends every session: no refresh token of the account works again, even once the suspension is lifted.
    if (suspended) await store.revokeAccountSessions(id, now());
  };
  const unguard = engine.guardWrites({
    before: (context, plan) =>
      plan.kind === 'create' && plan.type === type.name && !context.principal.admin && !countedSignUps.has(context) ? limits.checkSignUp(context.client.address) : undefined,
    committed: (_context, plan, result) => {
      const field = account.suspended;
      if (field === undefined || plan.type !== type.name) return undefined;
      if (plan.kind === 'delete') return suspensions.changed(plan.id, false);
      if ((plan.kind !== 'update' && plan.kind !== 'create') || !(field in plan.values)) return undefined;
      return suspensionWritten(plan.kind === 'update' ? plan.id : result.id, isSet(plan.values[field]));
    },
    failed: (context, plan, error) =>
      plan.kind === 'update' && plan.type === type.name && !context.principal.admin && isApiError(error) && error.code === 'UNIQUE_VIOLATION' && error.errors.some((detail) => detail.pointer === identifierPointer)
        ? limits.checkSignUp(context.client.address)
        : undefined,
  });

  return {
    type,
    account,
    keys,
    async signUp(input, password, request) {
      await limits.checkSignUp(request.address);
      const secret = checkNewPassword(password);
      const values = validateInput(model, type, input, 'create');
      const identifier = values[account.identifier];
      if (typeof identifier === 'string' && identifier.toLowerCase() === secret.toLowerCase()) {
        throw new ApiError('WEAK_PASSWORD', { detail: 'The password must not be the sign-in identifier' });
      }
      // The create rule decides who may sign up, as it decides who may create the record any other way.
      const plan = planCreate(model, type.name, values, request.principal);
      if (plan.deprecations !== undefined) request.used(plan.deprecations);
      const hash = await hasher.hash(secret);
      const counted: RequestContext = { ...request.context };
      countedSignUps.add(counted);
      const { id } = await engine.write(counted, plan);
      try {
        await store.setPassword(id, hash, now());
      } catch (error) {
        // Without its password the account could never sign in: take it back (its delete cascades).
        await engine.write(serverContext(admin, request.context.log), planDelete(model, type.name, id, admin)).catch(() => undefined);
        throw error;
      }
      request.log.info({ account: { event: 'sign-up', accountId: id, address: request.address } }, 'account signed up');
      await requestVerification(id);
      const state = await store.findById(id);
      if (state === undefined) throw new ApiError('NOT_FOUND', { detail: `${type.name} ${id} was deleted meanwhile` });
      return issue(state);
    },

    async signIn(identifier, password, request) {
      const name = requiredText(identifier, account.identifier);
      const secret = requiredText(password, 'password');
      await limits.checkSignIn(name, request.address);
      const state = await store.findByIdentifier(name);
      // An unknown identifier costs one hash too, and gets the same answer: the timing tells nothing.
      const stored = state?.passwordHash ?? null;
      const valid = stored !== null && secret.length <= MAX_PASSWORD_LENGTH ? await hasher.verify(stored, secret) : (await hasher.verifyDummy(secret.slice(0, MAX_PASSWORD_LENGTH)), false);
      if (state === undefined || !valid) {
        request.log.warn({ account: { event: 'sign-in', outcome: 'failure', identifier: loggable(name), address: request.address } }, 'sign-in failed');
        throw new ApiError('INVALID_CREDENTIALS', { detail: `Wrong ${account.identifier} or password` });
      }
      if (state.suspended) {
        request.log.warn({ account: { event: 'sign-in', outcome: 'suspended', accountId: state.id, address: request.address } }, 'sign-in of a suspended account');
        throw new ApiError('ACCOUNT_SUSPENDED', { detail: 'This account is suspended' });
      }
      await limits.succeededSignIn(name);
      // Parameters raised since the hash was made: store it again with today's, now that the password is known.
      if (hasher.outdated(state.passwordHash as string)) await store.setPassword(state.id, await hasher.hash(secret), now());
      request.log.info({ account: { event: 'sign-in', outcome: 'success', accountId: state.id, address: request.address } }, 'signed in');
      return issue(state);
    },

    async refresh(refreshToken, request) {
      const token = requiredText(refreshToken, 'refreshToken');
      const session = await store.findSession(hashCredential(token));
      const at = now();
      if (session === undefined || session.revokedAt !== null || session.expiresAt <= at) {
        throw new ApiError('REFRESH_TOKEN_INVALID', { detail: 'The refresh token is unknown, expired or revoked: sign in again' });
      }
      const reused = async (): Promise<never> => {
        // RFC 6819 §5.2.2.3 / OAuth 2.1 §4.3.1: a rotated token used again means it leaked; end the whole family.
        await store.revokeFamily(session.familyId, at);
        request.log.warn({ account: { event: 'refresh-token-reused', accountId: session.accountId, address: request.address } }, 'rotated refresh token reused: session family revoked');
        throw new ApiError('REFRESH_TOKEN_REUSED', { detail: 'This refresh token was already used; every session of this sign-in has ended: sign in again' });
      };
      if (session.rotatedAt !== null) return reused();
      const state = await store.findById(session.accountId);
      if (state === undefined || state.suspended) {
        await store.revokeFamily(session.familyId, at);
        throw state === undefined
          ? new ApiError('REFRESH_TOKEN_INVALID', { detail: 'The account no longer exists' })
          : new ApiError('ACCOUNT_SUSPENDED', { detail: 'This account is suspended' });
      }
      const next = `${REFRESH_PREFIX}${randomBytes(32).toString('base64url')}`;
      const rotated = await store.rotate(session.id, {
        id: newId(),
        familyId: session.familyId,
        accountId: state.id,
        tokenHash: hashCredential(next),
        createdAt: at,
        expiresAt: at + refreshTokenSeconds * 1000,
      });
      if (!rotated) return reused();
      return sessionOf(state, next, session.familyId);
    },

    async signOut(refreshToken, request) {
      const session = await store.findSession(hashCredential(requiredText(refreshToken, 'refreshToken')));
      if (session === undefined) return;
      await store.revokeFamily(session.familyId, now());
      request.log.info({ account: { event: 'sign-out', accountId: session.accountId, address: request.address } }, 'signed out');
    },

    async signOutEverywhere(request) {
      const id = signedInAccount(request.principal);
      await store.revokeAccountSessions(id, now());
      request.log.info({ account: { event: 'sign-out-everywhere', accountId: id, address: request.address } }, 'signed out everywhere');
    },

    async changePassword(current, next, request) {
      const id = signedInAccount(request.principal);
      const secret = requiredText(current, 'currentPassword');
      const fresh = checkNewPassword(next);
      const state = await store.findById(id);
      await limits.checkSignIn(`id:${id}`, request.address);
      const stored = state?.passwordHash ?? null;
      const valid = stored !== null && secret.length <= MAX_PASSWORD_LENGTH && (await hasher.verify(stored, secret));
      if (state === undefined || !valid) {
        throw new ApiError('INVALID_CREDENTIALS', { detail: 'The current password is wrong' });
      }
      await limits.succeededSignIn(`id:${id}`);
      await store.setPassword(id, await hasher.hash(fresh), now());
      // Every other sign-in ends; the caller's own (its `sid`) goes on.
      const sid = request.principal.claims['sid'];
      await store.revokeAccountSessions(id, now(), typeof sid === 'string' ? sid : undefined);
      request.log.info({ account: { event: 'password-changed', accountId: id, address: request.address } }, 'password changed');
    },

    async requestPasswordReset(identifier, request) {
      const name = requiredText(identifier, account.identifier);
      await limits.checkReset(name, request.address);
      const state = await store.findByIdentifier(name);
      // The same answer either way: whether an account exists is not told.
      if (state === undefined) return;
      const { token, expiresAt } = await oneTimeToken(state.id, 'password-reset', options.resetTokenSeconds ?? 3600);
      await event('account.password_reset_requested', state.id, { link: `${linkBase}/reset-password?token=${token}`, token, expiresAt: new Date(expiresAt).toISOString() });
      request.log.info({ account: { event: 'password-reset-requested', accountId: state.id, address: request.address } }, 'password reset requested');
    },

    async confirmPasswordReset(token, password, request) {
      const secret = checkNewPassword(password);
      const tokenHash = hashCredential(requiredText(token, 'token'));
      const invalid = (): ApiError => new ApiError('ONE_TIME_TOKEN_INVALID', { detail: 'The reset token is unknown, used or expired: ask for a new one' });
      // Anyone may send this request: a made-up token must not cost an argon2 hash (CPU and 19 MiB each).
      if (!(await store.oneTimeTokenUsable(tokenHash, 'password-reset', now()))) throw invalid();
      const hash = await hasher.hash(secret);
      const at = now();
      const id = await store.consumeOneTimeToken(tokenHash, 'password-reset', at, async (tx, accountId) => {
        await store.setPassword(accountId, hash, at, tx);
        await store.revokeAccountSessions(accountId, at, undefined, tx);
        return accountId;
      });
      if (id === undefined) throw invalid();
      request.log.info({ account: { event: 'password-reset', accountId: id, address: request.address } }, 'password reset');
    },

    async requestEmailVerification(request) {
      const id = signedInAccount(request.principal);
      if (account.verified === undefined) throw new ApiError('BAD_REQUEST', { detail: `${type.name} has no field marked as verified (@account(verified:))` });
      await requestVerification(id);
    },

    async confirmEmailVerification(token, request) {
      const verified = account.verified;
      if (verified === undefined) throw new ApiError('BAD_REQUEST', { detail: `${type.name} has no field marked as verified (@account(verified:))` });
      const id = await store.consumeOneTimeToken(hashCredential(requiredText(token, 'token')), 'verify-email', now(), (_tx, accountId) => Promise.resolve(accountId));
      if (id === undefined) throw new ApiError('ONE_TIME_TOKEN_INVALID', { detail: 'The verification token is unknown, used or expired: ask for a new one' });
      // Through the engine, as an admin would set it: the change clock moves and the change is an event like any other.
      await engine.write(serverContext(admin, request.context.log), planUpdate(model, type.name, id, validateInput(model, type, { [verified]: true }, 'patch'), admin));
      request.log.info({ account: { event: 'email-verified', accountId: id, address: request.address } }, 'email verified');
    },

    async setPassword(accountId, password) {
      await store.setPassword(accountId, await hasher.hash(checkNewPassword(password)), now());
    },

    suspensions,
    close: async () => {
      unguard();
      await suspensions.close();
    },
    principalOf: (session) => {
      const claims = decodeJwt(session.accessToken);
      const role = typeof claims['role'] === 'string' ? claims['role'] : null;
      return Object.freeze({ id: session.accountId, role, claims: Object.freeze(claims), admin: role === adminRoleOf(model), via: 'jwt' });
    },
  };
}

/** A new password, checked: NIST SP 800-63B §3.1.1.2 (a length floor, a list of common ones, no composition rules). */
function checkNewPassword(value: unknown): string {
  const password = requiredText(value, 'password');
  if (Array.from(password).length < MIN_PASSWORD_LENGTH) throw new ApiError('WEAK_PASSWORD', { detail: `The password must be at least ${MIN_PASSWORD_LENGTH} characters long` });
  if (password.length > MAX_PASSWORD_LENGTH) throw new ApiError('WEAK_PASSWORD', { detail: `The password must be at most ${MAX_PASSWORD_LENGTH} characters long` });
  if (COMMON_PASSWORDS.has(password.toLowerCase())) throw new ApiError('WEAK_PASSWORD', { detail: 'This password is among the most common ones; choose another' });
  return password;
}

/** An identifier as the log shows it: a stranger may send a megabyte of one, and each failure is a log line. */
function loggable(identifier: string): string {
  return identifier.length > MAX_LOGGED_IDENTIFIER ? `${identifier.slice(0, MAX_LOGGED_IDENTIFIER)}…` : identifier;
}

function requiredText(value: unknown, name: string): string {
  if (typeof value !== 'string' || value === '') throw new ApiError('VALIDATION_FAILED', { detail: `"${name}" is required, as a string` });
  return value;
}
