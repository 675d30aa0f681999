import { http, type HttpResponse } from '../support/http.js';

/** POST /graphql with a JSON body, as most clients do. */
export function gql(base: string, query: string, variables?: Record<string, unknown>, headers: Record<string, string> = {}): Promise<HttpResponse> {
  return http(base, 'POST', '/graphql', { body: { query, ...(variables === undefined ? {} : { variables }) }, headers });
}

/** GET /graphql with the parameters in the query string (JSON ones encoded). */
export function gqlGet(base: string, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<HttpResponse> {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== undefined) search.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  }
  return http(base, 'GET', `/graphql?${search.toString()}`, { headers });
}
