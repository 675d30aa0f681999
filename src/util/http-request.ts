import type { IncomingHttpHeaders } from 'node:http';

/** One request header as text (repeated headers joined, as RFC 9110 §5.3 allows). */
export function header(request: { readonly headers: IncomingHttpHeaders }, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The query string of a request target, without its `?` (empty when there is none). */
export function searchOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? '' : url.slice(at + 1);
}

/** The path of a request target, without its query string. */
export function pathOf(url: string): string {
  const at = url.indexOf('?');
  return at < 0 ? url : url.slice(0, at);
}
