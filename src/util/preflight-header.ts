/**
 * Headers that force a CORS preflight, as Apollo Server and GraphQL Yoga
 * accept them: a browser sends a form cross-site without asking first, but
 * never with a custom header (Fetch, "CORS-safelisted request-header"), so a
 * request that carries one was either sent by a non-browser client or allowed
 * by a preflight. Shared by the cross-site guard at the edge and GraphQL's
 * multipart uploads, which require one on every request.
 */
export const PREFLIGHT_HEADERS = ['graphql-require-preflight', 'apollo-require-preflight', 'x-apollo-operation-name'] as const;

/** True when one of PREFLIGHT_HEADERS is present and not blank. */
export function hasPreflightHeader(headers: Readonly<Record<string, string | string[] | undefined>>): boolean {
  return PREFLIGHT_HEADERS.some((name) => {
    const value = headers[name];
    return (Array.isArray(value) ? value.join('') : (value ?? '')).trim() !== '';
  });
}
