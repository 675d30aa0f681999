import type { ApiError } from '../errors/api-error.js';

/**
 * The `WWW-Authenticate` challenge a 401 carries (RFC 6750 §3): a Bearer
 * credential that was refused gets `error="invalid_token"` and the reason;
 * a request in another scheme gets the bare challenge, since §3.1 gives no
 * error code to a client that did not try a bearer token.
 */
export function challengeFor(error: ApiError, authorization: string | undefined): string | undefined {
  if (error.code !== 'UNAUTHENTICATED') return undefined;
  if (authorization === undefined || !/^Bearer(?: |$)/i.test(authorization)) return 'Bearer';
  return `Bearer error="invalid_token", error_description="${descriptionOf(error.detail ?? error.title)}"`;
}

/** RFC 6750 §3: error_description is printable ASCII without `"` and `\`. */
function descriptionOf(text: string): string {
  return text.replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, ' ');
}
