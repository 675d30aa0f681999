import type { Principal } from './principal.js';

/**
 * The request context: everything about a request that is not its question,
 * built once at the edge (src/server/) for every way in — an HTTP request,
 * a GraphQL GET, each operation on a WebSocket, a graphql-sse stream, a
 * REST event stream — and a required argument of the engine's entry points
 * (read, write, watch) and of both front-ends' handlers. A transport cannot
 * run an operation without one, so it cannot skip who is asking, their
 * budget, their client key or the site the request came from.
 */
export interface RequestContext {
  /** Who is asking. */
  readonly principal: Principal;
  /** The client, in one key format for every limiter (rate limits, live-read slots, sign-in limits). */
  readonly client: ClientIdentity;
  /** The budget the request is charged against, and its stage clock. */
  readonly meter: RequestMeter;
  /** The request's logger. */
  readonly log: ContextLog;
  /** Where the request came from and how. */
  readonly site: RequestSite;
  /** How long the credential stays good: a stream it opened ends when it does. */
  readonly credential: CredentialLifetime;
}

/** Why a credential stopped being good: its token expired, its account was suspended since, or its API key revoked. */
export type CredentialEnd = 'expired' | 'suspended' | 'revoked';

export interface CredentialLifetime {
  /** Calls `end` once, when the credential stops being good; returns the cancel function. */
  onEnd(end: (why: CredentialEnd) => void): () => void;
}

/** A credential that never ends on its own (an API key, the admin key, anonymous, the server itself). */
export const LASTING_CREDENTIAL: CredentialLifetime = { onEnd: () => () => undefined };

export interface ClientIdentity {
  /**
   * Whose budget and live-read slots: `account:<id>` for a signed-in
   * account, `key:<id>` for an API key, `admin` for the admin key, and
   * `ip:<address>` for an anonymous caller. Never a token's own claims
   * (`iat`, `exp`, `sid`): a refreshed token is the same client.
   */
  readonly key: string;
  /** The client's address (behind trusted proxies, the one they name): sign-in limits and logs count by it. */
  readonly address: string;
}

/** The transports an operation can arrive on. */
export type Transport = 'http' | 'graphql-ws' | 'graphql-sse' | 'event-stream' | 'server';

export interface RequestSite {
  readonly transport: Transport;
  /** The HTTP method that carried the operation (`GET` for a graphql-sse stream opened by GET); `POST` for a WebSocket message. */
  readonly method: string;
  /** The `Origin` a browser sent (a WebSocket's is its upgrade's), if any. */
  readonly origin?: string | undefined;
  /** Fetch metadata: the `Sec-Fetch-Site` a browser sent, if any. */
  readonly fetchSite?: string | undefined;
}

/**
 * What the engine charges a request and times it with: the one place every
 * front-end and transport passes through, so a REST GET with `include=`
 * and the same GraphQL query cost the same points wherever they arrive.
 */
export interface RequestMeter {
  /** False when no budget applies (the admin, limits off): nothing is worked out to be charged. */
  readonly limited: boolean;
  /**
   * Takes `cost` points from the asker's budget. Rejects with RATE_LIMITED
   * when the budget is spent; undefined when there was nothing to wait for
   * (no limit applies, or the points were taken at once).
   */
  spend(cost: number): Promise<void> | undefined;
  /** `performance.now()` when the first statement of the request started: the end of parsing and planning. */
  planEnd: number;
  /** Milliseconds spent running statements, all of them. */
  dbMs: number;
}

/** The logger a request carries (pino's shape). */
export interface ContextLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** The key a principal's budget and live-read slots are counted under (see ClientIdentity.key). */
export function clientKey(principal: Principal, address: string): string {
  switch (principal.via) {
    case 'anonymous':
      return `ip:${address}`;
    case 'api-key':
      return `key:${principal.id ?? ''}`;
    case 'admin-key':
      return 'admin';
    default:
      return `account:${principal.id ?? ''}`;
  }
}

/** A meter that charges nothing: for work the server does on its own behalf. */
export function unlimitedMeter(): RequestMeter {
  return { limited: false, spend: () => undefined, planEnd: 0, dbMs: 0 };
}

/**
 * The context of work the server does for itself (an account flow's own
 * writes, demo data): named explicitly at each call, so it is never what a
 * transport gets by forgetting one.
 */
export function serverContext(principal: Principal, log: ContextLog): RequestContext {
  return { principal, client: { key: 'server', address: '' }, meter: unlimitedMeter(), log, site: { transport: 'server', method: 'POST' }, credential: LASTING_CREDENTIAL };
}

/** A log that drops everything: for in-process work nobody reads the log of. */
export const SILENT_LOG: ContextLog = Object.freeze({ info: () => undefined, warn: () => undefined, error: () => undefined });
