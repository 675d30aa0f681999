import { assertScalarType, getVariableValues, GraphQLError, OperationTypeNode } from 'graphql';
import { cacheHeaders } from '../engine/cache-headers.js';
import type { Engine } from '../engine/engine.js';
import type { Accounts } from '../auth/accounts/accounts.js';
import type { AdminService } from '../admin/admin-service.js';
import { askerKey } from '../plan/principal.js';
import type { RequestContext } from '../plan/request-context.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import { FILTER_LIMITS } from '../plan/build-filter.js';
import { planUpdate } from '../plan/build-write.js';
import type { PlanLimits } from '../plan/build-read.js';
import { checkCost, planCost } from '../plan/limits.js';
import { tooComplex } from './document/check-limits.js';
import { variableErrorCode, withCode } from './document/input-error-code.js';
import { createDocumentPreparer } from './document/prepare-document.js';
import { compileOperation, type CompiledOperation } from './execute/compile-operation.js';
import { createDocumentFacts, type OperationFacts } from './execute/operation-facts.js';
import { OperationTemplates, type BoundOperation } from './execute/operation-templates.js';
import { liveOperation, planReads, runOperation, type PlannedRead, type RunOutcome } from './execute/run-operation.js';
import { pushIterator, type PushIterator } from '../util/push-iterator.js';
import { credentialEndError } from '../auth/credential-expiry.js';
import type { EventHub } from '../events/event-hub.js';
import { ChangeEventFeeds, isEventStep, SubscriptionRefused } from './execute/change-events.js';
import { checkUploadRights } from './execute/upload-rights.js';
import type { ResolvedGraphqlOptions } from './graphql-options.js';
import type { GraphqlParams } from './http/graphql-params.js';
import { GRAPHQL_RESPONSE_JSON, type JSON_MEDIA } from './http/negotiate.js';
import { createDocumentSource, loadPersistedDocuments } from './http/persisted-documents.js';
import { createAutomaticQueries } from '../engine/automatic-queries.js';
import { formatError, type ErrorLog, type FormatOptions } from './response/format-error.js';
import type { StreamResult } from './response/stream-result.js';
import { responseBody } from './response/response-body.js';
import { retryAfterHeader } from './response/retry-after.js';
import { buildGraphqlSchema } from './schema/build-schema.js';
import type { GeneratedSchema } from './schema/roles.js';

export type JsonMedia = typeof GRAPHQL_RESPONSE_JSON | typeof JSON_MEDIA;

/** One GraphQL request in HTTP terms, already negotiated and parsed. */
export interface GraphqlHttpRequest {
  readonly method: 'GET' | 'POST';
  readonly params: GraphqlParams;
  readonly media: JsonMedia;
  readonly ifNoneMatch: string | undefined;
  /** Used only without If-None-Match (RFC 9110 §13.1.3), as in REST. */
  readonly ifModifiedSince?: string | undefined;
  /** Who is asking, from where, their budget and the log (the edge's request context). */
  readonly context: RequestContext;
}

export interface GraphqlHttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Undefined for 304. */
  readonly body: string | undefined;
}

/** An operation sent over a streaming transport (graphql-ws, graphql-sse). */
export interface GraphqlStreamRequest {
  readonly params: GraphqlParams;
  /** The operation's own context: a WebSocket message's, or the graphql-sse request's (its method decides what may run). */
  readonly context: RequestContext;
}

export type { StreamResult };

export type StreamOutcome =
  /** A query or mutation, or a request that failed before running (no `data`: a request error). */
  | { readonly kind: 'single'; readonly result: StreamResult }
  /** A subscription: its results until the iterator is returned. */
  | { readonly kind: 'stream'; readonly results: AsyncIterableIterator<StreamResult> & { return(): Promise<IteratorResult<StreamResult>> } };

export interface GraphqlHandler {
  readonly generated: GeneratedSchema;
  handle(request: GraphqlHttpRequest): Promise<GraphqlHttpResponse>;
  /**
   * Any operation over a streaming transport. A subscription whose root
   * field is a query field is a live query: the engine watches its plans
   * and the iterator yields the response now and on every change.
   */
  operate(request: GraphqlStreamRequest): Promise<StreamOutcome>;
  /** An HTTP-level failure (bad parameters, wrong method or media type) as a GraphQL-shaped response. */
  httpError(error: unknown, media: JsonMedia, log: ErrorLog): GraphqlHttpResponse;
  /**
   * A multipart request, once its operation is known and before its first
   * file is read: the response that refuses it (a document error, or rules
   * that let the caller write no file: see upload-rights.ts), or undefined
   * to go on.
   */
  refuseUploads(request: GraphqlHttpRequest): Promise<GraphqlHttpResponse | undefined>;
}

/**
 * The GraphQL front-end without the web framework: resolve the document
 * (text, trusted id or persisted hash) → parse and validate (cached) → pick
 * the operation → coerce variables → compile root fields to field requests
 * → check the cost → plan → run plans through the engine → render.
 *
 * A query that got through coercion, compilation and planning cleanly is
 * remembered as an operation template (see execute/operation-templates.ts):
 * the same request again, even with other ids, starts at "run plans".
 *
 * Status codes follow GraphQL over HTTP §7: with application/json every
 * well-formed request gets 200; with application/graphql-response+json a
 * request error (nothing executed, no `data`) is 400.
 */
export function createGraphqlHandler(
  engine: Engine,
  planLimits: PlanLimits,
  options: ResolvedGraphqlOptions,
  accounts?: Accounts,
  events?: () => EventHub | undefined,
  admin?: AdminService,
): GraphqlHandler {
  const generated = buildGraphqlSchema(engine.model);
  const prepare = createDocumentPreparer(generated, options.limits, options.documentCacheSize);
  const persisted = options.persistedDocuments;
  const source = createDocumentSource(
    persisted === undefined ? new Map() : loadPersistedDocuments(persisted.file),
    persisted?.onlyPersisted === true,
    createAutomaticQueries(engine.db, {
      cacheSize: options.apqCacheSize,
      maxStored: options.apqStoredLimit,
      maxDocumentBytes: options.apqMaxDocumentBytes,
    }),
  );
  checkTrustedDocuments(source.trusted, prepare);
  const factsOf = createDocumentFacts(generated);
  const templates = new OperationTemplates(assertScalarType(generated.schema.getType('ID')));
  const formatOptions = (log: ErrorLog): FormatOptions => ({ hideSuggestions: options.hideSuggestions, exposeInternals: options.exposeInternals, log });

  const httpError = (error: unknown, media: JsonMedia, log: ErrorLog): GraphqlHttpResponse => {
    const allow = isApiError(error) ? error.extensions['allow'] : undefined;
    const formatted = formatError(error, formatOptions(log));
    return {
      status: isApiError(error) ? error.status : 500,
      headers: {
        'content-type': contentType(media),
        'cache-control': 'no-store',
        ...(Array.isArray(allow) ? { allow: allow.join(', ') } : {}),
        ...retryAfterHeader([formatted]),
      },
      body: responseBody([formatted], undefined),
    };
  };

  /**
   * The full path: coerce the variables, compile, check the cost, plan. A
   * query that comes through all of it without an error is remembered under
   * `templateKey` for the next request like it.
   */
  const compileFresh = (
    chosen: OperationFacts,
    rawVariables: Readonly<Record<string, unknown>>,
    templateKey: string | undefined,
    context: RequestContext,
  ): BoundOperation | Refusal => {
    const { operation, fragments } = chosen;
    const coerced = getVariableValues(generated.schema, operation.variableDefinitions ?? [], rawVariables, { maxErrors: 50 });
    if (coerced.errors !== undefined) {
      return {
        errors: coerced.errors.map((error) => (isStackOverflow(error) ? variablesTooDeep() : withCode(error, variableErrorCode(error, generated.inputs)))),
        cost: 0,
      };
    }
    const work = { nodes: 0 };
    let compiled: CompiledOperation;
    try {
      compiled = compileOperation({ schema: generated.schema, fragments, variables: coerced.coerced, generated, limits: planLimits, work }, operation);
    } catch (error) {
      // Refused while its fragments were expanded (see buildSelection): a request error, charged for the expansion done.
      if (isApiError(error) && error.code === 'QUERY_TOO_COMPLEX') return { errors: [error], cost: refusalCost(work.nodes) };
      throw error;
    }
    // A subscription is a live query: planned as one.
    const isQuery = operation.operation !== OperationTypeNode.MUTATION;
    // Mutations plan their reads as they run, each after the writes before it; planned here too, so the limits refuse them before any write.
    const reads = planReads({ engine, planLimits, context }, compiled.steps, isQuery ? undefined : '');
    const refused = operationLimits(reads, planLimits);
    if (refused !== undefined) return { errors: [refused], cost: refusalCost(work.nodes) };
    if (!isQuery) return { steps: compiled.steps, reads: undefined };
    if (templateKey !== undefined) templates.remember(templateKey, chosen.slots, compiled, reads);
    return { steps: compiled.steps, reads };
  };

  /**
   * What the parameters alone decide: the document (text, trusted id or
   * persisted hash, parsed and validated), the operation, the template key
   * and, for GET, the key its validators are remembered under; or the
   * response to a request that goes no further. A repeated GET's parameters
   * are one object, parsed once (`paramsFromSearch`), so this is worked out
   * once for it too (and dropped with it). So a hash-only GET seen before
   * still runs after the persisted-query store has dropped its document: the
   * hash names exactly one text, so that answer is the one it would get.
   */
  const derivedByParams = new WeakMap<GraphqlParams, Derived>();
  const derivedOf = async (
    request: GraphqlHttpRequest,
    requestErrors: (errors: readonly unknown[]) => GraphqlHttpResponse,
    streaming = false,
  ): Promise<Derived | GraphqlHttpResponse> => {
    const { params } = request;
    const known = request.method === 'GET' ? derivedByParams.get(params) : undefined;
    if (known !== undefined) return known;
    let text: string;
    try {
      text = (await source.resolve(params, request.context.log)).text;
    } catch (error) {
      if (isApiError(error) && error.code === 'PERSISTED_QUERY_NOT_FOUND') return requestErrors([error]);
      throw error;
    }
    const prepared = prepare(text);
    if (!prepared.ok) return requestErrors(prepared.errors);
    const facts = factsOf(prepared.document, text);
    const chosen = facts.operation(params.operationName);
    if (chosen === undefined) {
      const message =
        params.operationName === undefined ? 'Must provide operation name if query contains multiple operations.' : `Unknown operation named "${params.operationName}".`;
      return requestErrors([new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
    }
    const kind = chosen.operation.operation;
    // GraphQL over HTTP §6.1: GET must never change anything, on any transport (a stream opened by GET takes subscriptions too).
    if (request.method === 'GET' && (kind === OperationTypeNode.MUTATION || (kind === OperationTypeNode.SUBSCRIPTION && !streaming))) {
      return httpError(
        new ApiError('METHOD_NOT_ALLOWED', { detail: `A ${kind} cannot run over GET; send it with POST`, extensions: { allow: ['POST'] } }),
        request.media,
        request.context.log,
      );
    }
    const rawVariables = params.variables ?? {};
    const derived: Derived = {
      chosen,
      templateKey: chosen.templatePrefix === undefined ? undefined : templates.keyOf(chosen.templatePrefix, chosen.keyed, rawVariables),
      cacheKey:
        request.method === 'GET' || chosen.operation.operation === OperationTypeNode.SUBSCRIPTION
          ? `graphql ${facts.hash()} ${params.operationName ?? ''} ${JSON.stringify(rawVariables)}`
          : undefined,
    };
    // Not a request that registers an automatic persisted query: each one must register it again (the store is an LRU).
    const registers = params.query !== undefined && params.extensions?.['persistedQuery'] !== undefined;
    if (request.method === 'GET' && !registers) derivedByParams.set(params, derived);
    return derived;
  };

  /** A request refused before it ran, charged what refusing it cost (a budget already spent makes it a 429). */
  const refuse = async (
    refusal: Refusal,
    request: Pick<GraphqlHttpRequest, 'media' | 'context'>,
    requestErrors: (errors: readonly unknown[]) => GraphqlHttpResponse,
  ): Promise<GraphqlHttpResponse> => {
    try {
      if (refusal.cost > 0) await request.context.meter.spend(refusal.cost);
    } catch (error) {
      return httpError(error, request.media, request.context.log);
    }
    return requestErrors(refusal.errors);
  };

  const requestErrorsOf =
    (request: Pick<GraphqlHttpRequest, 'media' | 'context'>) =>
    (errors: readonly unknown[]): GraphqlHttpResponse => ({
      status: request.media === GRAPHQL_RESPONSE_JSON ? 400 : 200,
      headers: { 'content-type': contentType(request.media), 'cache-control': 'no-store' },
      body: responseBody(
        errors.map((error) => formatError(error, formatOptions(request.context.log))),
        undefined,
      ),
    });

  const handle = async (request: GraphqlHttpRequest): Promise<GraphqlHttpResponse> => {
    const { context } = request;
    const format = formatOptions(context.log);
    const requestErrors = requestErrorsOf(request);
    const { params } = request;
    const derived = await derivedOf(request, requestErrors);
    if ('status' in derived) return derived;
    const { chosen, cacheKey } = derived;
    if (chosen.operation.operation === OperationTypeNode.SUBSCRIPTION) {
      return requestErrors([
        new ApiError('NOT_ACCEPTABLE', {
          detail: 'A subscription answers as a stream: send it with Accept: text/event-stream (GraphQL over SSE) or over a WebSocket (graphql-transport-ws)',
          extensions: { accept: ['text/event-stream'] },
        }),
      ]);
    }
    const { operation, fragments } = chosen;
    const rawVariables = params.variables ?? {};
    // Under rules a template holds its asker's values (their id in a row filter): one per principal.
    const templateKey = derived.templateKey === undefined ? undefined : `${askerKey(engine.model, context.principal)} ${derived.templateKey}`;
    const bound = (templateKey === undefined ? undefined : templates.use(templateKey, rawVariables)) ?? compileFresh(chosen, rawVariables, templateKey, context);
    if ('errors' in bound) return refuse(bound, request, requestErrors);

    const cache = cacheKey === undefined ? undefined : { key: cacheKey, ifNoneMatch: request.ifNoneMatch, ifModifiedSince: request.ifModifiedSince };
    let outcome: RunOutcome;
    try {
      outcome = await runOperation(
        { engine, generated, planLimits, format, context, accounts, admin },
        { operation, fragments, rawVariables, steps: bound.steps, reads: bound.reads },
        cache,
      );
    } catch (error) {
      // Only a refusal of the whole request gets here (RATE_LIMITED): field errors stay in the body.
      return httpError(error, request.media, context.log);
    }
    // A GET's answer varies by Accept (GraphQL over HTTP), and under rules by who asks.
    if (outcome.status === 304) return { status: 304, headers: cacheHeaders(outcome, 'Accept'), body: undefined };
    const caching: Record<string, string> =
      outcome.validators === undefined ? { 'cache-control': 'no-store', ...(request.method === 'GET' ? { vary: 'Accept' } : {}) } : cacheHeaders(outcome.validators, 'Accept');
    return {
      status: 200,
      headers: { 'content-type': contentType(request.media), ...caching, ...outcome.headers },
      body: outcome.body,
    };
  };

  /** Change-event subscribers, by shared question; made with the first (the event hub starts with the server). */
  let feeds: ChangeEventFeeds | undefined;
  const operate = async (request: GraphqlStreamRequest): Promise<StreamOutcome> => {
    const { context } = request;
    const httpRequest: GraphqlHttpRequest = {
      // A stream opened by GET runs only what a GET may (queries and subscriptions), whatever the transport hands on.
      method: context.site.method === 'GET' ? 'GET' : 'POST',
      params: request.params,
      media: GRAPHQL_RESPONSE_JSON,
      ifNoneMatch: undefined,
      context,
    };
    const single = (response: GraphqlHttpResponse): StreamOutcome => ({ kind: 'single', result: JSON.parse(response.body ?? '{}') as StreamResult });
    const requestErrors = requestErrorsOf(httpRequest);
    const derived = await derivedOf(httpRequest, requestErrors, true);
    if ('status' in derived) return single(derived);
    const { chosen } = derived;
    if (chosen.operation.operation !== OperationTypeNode.SUBSCRIPTION) return single(await handle(httpRequest));
    const { operation, fragments } = chosen;
    const rawVariables = request.params.variables ?? {};
    const bound = compileFresh(chosen, rawVariables, undefined, context);
    if ('errors' in bound) return single(await refuse(bound, httpRequest, requestErrors));
    const format = formatOptions(context.log);
    const ctx = { engine, generated, planLimits, format, context, accounts, admin };
    const eventStep = bound.steps.find(isEventStep);
    const hub = events?.();
    if (eventStep !== undefined && hub !== undefined) {
      feeds ??= new ChangeEventFeeds(hub, engine.deprecationUsage);
      let held: { close(): void } | undefined;
      try {
        held = engine.holdLive(context);
        let cancelExpiry = (): void => undefined;
        const results = await feeds.subscribe({
          ctx,
          op: { operation, fragments, rawVariables, steps: bound.steps },
          step: eventStep,
          onEnd: () => {
            held?.close();
            cancelExpiry();
          },
        });
        cancelExpiry = endWithCredential(context, results, format);
        return { kind: 'stream', results };
      } catch (error) {
        held?.close();
        if (error instanceof SubscriptionRefused) return { kind: 'single', result: JSON.parse(error.body) as StreamResult };
        return single(requestErrors([error]));
      }
    }
    const live = liveOperation(ctx, { operation, fragments, rawVariables, steps: bound.steps, reads: bound.reads });
    if (live.kind === 'failed') return { kind: 'single', result: JSON.parse(live.body) as StreamResult };
    let watched: { close(): void } | undefined;
    let cancelExpiry = (): void => undefined;
    const results = pushIterator<StreamResult>(() => {
      watched?.close();
      cancelExpiry();
    });
    try {
      watched = await engine.watch({ plans: live.plans, key: derived.cacheKey ?? '', context, render: live.render }, (value) => {
        if (value.kind === 'value') results.push(JSON.parse(value.body) as StreamResult);
        else if (value.kind === 'error') results.push({ data: null, errors: [formatError(value.error, format)] });
        else results.end({ data: null, errors: [formatError(value.error, format)] });
      });
    } catch (error) {
      return single(requestErrors([error]));
    }
    cancelExpiry = endWithCredential(context, results, format);
    return { kind: 'stream', results };
  };

  const refuseUploads = async (request: GraphqlHttpRequest): Promise<GraphqlHttpResponse | undefined> => {
    const derived = await derivedOf(request, requestErrorsOf(request));
    if ('status' in derived) return derived;
    const { context } = request;
    try {
      const updates = checkUploadRights(engine.model, generated.mutation, derived.chosen.operation, derived.chosen.fragments, context.principal, request.params.variables);
      // Updates whose rules read the stored record: one of them must allow this caller, as REST asks before a file part.
      let refusal: Error | undefined;
      for (const { type, id } of updates) {
        try {
          await engine.precheckWrite(context, planUpdate(engine.model, type, id, {}, context.principal));
          return undefined;
        } catch (error) {
          if (!(error instanceof Error)) throw error;
          refusal ??= error;
        }
      }
      if (refusal !== undefined) throw refusal;
      return undefined;
    } catch (error) {
      return httpError(error, request.media, request.context.log);
    }
  };

  return { generated, handle, httpError, operate, refuseUploads };
}

/** A subscription lives on its credential: when the token expires or its account is suspended, it ends with the error a request with it would get. */
function endWithCredential(context: RequestContext, results: PushIterator<StreamResult>, format: FormatOptions): () => void {
  return context.credential.onEnd((why) => {
    results.end({ data: null, errors: [formatError(credentialEndError(why, 'subscribe again with a fresh one'), format)] });
  });
}

/**
 * The plan limits over the whole operation: a root field over them refuses
 * the request (no data), as does the cost of all root fields together.
 */
function operationLimits(reads: readonly (PlannedRead | undefined)[], limits: PlanLimits): ApiError | undefined {
  let cost = 0;
  for (const read of reads) {
    if (read === undefined) continue;
    if ('plan' in read) cost += planCost(read.plan);
    else if (isApiError(read.error) && read.error.code === 'QUERY_TOO_COMPLEX') return read.error;
  }
  try {
    checkCost(cost, limits);
    return undefined;
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
}

/**
 * graphql-js coerces input objects recursively and reports what it throws as
 * a variable error: a filter variable nested thousands of levels deep
 * overflows the stack there, which is the client's doing, not an internal
 * failure.
 */
function isStackOverflow(error: unknown): boolean {
  return error instanceof RangeError && /call stack/i.test(error.message);
}

function variablesTooDeep(): GraphQLError {
  return tooComplex(`The variables nest too deeply to be read; a filter nests at most ${FILTER_LIMITS.maxDepth} levels.`, 'variables');
}

/** A request refused before it ran, and the points refusing it costs. */
interface Refusal {
  readonly errors: readonly unknown[];
  readonly cost: number;
}

/**
 * What refusing an operation over the plan limits costs: a point per field
 * request its fragments expanded into before the refusal (the work done), so
 * a client cannot send such operations for nothing.
 */
function refusalCost(nodes: number): number {
  return Math.max(1, nodes);
}

/** What a request's parameters alone decide (see `derivedOf`). */
interface Derived {
  readonly chosen: OperationFacts;
  readonly templateKey: string | undefined;
  /** GET only: the key its validators are remembered under. */
  readonly cacheKey: string | undefined;
}

function contentType(media: JsonMedia): string {
  return `${media}; charset=utf-8`;
}

/** Trusted documents are checked at start-up: a bad one is a deployment mistake, not a client's. */
function checkTrustedDocuments(trusted: ReadonlyMap<string, string>, prepare: ReturnType<typeof createDocumentPreparer>): void {
  const problems: string[] = [];
  for (const [id, text] of trusted) {
    const prepared = prepare(text);
    if (!prepared.ok) problems.push(`${id}: ${prepared.errors.map((error) => error.message).join('; ')}`);
  }
  if (problems.length > 0) throw new Error(`Invalid trusted documents:\n${problems.join('\n')}`);
}

