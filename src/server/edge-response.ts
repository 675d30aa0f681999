import { STATUS_CODES, type IncomingHttpHeaders } from 'node:http';
import type { ApiError } from '../errors/api-error.js';
import { graphqlErrorResponse, isGraphqlTarget } from '../graphql/graphql-api.js';
import { PROBLEM_CONTENT_TYPE, problemOf } from '../rest/problem.js';

export interface EdgeResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** What is known of the request an edge error is about: nothing, when its head could not be read. */
export interface EdgeTarget {
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
}

/**
 * An error the server answers outside any route (at the socket, or for a
 * request Node refused before Fastify saw it), in the documented shape of
 * the endpoint it was meant for: GraphQL's envelope for /graphql,
 * problem+json everywhere else and whenever the target is unknown.
 */
export function edgeResponse(error: ApiError, target: EdgeTarget | undefined): EdgeResponse {
  if (target?.url !== undefined && isGraphqlTarget(target.url)) {
    const accept = target.headers.accept;
    const response = graphqlErrorResponse(error, accept);
    return { status: response.status, headers: { ...response.headers, 'x-content-type-options': 'nosniff' }, body: response.body ?? '' };
  }
  return {
    status: error.status,
    headers: { 'content-type': `${PROBLEM_CONTENT_TYPE}; charset=utf-8`, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' },
    body: JSON.stringify(problemOf(error, target?.url)),
  };
}

/** The response as bytes for a socket no ServerResponse owns; it always closes the connection. */
export function rawHttpResponse(response: EdgeResponse): string {
  const headers: Record<string, string> = {
    ...response.headers,
    'content-length': String(Buffer.byteLength(response.body)),
    connection: 'close',
    date: new Date().toUTCString(),
  };
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`);
  return `HTTP/1.1 ${response.status} ${STATUS_CODES[response.status] ?? ''}\r\n${lines.join('\r\n')}\r\n\r\n${response.body}`;
}
