import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';
import type { Authenticator } from '../auth/authenticator.js';
import { challengeFor } from '../auth/www-authenticate.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import type { Principal } from '../plan/principal.js';
import { clientKey, clientNameOf, type ContextLog, type CredentialLifetime, type RequestContext, type RequestMeter, type RequestSite } from '../plan/request-context.js';
import { header } from '../util/http-request.js';
import type { ActivePolicy, RateLimits } from './rate-limits.js';
import type { Verdict } from './shared-counts.js';
// For its `FastifyRequest.requestContext` declaration.
import '../auth/request-principal.js';

/** Seconds a client is asked to wait when the key set or the database did not answer. */
const RETRY_AFTER_SECONDS = '5';

/**
 * A request's budget and stage clock: the engine charges it and times its
 * statements through `RequestMeter`; the answer's `RateLimit`,
 * `RateLimit-Policy` and `Server-Timing` headers come from it.
 */
export class EdgeMeter implements RequestMeter {
  planEnd = 0;
  dbMs = 0;
  /** The budget's last word on this request's key, once it has spent. */
  spent: Verdict | undefined;
  readonly limited: boolean;

  constructor(
    readonly start: number,
    readonly policy: ActivePolicy | undefined,
    readonly key: string,
    /** Whether the answer shows its stage timings: to the admin role only, as server-side detail (a stranger could time a row a rule hides, or an account that exists). */
    readonly timed: boolean,
  ) {
    this.limited = policy !== undefined;
  }

  spend(cost: number): Promise<void> | undefined {
    const { policy } = this;
    if (policy === undefined) return undefined;
    // Counted in memory (shared with other instances in batches): nothing to wait for.
    const verdict = policy.take(this.key, cost);
    this.spent = verdict;
    return verdict.taken ? undefined : Promise.reject(rateLimited(policy, verdict, cost));
  }
}

function rateLimited(policy: ActivePolicy, state: Verdict, cost: number): ApiError {
  const retryAfter = secondsUntil(state.msBeforeNext);
  const detail =
    cost > policy.points
      ? `This request costs ${cost} points, more than the ${policy.points} a window allows: ask for smaller pages or less nesting`
      : `The ${policy.points} points of this window are spent (this request costs ${cost}); try again in ${retryAfter} s`;
  return new ApiError('RATE_LIMITED', { detail, extensions: { retryAfter, policy: policy.name } });
}

function secondsUntil(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/** Builds the request context of every way in, with the server's limits: the one place a context is made. */
export interface ContextFactory {
  /**
   * The context of one operation: an HTTP request, or one message on a
   * WebSocket (each with its own meter). `clientName` is the `X-Client-Name`
   * it sent (an upgrade's, for a WebSocket), as sent.
   */
  create(principal: Principal, address: string, clientName: string | undefined, log: ContextLog, site: RequestSite, start?: number): RequestContext;
}

export function createContextFactory(limits: RateLimits | undefined, lifetimeOf: (principal: Principal) => CredentialLifetime): ContextFactory {
  return {
    create: (principal, address, clientName, log, site, start = performance.now()) => {
      const key = clientKey(principal, address);
      const policy = limits?.policyOf(principal);
      return { principal, client: { key, address, name: clientNameOf(clientName) }, meter: new EdgeMeter(start, policy, key, principal.admin), log, site, credential: lifetimeOf(principal) };
    },
  };
}

/**
 * Sets `request.requestContext` on every request, before any route runs
 * (REST, /graphql, /files, the docs): an `onRequest` hook on the root, so it
 * is inherited by every plugin registered after it. A refused credential
 * ends the request with 401 and an RFC 6750 challenge, rendered by the
 * route's own error handler: problem+json in REST, the GraphQL envelope on
 * /graphql. Every answer then carries the context's headers.
 */
export function installRequestContext(app: FastifyInstance, authenticator: Authenticator, contexts: ContextFactory): void {
  // Fastify 5 takes only primitives here; the hook sets the real value.
  app.decorateRequest('requestContext', null);
  const begin = (request: FastifyRequest, principal: Principal, start: number): void => {
    const site = { transport: 'http', method: request.method, origin: header(request, 'origin'), fetchSite: header(request, 'sec-fetch-site') } as const;
    request.requestContext = contexts.create(principal, request.ip, header(request, 'x-client-name'), request.log, site, start);
  };
  app.addHook('onRequest', (request, reply, done) => {
    const start = performance.now();
    const authorization = request.headers.authorization;
    let result: Principal | Promise<Principal>;
    try {
      result = authenticator.authenticate(authorization);
    } catch (error) {
      refuse(request, reply, error, done);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (principal) => {
          begin(request, principal, start);
          done();
        },
        (error: unknown) => {
          refuse(request, reply, error, done);
        },
      );
      return;
    }
    begin(request, result, start);
    done();
  });
  app.addHook('onSend', (request, reply, _payload, done) => {
    const meter = request.requestContext?.meter;
    if (meter instanceof EdgeMeter) writeContextHeaders(meter, reply);
    done();
  });
}

/**
 * `Server-Timing` (PostgREST's stages: parsing and planning, statements,
 * rendering and sending, in milliseconds) and, where a budget applies, the
 * `RateLimit-Policy` and `RateLimit` fields of
 * draft-ietf-httpapi-ratelimit-headers (structured fields: remaining points
 * `r`, seconds until the window resets `t`).
 */
function writeContextHeaders(context: EdgeMeter, reply: FastifyReply): void {
  if (context.timed) {
    const end = performance.now();
    const planned = context.planEnd === 0 ? end : context.planEnd;
    const render = Math.max(0, end - planned - context.dbMs);
    reply.header('server-timing', `plan;dur=${(planned - context.start).toFixed(2)}, db;dur=${context.dbMs.toFixed(2)}, render;dur=${render.toFixed(2)}`);
  }
  const { policy, spent } = context;
  if (policy === undefined) return;
  reply.header('ratelimit-policy', policy.header);
  if (spent !== undefined) reply.header('ratelimit', `"${policy.name}";r=${spent.remainingPoints};t=${secondsUntil(spent.msBeforeNext)}`);
}

function refuse(request: FastifyRequest, reply: FastifyReply, error: unknown, done: HookHandlerDoneFunction): void {
  if (isApiError(error)) {
    const challenge = challengeFor(error, request.headers.authorization);
    if (challenge !== undefined) void reply.header('www-authenticate', challenge);
    if (error.status === 503) {
      void reply.header('retry-after', RETRY_AFTER_SECONDS);
      // Why the key set could not be fetched, for the operator (the client gets the code alone).
      if (error.cause !== undefined) request.log.warn({ err: error.cause, code: error.code }, 'authentication unavailable');
    }
  }
  done(error instanceof Error ? error : new Error(String(error)));
}
