import { ApiError } from '../../errors/api-error.js';
import { jsonValueProblem } from '../../plan/coerce.js';
import { LruCache } from '../../util/lru-cache.js';

/**
 * The GraphQL-over-HTTP request parameters (spec §5), from a POST body or a
 * GET query string. A malformed request is a 400 whatever the Accept header:
 * it never reaches GraphQL.
 */
export interface GraphqlParams {
  readonly query: string | undefined;
  readonly variables: Readonly<Record<string, unknown>> | undefined;
  readonly operationName: string | undefined;
  readonly extensions: Readonly<Record<string, unknown>> | undefined;
  /** A trusted document's id (`?id=<sha256>`, or `id` / `documentId` in a body). */
  readonly documentId: string | undefined;
}

export function paramsFromBody(text: unknown): GraphqlParams {
  if (typeof text !== 'string' || text.trim() === '') {
    throw new ApiError('BAD_REQUEST', { detail: 'The body is empty: send {"query": "…"} as application/json' });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new ApiError('MALFORMED_JSON', { detail: `The body is not valid JSON: ${(error as Error).message}` });
  }
  return paramsFromJson(body);
}

/** The parameters from a parsed JSON body (or a multipart request's `operations`). */
export function paramsFromJson(body: unknown): GraphqlParams {
  if (Array.isArray(body)) throw new ApiError('BAD_REQUEST', { detail: 'Batched requests are not supported: send one operation per request' });
  if (typeof body !== 'object' || body === null) throw new ApiError('BAD_REQUEST', { detail: 'The body must be a JSON object such as {"query": "…"}' });
  const fields = body as Record<string, unknown>;
  return {
    query: stringParam(fields['query'], 'query'),
    variables: objectParam(fields['variables'], 'variables'),
    operationName: stringParam(fields['operationName'], 'operationName'),
    extensions: objectParam(fields['extensions'], 'extensions'),
    documentId: stringParam(fields['documentId'], 'documentId') ?? stringParam(fields['id'], 'id'),
  };
}

/**
 * GET requests that can be cached are repeated verbatim (a persisted query
 * with the same variables): their parameters are parsed once. The result is
 * read-only; a query string that fails to parse is not kept.
 */
const parsedSearches = new LruCache<string, GraphqlParams>(1000);
const CACHEABLE_SEARCH = 2048;

/**
 * JSON parameters of a GET: a query's variables never need more (a filter
 * nests at most 32 levels, each an object and a list), and a URL can carry
 * thousands of brackets.
 */
const SEARCH_JSON_LIMITS = Object.freeze({ maxDepth: 128, maxValues: 10_000 });

export function paramsFromSearch(search: string): GraphqlParams {
  const known = parsedSearches.get(search);
  if (known !== undefined) return known;
  const params = parseSearch(search);
  if (search.length <= CACHEABLE_SEARCH) parsedSearches.set(search, params);
  return params;
}

function parseSearch(search: string): GraphqlParams {
  const params = new URLSearchParams(search);
  const single = (name: string): string | undefined => {
    const values = params.getAll(name);
    if (values.length > 1) throw new ApiError('BAD_REQUEST', { detail: `The parameter ${name} appears ${values.length} times; give it once` });
    return values[0];
  };
  const json = (name: string): Readonly<Record<string, unknown>> | undefined => {
    const text = single(name);
    if (text === undefined || text === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ApiError('MALFORMED_JSON', { detail: `The ${name} parameter is not valid JSON` });
    }
    // A GET's parameters are part of its cache key, which `JSON.stringify` (recursive) writes.
    const problem = jsonValueProblem(value, SEARCH_JSON_LIMITS);
    if (problem !== undefined) throw new ApiError('QUERY_TOO_COMPLEX', { detail: `The ${name} parameter ${problem}`, extensions: { parameter: name } });
    return objectParam(value, name);
  };
  const operationName = single('operationName');
  return {
    query: single('query'),
    variables: json('variables'),
    operationName: operationName === '' ? undefined : operationName,
    extensions: json('extensions'),
    documentId: single('id') ?? single('documentId'),
  };
}

function stringParam(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new ApiError('BAD_REQUEST', { detail: `${name} must be a string` });
  return value;
}

function objectParam(value: unknown, name: string): Readonly<Record<string, unknown>> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new ApiError('BAD_REQUEST', { detail: `${name} must be a JSON object` });
  return value as Record<string, unknown>;
}
