import multipart from '@fastify/multipart';
import { createServer as createHttpServer } from 'node:http';
import proxyAddr from '@fastify/proxy-addr';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { resolvePlanLimits, type PlanLimits } from '../plan/limits.js';
import { ApiError } from '../errors/api-error.js';
import { PROBLEM_CONTENT_TYPE, problemOf } from '../rest/problem.js';
import { registerRestApi } from '../rest/rest-api.js';
import type { FileAccess, FileServe } from '../rest/file-routes.js';
import { printGraphqlSchema, registerGraphqlApi, type GraphqlOptions } from '../graphql/graphql-api.js';
import { createAdminService } from '../admin/admin-service.js';
import { createKeyRevocations } from '../auth/key-revocations.js';
import { WebhookRegistry } from '../events/webhook-registry.js';
import { registerAdminRoutes } from '../rest/admin-routes.js';
import { changeStreamPath, registerChangeStream } from '../rest/change-stream.js';
import { registerStartPage } from './start-page.js';
import { registerOpenApi } from '../rest/openapi/register-openapi.js';
import { multipartLimits } from '../files/multipart-parts.js';
import { adminRoleOf } from '../auth/admin-role.js';
import { createAuthenticator, type AuthOptions } from '../auth/authenticator.js';
import { createAccounts, type AccountsOptions } from '../auth/accounts/accounts.js';
import { createEventHub, type EventHub } from '../events/event-hub.js';
import type { EventsOptions } from '../events/webhook-options.js';
import { clientErrors } from './client-errors.js';
import { closeConnectionsWhenAnswered } from './close-when-answered.js';
import { AssetStore } from '../util/asset-store.js';
import { registerAssetRoutes } from './asset-routes.js';
import { registerConsolePage } from './console-page.js';
import { registerCompression } from './compression.js';
import { corsOrigins, registerCors, type CorsOptions } from './cors-policy.js';
import { crossSiteGuard, upgradeRefusal } from './cross-site-guard.js';
import { compileHostPolicy, hostGuard, hostRefusal, upgradeHost } from './host-guard.js';
import { registerSecurityHeaders } from './security-headers.js';
import { closeAfterUnreadBody, installErrorHandling } from './error-handler.js';
import { DEFAULT_LINGER, type LingerLimits } from './lingering-close.js';
import { header } from '../util/http-request.js';
import { createContextFactory, installRequestContext } from './request-context.js';
import { createRateLimits, type RateLimitOptions } from './rate-limits.js';
import { RequestLog } from './request-log.js';
import { createReadiness, type Readiness } from './readiness.js';
import { shutdownServer, type ShutdownOptions, type ShutdownReport } from './shutdown.js';

export interface ServerOptions {
  readonly engine: Engine;
  /** Page sizes, depth, breadth and cost of a read: the same for both styles. */
  readonly limits?: Partial<PlanLimits>;
  /** Largest JSON body accepted, in bytes. */
  readonly bodyLimit?: number;
  readonly requireIfMatch?: boolean;
  /** pino options, or false for silence (tests). */
  readonly logger?: boolean | { readonly level: string; readonly stream?: { write(line: string): void } };
  /** Show internal error messages to clients (development only). */
  readonly exposeInternals?: boolean;
  /** GraphQL limits, persisted documents, suggestions, GraphiQL. */
  readonly graphql?: GraphqlOptions;
  /**
   * Origins (`https://app.example.com`) whose pages may send form-like writes
   * (multipart, urlencoded, text/plain) cross-site; empty by default, so only
   * this server's own pages and non-browser clients can. See cross-site-guard.ts.
   */
  readonly allowedOrigins?: readonly string[];
  /**
   * Origins whose pages may call the API from a browser (CORS), or `'*'`;
   * none by default. Listed origins are allowed by the cross-site guard too.
   */
  readonly cors?: CorsOptions;
  /**
   * Where clients reach the server (`https://api.example.com`): its host is
   * one `Host` may name. See host-guard.ts for what else is allowed.
   */
  readonly publicUrl?: string;
  /**
   * More `Host` names the server answers to (`api.example.com`, `.example.com`
   * for a domain and its subdomains, `*` for any). Every IP address and
   * `localhost` always are; any other name gets 421 HOST_NOT_ALLOWED, against
   * DNS rebinding (host-guard.ts).
   */
  readonly allowedHosts?: readonly string[];
  /**
   * Addresses or ranges (`10.0.0.0/8`, `127.0.0.1`, `loopback`) of the
   * reverse proxies in front of the server. A request from one of them is
   * taken to come from the address its `X-Forwarded-For` names (rate limits,
   * sign-in limits, live-read limits and logs count that client), with its
   * `X-Forwarded-Proto` and `-Host`. None by default: any client could
   * otherwise claim any address.
   */
  readonly trustProxy?: readonly string[];
  /**
   * Longest time a client may take to send a whole request, head and body,
   * in milliseconds (30 s by default): after it the request is answered 408
   * and the connection closed. Raise it for large uploads over slow links.
   */
  readonly requestTimeout?: number;
  /**
   * After refusing a request whose body is still arriving (a 413, say): how
   * many bytes of it are read and thrown away (64 MiB by default), and for
   * how many milliseconds (10 s), before the connection closes.
   */
  readonly lingeringClose?: Partial<LingerLimits>;
  /**
   * How requests prove who they are (src/auth/): JWTs (`jwtSecret`,
   * `jwtPublicKey` or `jwksUrl`, with `issuer`, `audience`, `idClaim`,
   * `roleClaim`), API keys (always, from the database), `adminKey`. Without
   * credentials a request is anonymous; with a bad one it is refused (401).
   */
  readonly auth?: AuthOptions;
  /** Live reads over SSE (a GET with `Accept: text/event-stream`): how often a quiet stream sends a heartbeat comment (ms, default 15,000). */
  readonly eventStream?: { readonly heartbeatMs?: number };
  /**
   * Sign-up, sign-in and tokens for the type marked `@account` (src/auth/accounts/):
   * token lifetimes, the signing secret, password hash cost, rate limits.
   */
  readonly accounts?: AccountsOptions;
  /**
   * Budgets per role, in points (a read costs the rows its plan may read, a
   * write WRITE_COST): anonymous callers per address, signed-in ones per
   * principal. DEFAULT_RATE_LIMITS when not given; `false` turns them off.
   */
  readonly rateLimits?: RateLimitOptions | false;
  /**
   * Who may fetch `/files/<key>`: `public` (the default: anyone holding the
   * URL, served public and immutable) or `readers` (only callers who may read
   * a record holding the file, rules applied; docs/files.md).
   */
  readonly fileAccess?: FileAccess;
  /**
   * How originals leave a store that can presign URLs (S3): `stream`ed
   * through the server (the default), or a `redirect` to a short-lived
   * presigned URL after the access check (docs/object-storage.md).
   */
  readonly fileServe?: FileServe;
  /** Webhook endpoints, event retention and the poll (src/events/, docs/events.md); events are published without them too. */
  readonly events?: Partial<EventsOptions>;
  /** The schema files as written, which the admin API shows (`GET /admin/schema`, docs/admin-api.md); none by default. */
  readonly schemaSources?: readonly { readonly file: string; readonly text: string }[];
}

const hubs = new WeakMap<FastifyInstance, EventHub>();
const readinesses = new WeakMap<FastifyInstance, Readiness>();

/** The server's events after commit: subscribe, resume after a position (src/events/event-hub.ts). */
export function eventsOf(app: FastifyInstance): EventHub {
  const hub = hubs.get(app);
  if (hub === undefined) throw new Error('this Fastify instance was not made by createServer');
  return hub;
}

/**
 * Stops the server gracefully (src/server/shutdown.ts): `/readyz` fails
 * first, then after the drain delay it stops accepting, says goodbye to
 * live readers and answers what is in flight.
 */
export function shutdown(app: FastifyInstance, options: ShutdownOptions): Promise<ShutdownReport> {
  const readiness = readinesses.get(app);
  if (readiness === undefined) throw new Error('this Fastify instance was not made by createServer');
  return shutdownServer(app, readiness, options);
}

const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;

/**
 * One HTTP server mounting both front-ends over one engine, plus the
 * operational endpoints. Listening and shutdown belong to the caller.
 */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const requestTimeout = positiveInteger(options.requestTimeout, DEFAULT_REQUEST_TIMEOUT_MS, 'requestTimeout');
  const linger: LingerLimits = {
    maxBytes: positiveInteger(options.lingeringClose?.maxBytes, DEFAULT_LINGER.maxBytes, 'lingeringClose.maxBytes'),
    maxMs: positiveInteger(options.lingeringClose?.maxMs, DEFAULT_LINGER.maxMs, 'lingeringClose.maxMs'),
  };
  const edge = clientErrors(linger);
  // One trust for Fastify's requests and the WebSocket upgrades it does not see.
  const trustedProxy = options.trustProxy === undefined || options.trustProxy.length === 0 ? () => false : proxyAddr.compile([...options.trustProxy]);
  const app = Fastify({
    // Node's own server, for what Fastify does not pass on: how often slow requests are looked for
    // (every 30 s by default, which would let one outlive its timeout by that much).
    serverFactory: (handler) =>
      createHttpServer(
        { requestTimeout, connectionsCheckingInterval: Math.min(1_000, Math.ceil(requestTimeout / 2)), keepAliveTimeout: FASTIFY_KEEP_ALIVE_MS },
        handler,
      ),
    clientErrorHandler: edge.handler,
    trustProxy: trustedProxy,
    // While closing, requests still arriving on open connections are answered (with Connection: close)
    // rather than given Fastify's own 503, which has neither our shape nor a Retry-After.
    return503OnClosing: false,
    logger:
      options.logger === false
        ? false
        : {
            level: typeof options.logger === 'object' ? options.logger.level : 'info',
            ...(typeof options.logger === 'object' && options.logger.stream !== undefined ? { stream: options.logger.stream } : {}),
            // Headers are logged for debugging; credentials in them never reach the log.
            serializers: {
              req: (request: { method: string; url: string; hostname?: string; ip?: string; headers: Record<string, unknown> }) => ({
                method: request.method,
                url: request.url,
                host: request.hostname,
                remoteAddress: request.ip,
                headers: { ...request.headers },
              }),
            },
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
          },
    // One line per request instead of Fastify's two.
    logController: new RequestLog(),
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
    // Both front-ends read the raw query string with their own grammar (qs for REST's brackets, GraphQL's
    // JSON parameters), so Fastify's own parse of every query string would be work thrown away.
    routerOptions: { ignoreTrailingSlash: true, maxParamLength: 200, querystringParser: () => ({}) },
    // Clients' request ids are kept for correlation; otherwise we make one.
    requestIdHeader: 'x-request-id',
    // Errors the router raises before any route runs (a path too long to route, a bad URL encoding) get problem+json too.
    frameworkErrors: (error, request, reply) => {
      closeAfterUnreadBody(request, reply, linger);
      const problem = new ApiError(error.statusCode === 414 ? 'URI_TOO_LONG' : 'BAD_REQUEST', { detail: error.message });
      // Sent before any hook runs, so without the edge's onSend: nosniff is set here.
      void (reply as FastifyReply).code(problem.status).type(PROBLEM_CONTENT_TYPE).header('x-content-type-options', 'nosniff').send(problemOf(problem, request.url));
    },
  });
  edge.attach(app.server, app.log);
  let stopClosingAnswered: (() => void) | undefined;
  app.addHook('preClose', (done) => {
    stopClosingAnswered = closeConnectionsWhenAnswered(app.server);
    done();
  });
  app.addHook('onClose', (_app, done) => {
    stopClosingAnswered?.();
    done();
  });
  installErrorHandling(app, { exposeInternals: options.exposeInternals === true, linger });
  // First of all hooks: a request naming a host this server does not answer to runs nothing (DNS rebinding).
  const hostCheck = compileHostPolicy({ publicUrl: options.publicUrl, allowedHosts: options.allowedHosts });
  app.addHook('onRequest', hostGuard(hostCheck));
  // nosniff on every answer, helmet's headers on the HTML pages.
  await registerSecurityHeaders(app);
  // Before authentication: a preflight carries no credentials, and is answered at once.
  await registerCors(app, options.cors);
  // Before any route is registered, so they run for every one (and before any body is parsed).
  const siteOrigins = [...(options.allowedOrigins ?? []), ...corsOrigins(options.cors)];
  app.addHook('onRequest', crossSiteGuard(siteOrigins));
  const { engine } = options;
  await engine.deprecationUsage.prepare(engine.model);
  // Counts of deprecated use still in memory go to the database before it closes.
  app.addHook('onClose', () => engine.deprecationUsage.close());
  const accounts = await createAccounts(engine, options.accounts);
  app.addHook('onClose', async () => {
    await accounts?.close();
    engine.files?.close();
  });
  const revocations = await createKeyRevocations(engine.db, engine.changes);
  app.addHook('onClose', () => revocations.close());
  const adminRole = adminRoleOf(engine.model);
  const authenticator = createAuthenticator({ ...options.auth, adminRole, db: engine.db, issuedTokens: accounts?.keys, suspended: accounts?.suspensions, revocations });
  const rateLimits = await createRateLimits(options.rateLimits, engine.db, engine.model.roles?.values, (error) => {
    app.log.warn({ err: error }, 'rate-limit counts could not be traded with other instances; counting alone until they can');
  });
  if (rateLimits !== undefined) app.addHook('onClose', (_app, done) => {
    rateLimits.close();
    done();
  });
  const contexts = createContextFactory(rateLimits, authenticator.lifetimeOf);
  installRequestContext(app, authenticator, contexts);
  app.addContentTypeParser('application/merge-patch+json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, JSON.parse(body as string));
    } catch (error) {
      done(error as Error, undefined);
    }
  });

  // Before any route, so every one compresses (br/gzip) and tags its compressed ETags.
  await registerCompression(app);
  const assets = new AssetStore();
  registerAssetRoutes(app, assets);
  registerConsolePage(app, assets);

  app.get('/healthz', async (_request, reply) => {
    try {
      await engine.db.ping();
    } catch (cause) {
      // Through the error handler, like every 503: problem+json with Retry-After.
      throw new ApiError('DATABASE_UNAVAILABLE', { detail: 'The database does not answer', cause });
    }
    return reply.code(200).send({ status: 'ok', database: engine.db.dialect });
  });

  const readiness = createReadiness(engine.db);
  readinesses.set(app, readiness);
  app.get('/readyz', async (_request, reply) => {
    const notReady = await readiness.check();
    if (notReady === 'draining') throw new ApiError('NOT_READY', { detail: 'This instance is shutting down', extensions: { reason: notReady } });
    if (notReady === 'database') throw new ApiError('NOT_READY', { detail: 'The database does not answer', extensions: { reason: notReady } });
    return reply.code(200).send({ status: 'ready', database: engine.db.dialect });
  });
  // While draining, each answer ends its connection: the load balancer's next request opens a new one, which the
  // server accepts until it stops listening, instead of racing the close of a kept-alive one.
  app.addHook('onRequest', (_request, reply, done) => {
    if (readiness.draining) void reply.header('connection', 'close');
    done();
  });

  if (engine.files !== undefined) {
    // multipart/form-data for uploads, in both styles (streamed; a text part may be as large as a JSON body).
    await app.register(multipart, { limits: multipartLimits(engine.files.limits, options.bodyLimit ?? 1024 * 1024) });
  }
  const limits = resolvePlanLimits(options.limits);
  const eventsOptions: EventsOptions = { webhooks: [], ...options.events };
  const webhooks = new WebhookRegistry(engine.model, engine.db, eventsOptions.webhooks, app.log);
  const admin = createAdminService({
    engine,
    limits,
    adminRole,
    revocations,
    registry: webhooks,
    events: eventsOptions,
    suspensions: accounts?.suspensions,
    schemaSources: options.schemaSources ?? [],
    graphqlSdl: () => printGraphqlSchema(engine.model),
  });
  registerAdminRoutes(app, admin);
  registerChangeStream(app, { engine, limits, events: () => hubs.get(app), heartbeatMs: options.eventStream?.heartbeatMs ?? 15_000 });
  registerStartPage(app, { model: engine.model, assets, eventsPath: changeStreamPath(engine.model) });
  registerRestApi(app, { engine, limits, requireIfMatch: options.requireIfMatch === true, eventStream: options.eventStream, accounts, fileAccess: options.fileAccess, fileServe: options.fileServe });
  registerGraphqlApi(app, {
    engine,
    limits,
    graphql: { exposeInternals: options.exposeInternals, ...options.graphql },
    // A WebSocket passes the same site check, authenticator and request context as every HTTP request.
    sockets: {
      refuseUpgrade: (request) =>
        hostRefusal(hostCheck, upgradeHost(request, trustedProxy(request.socket.remoteAddress ?? '', 0))) ?? upgradeRefusal(request, siteOrigins),
      open: async (authorization, request) => {
        const principal = await authenticator.authenticate(authorization);
        const address = proxyAddr(request, trustedProxy);
        const site = { transport: 'graphql-ws', method: 'POST', origin: request.headers.origin, fetchSite: header(request, 'sec-fetch-site') } as const;
        return { principal, operation: () => contexts.create(principal, address, header(request, 'x-client-name'), app.log, site), credential: authenticator.lifetimeOf(principal) };
      },
    },
    maxMessageBytes: options.bodyLimit ?? 1024 * 1024,
    accounts,
    assets,
    events: () => hubs.get(app),
    admin,
  });
  registerOpenApi(app, { engine, limits, requireIfMatch: options.requireIfMatch === true, assets });
  const events = createEventHub({ engine, logger: app.log, ...options.events, registry: webhooks });
  hubs.set(app, events);
  app.addHook('onClose', () => events.stop());
  await app.ready();
  await events.start();
  return app;
}

/** Fastify's own default, which it applies only to servers it makes itself. */
const FASTIFY_KEEP_ALIVE_MS = 72_000;

function positiveInteger(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive whole number, got ${String(value)}`);
  return value;
}
