import type { FastifyInstance } from 'fastify';
import { BEARER_SCHEME } from './openapi/security-schemes.js';

export const DOCS_PREFIX = '/docs';

/** Where the reference's script is served: by us, from the package itself. */
export const DOCS_SCRIPT_PATH = `${DOCS_PREFIX}/js/scalar.js`;

export interface DocsPageOptions {
  /** Same-origin URL of the OpenAPI document the page shows. */
  readonly documentUrl: string;
  readonly title: string;
}

interface DocsAssets {
  readonly html: string;
  readonly script: string;
}

/**
 * The browsable API reference at /docs: Scalar's reference, self-hosted.
 * `cdn` points the page at our own route for Scalar's bundled script instead
 * of cdn.jsdelivr.net, and the options below switch off everything that would
 * reach a third-party host from the browser (web fonts, telemetry, the hosted
 * agent and MCP helpers).
 *
 * Scalar's package holds its 4 MB browser bundle as a string, which costs a
 * server ~25 MiB of memory from the moment it is imported. So it is imported
 * on the first visit to /docs, not at start-up: its Fastify plugin renders
 * the page and the script once, on a scratch instance, and we serve those.
 *
 * `/docs` answers with a redirect to `/docs/`, so that relative links inside
 * the page resolve.
 *
 * The document's security schemes give the page its authentication box;
 * the bearer (JWT) scheme is the one it opens on, and "try it" sends the
 * token as `Authorization: Bearer …`. The token is kept only while the page
 * is open (Scalar's `persistAuth` stays off): an admin key left in a
 * browser's storage would outlive the session it was pasted for.
 */
export function registerDocsPage(app: FastifyInstance, options: DocsPageOptions): void {
  let assets: Promise<DocsAssets> | undefined;
  const load = (): Promise<DocsAssets> => {
    assets ??= renderAssets(options).catch((error: unknown) => {
      assets = undefined;
      throw error;
    });
    return assets;
  };
  app.get(`${DOCS_PREFIX}/`, { logLevel: 'warn' }, async (request, reply) => {
    // The router ignores trailing slashes, so /docs lands here too.
    if (!request.url.split('?')[0]?.endsWith('/')) return reply.redirect(`${DOCS_PREFIX}/`, 301);
    const { html } = await load();
    return reply.type('text/html; charset=utf-8').send(html);
  });
  app.get(DOCS_SCRIPT_PATH, { logLevel: 'warn' }, async (_request, reply) => {
    const { script } = await load();
    return reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(script);
  });
}

async function renderAssets(options: DocsPageOptions): Promise<DocsAssets> {
  const [{ default: fastify }, { default: fastifyApiReference }] = await Promise.all([
    import('fastify'),
    import('@scalar/fastify-api-reference'),
  ]);
  const scratch = fastify({ logger: false });
  try {
    await scratch.register(fastifyApiReference, {
      routePrefix: DOCS_PREFIX,
      configuration: {
        url: options.documentUrl,
        cdn: DOCS_SCRIPT_PATH,
        pageTitle: options.title,
        withDefaultFonts: false,
        telemetry: false,
        agent: { disabled: true },
        mcp: { disabled: true },
        showDeveloperTools: 'never',
        // The spec is same-origin, so "try it" needs no proxy; never send requests through Scalar's.
        proxyUrl: '',
        authentication: { preferredSecurityScheme: BEARER_SCHEME },
        persistAuth: false,
      },
    });
    const html = await scratch.inject({ method: 'GET', url: `${DOCS_PREFIX}/` });
    const script = await scratch.inject({ method: 'GET', url: DOCS_SCRIPT_PATH });
    if (html.statusCode !== 200 || script.statusCode !== 200) throw new Error('the API reference could not be rendered');
    return { html: html.body, script: script.body };
  } finally {
    await scratch.close();
  }
}
