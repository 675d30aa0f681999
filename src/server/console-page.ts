import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import { ApiError } from '../errors/api-error.js';
import type { AssetStore } from '../util/asset-store.js';

export const CONSOLE_PATH = '/console';

/** Where `npm run build` puts the console (Vite's output): `dist/console/`, from `src/server/` and `dist/server/` alike. */
const DEFAULT_BUILD_DIR = new URL('../../dist/console/', import.meta.url);

/**
 * The console at /console: Vite's small HTML page (built from `console/`),
 * its script and stylesheet served as content-hashed assets,
 * so they are compressed once and cached for a year while the page itself
 * is revalidated on every visit. The console talks to the server only
 * through the public REST API with the person's own credential; this route
 * serves files and nothing else. The build is read when the page is first
 * asked for, so a server nobody opens the console on holds none of it.
 */
export function registerConsolePage(app: FastifyInstance, assets: AssetStore, buildDir: URL = DEFAULT_BUILD_DIR): void {
  let html: Promise<string> | undefined;
  const load = (): Promise<string> => {
    html ??= renderPage(assets, buildDir).catch((error: unknown) => {
      html = undefined;
      throw error;
    });
    return html;
  };
  assets.addSource(load);
  app.get(CONSOLE_PATH, { logLevel: 'warn' }, async (_request, reply) => {
    let page: string;
    try {
      page = await load();
    } catch (cause) {
      throw new ApiError('ROUTE_NOT_FOUND', { detail: 'The console is not built: run `npm run build` (it writes dist/console/).', cause });
    }
    return reply.type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
  });
}

/** Vite's page, its `./assets/…` references replaced by the asset store's content-hashed URLs. */
async function renderPage(assets: AssetStore, buildDir: URL): Promise<string> {
  const page = await readFile(new URL('index.html', buildDir), 'utf8');
  const references = [...new Set([...page.matchAll(/(?:src|href)="\.\/(assets\/[^"]+)"/g)].map((match) => match[1] ?? ''))];
  let html = page;
  for (const file of references) {
    const type = file.endsWith('.css') ? 'text/css; charset=utf-8' : 'text/javascript; charset=utf-8';
    const asset = assets.add(`console${file.slice(file.lastIndexOf('.'))}`, type, await readFile(new URL(file, buildDir)));
    html = html.replaceAll(`"./${file}"`, `"${asset.path}"`);
  }
  return html;
}
