import { getOperationAST, getVariableValues, GraphQLError, Kind, OperationTypeNode, type FragmentDefinitionNode } from 'graphql';
import { cacheControlHeader } from '../engine/cache-policy.js';
import type { Engine } from '../engine/engine.js';
import { ApiError, isApiError } from '../errors/api-error.js';
import type { PlanLimits } from '../plan/build-read.js';
import { tooComplex } from './document/check-limits.js';
import { variableErrorCode, withCode } from './document/input-error-code.js';
import { createDocumentPreparer } from './document/prepare-document.js';
import { compileOperation } from './execute/compile-operation.js';
import { runOperation } from './execute/run-operation.js';
import type { ResolvedGraphqlOptions } from './graphql-options.js';
import type { GraphqlParams } from './http/graphql-params.js';
import { GRAPHQL_RESPONSE_JSON, type JSON_MEDIA } from './http/negotiate.js';
import { createDocumentSource, loadPersistedDocuments, sha256 } from './http/persisted-documents.js';
import { formatError, type ErrorLog, type FormatOptions } from './response/format-error.js';
import { responseBody } from './response/response-body.js';
import { buildGraphqlSchema } from './schema/build-schema.js';
import type { GeneratedSchema } from './schema/roles.js';

export type JsonMedia = typeof GRAPHQL_RESPONSE_JSON | typeof JSON_MEDIA;

/** One GraphQL request in HTTP terms, already negotiated and parsed. */
export interface GraphqlHttpRequest {
  readonly method: 'GET' | 'POST';
  readonly params: GraphqlParams;
  readonly media: JsonMedia;
  readonly ifNoneMatch: string | undefined;
  readonly log: ErrorLog;
}

export interface GraphqlHttpResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Undefined for 304. */
  readonly body: string | undefined;
}

export interface GraphqlHandler {
  readonly generated: GeneratedSchema;
  handle(request: GraphqlHttpRequest): Promise<GraphqlHttpResponse>;
  /** An HTTP-level failure (bad parameters, wrong method or media type) as a GraphQL-shaped response. */
  httpError(error: unknown, media: JsonMedia, log: ErrorLog): GraphqlHttpResponse;
}

/**
 * The GraphQL front-end without the web framework: resolve the document
 * (text, trusted id or persisted hash) → parse and validate (cached) → pick
 * the operation → coerce variables → compile root fields to field requests
 * → check the cost → run plans through the engine → render.
 *
 * Status codes follow GraphQL over HTTP §7: with application/json every
 * well-formed request gets 200; with application/graphql-response+json a
 * request error (nothing executed, no `data`) is 400.
 */
export function createGraphqlHandler(engine: Engine, planLimits: PlanLimits, options: ResolvedGraphqlOptions): GraphqlHandler {
  const generated = buildGraphqlSchema(engine.model);
  const prepare = createDocumentPreparer(generated, options.limits, options.documentCacheSize);
  const persisted = options.persistedDocuments;
  const source = createDocumentSource(
    persisted === undefined ? new Map() : loadPersistedDocuments(persisted.file),
    persisted?.onlyPersisted === true,
    options.apqCacheSize,
  );
  checkTrustedDocuments(source.trusted, prepare);
  const formatOptions = (log: ErrorLog): FormatOptions => ({ hideSuggestions: options.hideSuggestions, exposeInternals: options.exposeInternals, log });

  const httpError = (error: unknown, media: JsonMedia, log: ErrorLog): GraphqlHttpResponse => {
    const allow = isApiError(error) ? error.extensions['allow'] : undefined;
    return {
      status: isApiError(error) ? error.status : 500,
      headers: {
        'content-type': contentType(media),
        'cache-control': 'no-store',
        ...(Array.isArray(allow) ? { allow: allow.join(', ') } : {}),
      },
      body: responseBody([formatError(error, formatOptions(log))], undefined),
    };
  };

  const handle = async (request: GraphqlHttpRequest): Promise<GraphqlHttpResponse> => {
    const format = formatOptions(request.log);
    const requestErrors = (errors: readonly unknown[]): GraphqlHttpResponse => ({
      status: request.media === GRAPHQL_RESPONSE_JSON ? 400 : 200,
      headers: { 'content-type': contentType(request.media), 'cache-control': 'no-store' },
      body: responseBody(
        errors.map((error) => formatError(error, format)),
        undefined,
      ),
    });
    const { params } = request;

    let text: string;
    try {
      text = source.resolve(params).text;
    } catch (error) {
      if (isApiError(error) && error.code === 'PERSISTED_QUERY_NOT_FOUND') return requestErrors([error]);
      throw error;
    }
    const prepared = prepare(text);
    if (!prepared.ok) return requestErrors(prepared.errors);
    const { document } = prepared;

    const operation = getOperationAST(document, params.operationName);
    if (operation === null || operation === undefined) {
      const message =
        params.operationName === undefined ? 'Must provide operation name if query contains multiple operations.' : `Unknown operation named "${params.operationName}".`;
      return requestErrors([new GraphQLError(message, { extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })]);
    }
    if (request.method === 'GET' && operation.operation !== OperationTypeNode.QUERY) {
      // GraphQL over HTTP §6.1: GET must never change anything.
      return httpError(
        new ApiError('METHOD_NOT_ALLOWED', { detail: `A ${operation.operation} cannot run over GET; send it with POST`, extensions: { allow: ['POST'] } }),
        request.media,
        request.log,
      );
    }

    const rawVariables = params.variables ?? {};
    const coerced = getVariableValues(generated.schema, operation.variableDefinitions ?? [], rawVariables, { maxErrors: 50 });
    if (coerced.errors !== undefined) {
      return requestErrors(coerced.errors.map((error) => withCode(error, variableErrorCode(error, generated.inputs))));
    }

    const fragments = new Map<string, FragmentDefinitionNode>();
    for (const definition of document.definitions) {
      if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
    }
    const compiled = compileOperation({ schema: generated.schema, fragments, variables: coerced.coerced, generated, planLimits }, operation);
    if (compiled.cost > options.limits.maxCost) {
      return requestErrors([
        tooComplex(`The operation may read about ${Math.round(compiled.cost)} rows; the limit is ${options.limits.maxCost} (maxCost). Ask for smaller pages or less nesting.`, 'maxCost'),
      ]);
    }

    const cache =
      request.method === 'GET'
        ? { key: `graphql ${sha256(text)} ${params.operationName ?? ''} ${JSON.stringify(rawVariables)}`, ifNoneMatch: request.ifNoneMatch }
        : undefined;
    const outcome = await runOperation(
      { engine, generated, planLimits, format },
      { operation, fragments, rawVariables, steps: compiled.steps },
      cache,
    );
    if (outcome.status === 304) {
      const headers: Record<string, string> = { 'cache-control': cacheControlHeader(outcome.policy), vary: 'Accept' };
      if (outcome.etag !== undefined) headers['etag'] = outcome.etag;
      return { status: 304, headers, body: undefined };
    }
    const caching: Record<string, string> =
      outcome.validators === undefined
        ? { 'cache-control': 'no-store' }
        : { etag: outcome.validators.etag, 'cache-control': cacheControlHeader(outcome.validators.policy) };
    return {
      status: 200,
      headers: { 'content-type': contentType(request.media), ...caching, ...(request.method === 'GET' ? { vary: 'Accept' } : {}) },
      body: outcome.body,
    };
  };

  return { generated, handle, httpError };
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

