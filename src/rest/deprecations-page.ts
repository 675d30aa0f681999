import type { FastifyInstance } from 'fastify';
import type { Engine } from '../engine/engine.js';
import { schemaDeprecations, type DeprecatedUse } from '../plan/deprecated-use.js';
import { DEPRECATIONS_PAGE } from './deprecation-headers.js';

/**
 * `GET /docs/deprecations`: every deprecated thing of the schema, one row
 * each with its schema coordinate as the anchor — what the `Link` headers
 * of REST answers point at (`rel="deprecation"`, `rel="sunset"`). Plain
 * HTML with no script, built once (the model is frozen).
 */
export function registerDeprecationsPage(app: FastifyInstance, engine: Engine): void {
  let html: string | undefined;
  app.get(DEPRECATIONS_PAGE, (_request, reply) => {
    html ??= renderPage(schemaDeprecations(engine.model), (use) => engine.deprecationUsage.deprecatedAt(use));
    return reply.type('text/html; charset=utf-8').header('cache-control', 'public, no-cache').send(html);
  });
}

function renderPage(uses: readonly DeprecatedUse[], deprecatedAt: (use: DeprecatedUse) => number | undefined): string {
  const rows = uses.map((use) => {
    const at = deprecatedAt(use);
    const since = at === undefined ? '' : new Date(at * 1000).toISOString().slice(0, 10);
    const id = escape(use.coordinate);
    return `<tr id="${id}"><td><a href="#${escape(encodeURIComponent(use.coordinate))}"><code>${id}</code></a></td><td>${use.kind}</td><td>${escape(use.reason)}</td><td>${since}</td><td>${escape(use.sunset ?? '')}</td></tr>`;
  });
  const body =
    uses.length === 0
      ? '<p>Nothing in this API is deprecated.</p>'
      : `<table><thead><tr><th>What</th><th>Kind</th><th>Why, and what to use instead</th><th>Deprecated since</th><th>Sunset</th></tr></thead><tbody>${rows.join('')}</tbody></table>`;
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Deprecations</title></head><body><h1>Deprecations</h1><p>What this API still answers but will remove, named by GraphQL schema coordinate (<code>Type.field</code>, <code>Type.field(argument:)</code>, <code>Enum.VALUE</code>, or a whole type). After the sunset date it may stop working.</p>${body}</body></html>`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
