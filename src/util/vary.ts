/** A response header's value as Node and Fastify hold it. */
type HeaderValue = string | number | readonly string[] | undefined;

/**
 * One `Vary` from several layers (CORS's `Origin`, a style's `Accept`,
 * rules' `Authorization`, compression's `Accept-Encoding`): every field name
 * once, compared case-insensitively (RFC 9110 §5.1), in the order first
 * named; `*` absorbs the rest (§12.5.5). Undefined when none names anything.
 */
export function mergeVary(...values: readonly HeaderValue[]): string | undefined {
  const names = new Map<string, string>();
  for (const value of values) {
    if (value === undefined) continue;
    const texts = typeof value === 'string' ? [value] : typeof value === 'number' ? [String(value)] : value;
    for (const text of texts) {
      for (const part of text.split(',')) {
        const name = part.trim();
        if (name === '') continue;
        if (name === '*') return '*';
        if (!names.has(name.toLowerCase())) names.set(name.toLowerCase(), name);
      }
    }
  }
  return names.size === 0 ? undefined : [...names.values()].join(', ');
}

/** What a reply must offer to have headers set on it (a Fastify reply). */
interface HeaderTarget {
  getHeader(name: string): HeaderValue;
  header(name: string, value: string): unknown;
}

/** Adds field names to the reply's `Vary`, keeping those other layers set. */
export function addVary(reply: HeaderTarget, value: HeaderValue): void {
  const merged = mergeVary(reply.getHeader('vary'), value);
  if (merged !== undefined) reply.header('vary', merged);
}

/**
 * Sets headers on a reply the way every route should: `Vary` is merged with
 * what earlier layers set (CORS sets `Vary: Origin` before any route runs),
 * every other header replaced.
 */
export function setHeaders(reply: HeaderTarget, headers: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(headers)) {
    if (name.toLowerCase() === 'vary') addVary(reply, value);
    else reply.header(name, value);
  }
}
