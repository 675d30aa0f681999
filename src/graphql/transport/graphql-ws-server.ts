import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { parse, type DocumentNode, type ExecutionArgs, type ExecutionResult, type FormattedExecutionResult } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import type { Principal } from '../../plan/principal.js';
import type { CredentialLifetime, RequestContext } from '../../plan/request-context.js';
import type { GraphqlHandler, StreamOutcome } from '../handle-graphql.js';
import { paramsFromJson } from '../http/graphql-params.js';
import { isApiError, type ApiError } from '../../errors/api-error.js';

/** A socket the edge accepted: who is on it, and the context of each operation it sends. */
export interface SocketSession {
  readonly principal: Principal;
  /** A fresh context (its own meter) for one operation: the same budget, client key and limits as an HTTP request. */
  operation(): RequestContext;
  /** How long the socket's credential stays good. */
  readonly credential: CredentialLifetime;
}

/** What the HTTP edge (src/server/) decides for WebSockets, so a socket passes through the same checks as a request. */
export interface SocketEdge {
  /** Why an upgrade is refused before it becomes a socket (a cross-site page), or undefined. */
  refuseUpgrade(request: IncomingMessage): ApiError | undefined;
  /** Authenticates the socket's credential; rejects for a bad one. */
  open(authorization: string | undefined, request: IncomingMessage): Promise<SocketSession>;
}

export interface GraphqlWsOptions {
  readonly path: string;
  readonly handler: GraphqlHandler;
  readonly edge: SocketEdge;
  /** Operations a socket may have running at once (default 100). */
  readonly maxOperationsPerSocket?: number;
  /** Largest message accepted, in bytes (the JSON body limit). */
  readonly maxPayload: number;
}

/** Documents graphql-ws is handed so it picks `execute` or `subscribe`; the real document went through our own pipeline. */
const SINGLE: DocumentNode = parse('query { __typename }');
const STREAM: DocumentNode = parse('subscription { __typename }');

/**
 * GraphQL over WebSocket (the graphql-transport-ws protocol, `graphql-ws`)
 * on the GraphQL endpoint: an upgrade request there becomes a socket. The
 * socket's principal comes from `connection_init`'s `Authorization` (a
 * browser cannot set headers on a WebSocket) or else the upgrade request's
 * header, through the same authenticator as HTTP; a bad credential closes
 * the socket with 4403, as does its expiry. An upgrade from another site is
 * refused (no preflight protects a WebSocket). Every operation goes through
 * the GraphQL handler's own pipeline (`operate`) with its own request
 * context: queries and mutations as over HTTP, subscriptions as live
 * queries, each charged and limited as over HTTP.
 */
export function attachGraphqlWs(app: FastifyInstance, options: GraphqlWsOptions): void {
  const sockets = new WebSocketServer({ noServer: true, maxPayload: options.maxPayload });
  const maxOperations = options.maxOperationsPerSocket ?? 100;
  /** The connections taken over by WebSockets: the HTTP server waits for them when it closes. */
  const upgraded = new Set<Duplex>();
  app.server.on('upgrade', (request, socket, head) => {
    const path = (request.url ?? '').split('?', 1)[0];
    if (path !== options.path && path !== `${options.path}/`) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    const refused = options.edge.refuseUpgrade(request);
    if (refused !== undefined) {
      const body = JSON.stringify({ status: refused.status, code: refused.code, title: refused.title, detail: refused.detail });
      socket.end(
        `HTTP/1.1 ${refused.status} ${refused.title}\r\nConnection: close\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      return;
    }
    upgraded.add(socket);
    socket.once('close', () => upgraded.delete(socket));
    sockets.handleUpgrade(request, socket, head, (ws) => sockets.emit('connection', ws, request));
  });
  const sessions = new WeakMap<object, SocketSession>();
  /** Subscriptions running on each socket. */
  const running = new WeakMap<object, number>();
  const refusal = (code: string, message: string): StreamOutcome => ({ kind: 'single', result: { errors: [{ message, extensions: { code } }] } });
  const operate = async (ctx: object, payload: unknown): Promise<StreamOutcome> => {
    const session = sessions.get(ctx);
    if (session === undefined) return refusal('UNAUTHENTICATED', 'The connection was not initialised');
    if ((running.get(ctx) ?? 0) >= maxOperations) return refusal('LIVE_READS_LIMIT', `At most ${maxOperations} subscriptions at once on one socket`);
    try {
      return await options.handler.operate({ params: paramsFromJson(payload), context: session.operation() });
    } catch (error) {
      // Parameters the pipeline refused before running (a batch, a non-object).
      if (!isApiError(error)) throw error;
      return refusal(error.code, error.detail ?? error.title);
    }
  };
  useServer<Record<string, unknown> | undefined, Record<string, never>>(
    {
      isProd: true,
      onConnect: async (ctx) => {
        const fromInit = ctx.connectionParams?.['Authorization'] ?? ctx.connectionParams?.['authorization'];
        const authorization = typeof fromInit === 'string' ? fromInit : ctx.extra.request.headers.authorization;
        try {
          const session = await options.edge.open(authorization, ctx.extra.request);
          sessions.set(ctx, session);
          // The socket lives on its credential: when the token expires or the account is suspended, it closes like a refused one (4403).
          const cancel = session.credential.onEnd((why) => ctx.extra.socket.close(4403, why === 'suspended' ? 'Account suspended' : why === 'revoked' ? 'API key revoked' : 'Credential expired'));
          ctx.extra.socket.once('close', cancel);
          return true;
        } catch {
          // 4403 Forbidden: the credential was refused (or could not be checked).
          return false;
        }
      },
      onSubscribe: async (ctx, _id, payload) => {
        const outcome = await operate(ctx, payload);
        if (outcome.kind === 'stream') running.set(ctx, (running.get(ctx) ?? 0) + 1);
        // Every outcome, request errors included, is sent as a result (`next`, then `complete`); graphql-ws's own
        // `error` message would need GraphQLError instances of the very copy of graphql it loaded.
        const args: ExecutionArgs = { schema: options.handler.generated.schema, document: outcome.kind === 'stream' ? STREAM : SINGLE, contextValue: outcome };
        return args;
      },
      // Formatted results (plain JSON), which the library sends as they are.
      execute: (args) => (args.contextValue as Extract<StreamOutcome, { kind: 'single' }>).result as unknown as ExecutionResult,
      subscribe: (args) => (args.contextValue as Extract<StreamOutcome, { kind: 'stream' }>).results as unknown as AsyncIterable<ExecutionResult>,
      // Already formatted (plain JSON errors with their codes): sent as they are.
      onNext: (_ctx, _id, _payload, _args, result): FormattedExecutionResult => result,
      onComplete: (ctx, _id, _payload) => {
        running.set(ctx, Math.max(0, (running.get(ctx) ?? 1) - 1));
      },
    },
    sockets,
  );
  app.addHook('preClose', (done) => {
    // 1001 Going Away: the server is shutting down.
    for (const client of sockets.clients) client.close(1001, 'Server shutting down');
    // A connection whose closing handshake has not ended within a second (a client that does not answer, or one
    // still closing) is cut off: shutdown does not wait on it.
    setTimeout(() => {
      for (const socket of upgraded) socket.destroy();
    }, 1000).unref();
    sockets.close();
    done();
  });
}
