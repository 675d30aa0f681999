import { isListRelation, type Field, type Model } from '../../schema/model.js';
import type * as GraphiqlBundle from '@graphql-yoga/render-graphiql/graphiql';
import type { AssetStore } from '../../util/asset-store.js';

/** What the headers editor opens with: where a token goes. */
export const PRESET_HEADERS = JSON.stringify({ Authorization: 'Bearer ' }, null, 2);

/**
 * GraphiQL's page: a small HTML document (about 2 KB) whose scripts, styles
 * and editor workers come from the asset store under content-hashed URLs,
 * compressed once and cached by browsers for a year, instead of the 9 MB
 * self-contained page the renderer writes (every byte inline, sent whole on
 * every visit). Nothing runs inline, so the page satisfies a
 * Content-Security-Policy without 'unsafe-inline' scripts; its settings
 * travel as a JSON data block.
 *
 * It opens on a query that works against the served schema, so the first
 * click shows data, with the headers editor open on `Authorization: Bearer `
 * for a token to be pasted. Headers are not kept in the browser's storage
 * (GraphiQL's settings can turn that on): a pasted admin key should not
 * outlive the visit.
 *
 * The renderer's module holds GraphiQL's whole bundle as strings (~45 MiB of
 * memory once loaded), so it is imported on the first browser visit, not at
 * start-up.
 */
export function graphiqlPage(endpoint: string, model: Model, assets: AssetStore): () => Promise<string> {
  let html: Promise<string> | undefined;
  const load = (): Promise<string> => {
    html ??= import('@graphql-yoga/render-graphiql/graphiql').then(
      (bundle) => renderPage(bundle, assets, { endpoint, defaultQuery: exampleQuery(model) }),
      (error: unknown) => {
        html = undefined;
        throw error;
      },
    );
    return html;
  };
  assets.addSource(load);
  return load;
}

/** What the page hands to `renderYogaGraphiQL`. */
export function graphiqlOptions(endpoint: string, defaultQuery: string): Record<string, unknown> {
  return {
    endpoint,
    title: TITLE,
    defaultQuery,
    isHeadersEditorEnabled: true,
    defaultEditorToolsVisibility: 'headers',
    defaultHeaders: PRESET_HEADERS,
    shouldPersistHeaders: false,
  };
}

const TITLE = 'Diglot GraphiQL';

type Bundle = typeof GraphiqlBundle;

function renderPage(bundle: Bundle, assets: AssetStore, page: { endpoint: string; defaultQuery: string }): string {
  const script = (name: string, body: string): string => assets.add(name, 'text/javascript; charset=utf-8', body).path;
  const css = assets.add('graphiql.css', 'text/css; charset=utf-8', bundle.css).path;
  const icon = dataUrlAsset(assets, 'favicon.ico', bundle.favicon);
  const config = {
    graphiql: graphiqlOptions(page.endpoint, page.defaultQuery),
    // Monaco asks for its workers by these labels (the renderer's own page passes blob: URLs of the same code).
    workers: {
      editorWorkerService: script('editor.worker.js', bundle.editorWorkerService),
      json: script('json.worker.js', bundle.jsonWorker),
      graphql: script('graphql.worker.js', bundle.graphqlWorker),
    },
  };
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${TITLE}</title>
    ${icon === undefined ? '' : `<link rel="icon" href="${icon}" />`}
    <link rel="stylesheet" href="${css}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>You need to enable JavaScript to run this app.</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-config">${jsonForScript(config)}</script>
    <script src="${script('graphiql-boot.js', BOOT_SCRIPT)}"></script>
    <script src="${script('graphiql.js', bundle.js)}"></script>
  </body>
</html>
`;
}

/** JSON inside a `<script>` element: no `<` can close it early. */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** A `data:…;base64,` URL's bytes as an asset, or undefined if it is not one. */
function dataUrlAsset(assets: AssetStore, name: string, url: string): string | undefined {
  const match = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (match?.[1] === undefined || match[2] === undefined) return undefined;
  return assets.add(name, match[1], Buffer.from(match[2], 'base64')).path;
}

/**
 * Until a token is pasted, the preset sends `Authorization: Bearer` with no
 * credential, which the server rightly refuses (401, never anonymous): that
 * would fail the schema's introspection and the first query. So the page's
 * own requests leave such a header out, and ask as anonymous. It runs
 * before GraphiQL's bundle, which may take `fetch` when it loads.
 */
export const BARE_BEARER_SCRIPT = `(() => {
  const bare = /^\\s*bearer\\s*$/i;
  const send = window.fetch.bind(window);
  window.fetch = (input, init) => {
    if (input instanceof Request && bare.test(input.headers.get('authorization') ?? '')) {
      const headers = new Headers(input.headers);
      headers.delete('authorization');
      input = new Request(input, { headers });
    }
    if (init?.headers !== undefined) {
      const headers = new Headers(init.headers);
      if (bare.test(headers.get('authorization') ?? '')) {
        headers.delete('authorization');
        init = { ...init, headers };
      }
    }
    return send(input, init);
  };
})();
`;

/** The page's one script of its own: the header filter, Monaco's worker URLs, and GraphiQL started once its bundle has run. */
const BOOT_SCRIPT = `${BARE_BEARER_SCRIPT}
(() => {
  const config = JSON.parse(document.getElementById('graphiql-config').textContent);
  self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: (_moduleId, label) => config.workers[label] };
  window.addEventListener('DOMContentLoaded', () => {
    YogaGraphiQL.renderYogaGraphiQL(document.querySelector('#root'), config.graphiql);
  });
})();
`;

/**
 * `{ users(first: 5) { id name … posts(first: 3) { id … } } }` for the first
 * type of the schema, of fields anyone may read: the page opens anonymous,
 * and a field asked for by name that the caller may not read is an error.
 */
export function exampleQuery(model: Model): string {
  const type = model.types[0];
  if (type === undefined) return '{ __typename }';
  const scalars = (fields: readonly Field[]): string[] =>
    fields
      .filter((field) => field.kind === 'scalar' && !field.list && field.scalar !== 'JSON' && field.deprecated === undefined && readableByAll(field))
      .slice(0, 3)
      .map((field) => field.name);
  const lines = [
    `# The same data as REST: GET /${type.path}`,
    '# As someone: a token after "Bearer " in Headers.',
    '# `diglot start` prints an admin key and a token.',
    '{',
    `  ${type.plural}(first: 5) {`,
  ];
  for (const name of scalars(type.fields)) lines.push(`    ${name}`);
  const image = type.fields.find((field) => field.kind === 'file' && readableByAll(field));
  if (image?.kind === 'file') lines.push(`    ${image.name}(size: ${image.image.sizes[0] ?? 64})`);
  const list = type.fields.filter(isListRelation).find(readableByAll);
  const target = list === undefined ? undefined : model.typesByName.get(list.target);
  if (list !== undefined && target !== undefined) {
    lines.push(`    ${list.name}(first: 3) {`);
    for (const name of scalars(target.fields)) lines.push(`      ${name}`);
    lines.push('    }');
  }
  lines.push('  }', '}', '');
  return lines.join('\n');
}

/** No read rule of its own, or `"true"`: the field follows its type, whose rules filter records rather than refuse. */
function readableByAll(field: Field): boolean {
  const rule = field.rules.read;
  return rule === undefined || (rule.expr.kind === 'const' && rule.expr.value);
}
