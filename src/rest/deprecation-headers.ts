import type { FastifyReply } from 'fastify';
import type { Engine } from '../engine/engine.js';
import type { DeprecatedUse } from '../plan/deprecated-use.js';

/** The page that describes each deprecated thing, with an anchor per schema coordinate. */
export const DEPRECATIONS_PAGE = '/docs/deprecations';

/** The docs URL of one deprecated thing (relative: RFC 8288 resolves it against the request's). */
export function deprecationDocs(coordinate: string): string {
  return `${DEPRECATIONS_PAGE}#${encodeURIComponent(coordinate)}`;
}

/**
 * Tells a REST client that its request used deprecated things (the plan's
 * list; nothing at all when it is empty):
 * - `Deprecation` (RFC 9745): `@<seconds>`, the earliest date one of them
 *   was deprecated on (`deprecatedAt`);
 * - `Sunset` (RFC 8594): the earliest sunset among them, as an HTTP-date;
 * - `Link`: for each, its docs with `rel="deprecation"`, and `rel="sunset"`
 *   where it has a sunset, after whatever links the reply already has.
 * Set before the answer is made, so a 304, an error or an event stream keeps them.
 */
export function setDeprecationHeaders(reply: FastifyReply, uses: readonly DeprecatedUse[], deprecatedAt: (use: DeprecatedUse) => number | undefined): void {
  if (uses.length === 0) return;
  let since: number | undefined;
  let sunset: string | undefined;
  const links: string[] = [];
  for (const use of uses) {
    const at = deprecatedAt(use);
    if (at !== undefined && (since === undefined || at < since)) since = at;
    const docs = deprecationDocs(use.coordinate);
    links.push(`<${docs}>; rel="deprecation"; type="text/html"`);
    if (use.sunset !== undefined) {
      links.push(`<${docs}>; rel="sunset"; type="text/html"`);
      if (sunset === undefined || use.sunset < sunset) sunset = use.sunset;
    }
  }
  if (since !== undefined) void reply.header('deprecation', `@${since}`);
  if (sunset !== undefined) void reply.header('sunset', new Date(`${sunset}T00:00:00Z`).toUTCString());
  appendLink(reply, links.join(', '));
}

/** Adds to the reply's `Link` rather than replacing it (a list's page links come too). */
export function appendLink(reply: FastifyReply, value: string): void {
  const existing = reply.getHeader('link');
  const before = Array.isArray(existing) ? existing.join(', ') : typeof existing === 'string' ? existing : '';
  void reply.header('link', before === '' ? value : `${before}, ${value}`);
}

/** A plan's deprecated things as headers, dated by what this database recorded; set as soon as it is planned. */
export function markDeprecated(options: { readonly engine: Pick<Engine, 'deprecationUsage'> }, reply: FastifyReply, uses: readonly DeprecatedUse[] | undefined): void {
  if (uses === undefined || uses.length === 0) return;
  setDeprecationHeaders(reply, uses, (use) => options.engine.deprecationUsage.deprecatedAt(use));
}
