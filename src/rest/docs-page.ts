import fastifyApiReference from '@scalar/fastify-api-reference';
import type { FastifyInstance } from 'fastify';

export const DOCS_PREFIX = '/docs';

/** Where the reference's script is served: by us, from the package itself. */
export const DOCS_SCRIPT_PATH = `${DOCS_PREFIX}/js/scalar.js`;

export interface DocsPageOptions {
  /** Same-origin URL of the OpenAPI document the page shows. */
  readonly documentUrl: string;
  readonly title: string;
}

/**
 * The browsable API reference at /docs: Scalar's reference, self-hosted.
 * The plugin serves its own bundled script (`/docs/js/scalar.js`); `cdn`
 * points the page at that route instead of cdn.jsdelivr.net, and the options
 * below switch off everything that would reach a third-party host from the
 * browser (web fonts, telemetry, the hosted agent and MCP helpers).
 *
 * `/docs` answers with a redirect to `/docs/`: the plugin insists on the
 * trailing slash so that relative links inside the page resolve.
 */
export function registerDocsPage(app: FastifyInstance, options: DocsPageOptions): void {
  void app.register(fastifyApiReference, {
    routePrefix: DOCS_PREFIX,
    logLevel: 'warn',
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
    },
  });
}
