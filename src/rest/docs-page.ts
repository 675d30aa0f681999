import type { FastifyInstance } from 'fastify';
import type { AssetStore } from '../util/asset-store.js';

export const DOCS_PREFIX = '/docs';

/** Where Scalar's plugin serves its script on the scratch instance it renders on. */
const SCRATCH_SCRIPT_PATH = `${DOCS_PREFIX}/js/scalar.js`;

export interface DocsPageOptions {
  /** Same-origin URL of the OpenAPI document the page shows. */
  readonly documentUrl: string;
  readonly title: string;
  /** Where the page's scripts go: content-hashed URLs, compressed once, cached for a year. */
  readonly assets: AssetStore;
}

/**
 * The browsable API reference at /docs: Scalar's reference, self-hosted.
 * The page is small HTML; Scalar's bundled script is an asset under a
 * content-hashed URL (no CDN), started by a script of ours with its
 * settings in a JSON data block, so nothing runs inline and the page keeps
 * a Content-Security-Policy without 'unsafe-inline' scripts. The settings
 * switch off everything that would reach a third-party host from the
 * browser (web fonts, telemetry, the hosted agent and MCP helpers).
 *
 * Scalar's package holds its 4 MB browser bundle as a string, which costs a
 * server ~25 MiB of memory from the moment it is imported. So it is imported
 * on the first visit to /docs, not at start-up: its Fastify plugin serves
 * the script once, on a scratch instance, and we keep that.
 *
 * `/docs` answers with a redirect to `/docs/`, so that relative links inside
 * the page resolve.
 *
 * The document's security schemes give the page its authentication box;
 * it opens on none (a public read needs no token), and once a scheme is
 * chosen "try it" sends the token as `Authorization: Bearer …`. The token is kept only while the page
 * is open (Scalar's `persistAuth` stays off): an admin key left in a
 * browser's storage would outlive the session it was pasted for.
 */
export function registerDocsPage(app: FastifyInstance, options: DocsPageOptions): void {
  let html: Promise<string> | undefined;
  const load = (): Promise<string> => {
    html ??= renderPage(options).catch((error: unknown) => {
      html = undefined;
      throw error;
    });
    return html;
  };
  options.assets.addSource(load);
  app.get(`${DOCS_PREFIX}/`, { logLevel: 'warn' }, async (request, reply) => {
    // The router ignores trailing slashes, so /docs lands here too.
    if (!request.url.split('?')[0]?.endsWith('/')) return reply.redirect(`${DOCS_PREFIX}/`, 301);
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(await load());
  });
}

/** Scalar's settings, as the page hands them to `Scalar.createApiReference`. */
export function docsConfiguration(options: Pick<DocsPageOptions, 'documentUrl' | 'title'>): Record<string, unknown> {
  return {
    url: options.documentUrl,
    pageTitle: options.title,
    withDefaultFonts: false,
    telemetry: false,
    agent: { disabled: true },
    mcp: { disabled: true },
    showDeveloperTools: 'never',
    // The spec is same-origin, so "try it" needs no proxy; never send requests through Scalar's.
    proxyUrl: '',
    // No scheme preselected: the document's first requirement is the anonymous one, so "try it" on a public read works
    // without a token (a preselected, empty bearer scheme sent `Authorization: Bearer ` and got 401).
    persistAuth: false,
  };
}

/** Starts the reference once Scalar's bundle has run (it defines `Scalar`). */
const BOOT_SCRIPT = "Scalar.createApiReference('#app', JSON.parse(document.getElementById('docs-config').textContent));\n";

async function renderPage(options: DocsPageOptions): Promise<string> {
  const script = await scalarScript();
  const asset = (name: string, body: string): string => options.assets.add(name, 'text/javascript; charset=utf-8', body).path;
  const title = options.title.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${title}</title>
    <link rel="icon" href="data:," />
  </head>
  <body>
    <div id="app"></div>
    <script type="application/json" id="docs-config">${JSON.stringify(docsConfiguration(options)).replace(/</g, '\\u003c')}</script>
    <script src="${asset('scalar.js', script)}"></script>
    <script src="${asset('docs-boot.js', BOOT_SCRIPT)}"></script>
  </body>
</html>
`;
}

/** Scalar's browser bundle, as its Fastify plugin serves it. */
async function scalarScript(): Promise<string> {
  const [{ default: fastify }, { default: fastifyApiReference }] = await Promise.all([import('fastify'), import('@scalar/fastify-api-reference')]);
  const scratch = fastify({ logger: false });
  try {
    await scratch.register(fastifyApiReference, { routePrefix: DOCS_PREFIX, configuration: { url: '/openapi.json', cdn: SCRATCH_SCRIPT_PATH } });
    const script = await scratch.inject({ method: 'GET', url: SCRATCH_SCRIPT_PATH });
    if (script.statusCode !== 200) throw new Error('the API reference\'s script could not be loaded');
    return script.body;
  } finally {
    await scratch.close();
  }
}
