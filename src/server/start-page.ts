import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ifNoneMatchMatches, strongEtag } from '../engine/validators.js';
import type { Model, ResourceType } from '../schema/model.js';
import type { AssetStore } from '../util/asset-store.js';
import { toCamelCase } from '../util/naming.js';
import { addVary } from '../util/vary.js';
import { methodNotAllowed } from '../rest/route-helpers.js';

export interface StartPageOptions {
  readonly model: Model;
  readonly assets: AssetStore;
  /** Where the change stream is (`/events`, or `/_events` when a type has that collection). */
  readonly eventsPath: string;
}

/** The server's own places, as the start page and its JSON name them. */
export function serverLinks(eventsPath: string): Record<string, string> {
  return { console: '/console', docs: '/docs/', graphql: '/graphql', openapi: '/openapi.json', health: '/healthz', events: eventsPath, admin: '/admin' };
}

/**
 * `GET /`: what this server is, for whoever opens it. A browser
 * (`Accept: text/html`) gets a small page with the links and a first
 * `curl` and GraphQL query for this schema; any other client the same as
 * JSON, with each type's collection. Both are made once, sent with a
 * strong ETag (`304` on revalidation) and compressed at the edge; the
 * page's style and script are assets under content-hashed URLs, cached
 * for a year, and nothing runs inline (the pages' Content-Security-Policy).
 */
export function registerStartPage(app: FastifyInstance, options: StartPageOptions): void {
  const { model } = options;
  const links = serverLinks(options.eventsPath);
  const json = JSON.stringify({
    name: 'Diglot',
    description: 'One GraphQL SDL schema served as REST and GraphQL.',
    links,
    types: model.types.map((type) => ({ name: type.name, collection: `/${type.path}`, graphql: { one: toCamelCase(type.name), list: type.plural } })),
    // What a sign-in form needs, so a client (the console) can show one without reading the whole OpenAPI document first.
    account: model.account === undefined ? null : { type: model.account.type, identifier: model.account.identifier, signIn: '/auth/sign-in' },
  });
  const jsonEtag = strongEtag(json);
  const style = options.assets.add('start.css', 'text/css; charset=utf-8', STYLE);
  const script = options.assets.add('start.js', 'text/javascript; charset=utf-8', SCRIPT);
  const html = (origin: string): string => renderPage(model, links, origin, style.path, script.path);
  app.get('/', { logLevel: 'warn' }, (request, reply) => {
    addVary(reply, 'Accept');
    reply.header('cache-control', 'no-cache');
    const browser = wantsHtml(request);
    // The page names this server's own address in its examples, so its ETag covers the origin it was asked under.
    const body = browser ? html(originOf(request)) : json;
    const etag = browser ? strongEtag(body) : jsonEtag;
    reply.header('etag', etag);
    if (ifNoneMatchMatches(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type(browser ? 'text/html; charset=utf-8' : 'application/json').send(body);
  });
  methodNotAllowed(app, '/', ['GET', 'HEAD']);
}

/** A browser asks for HTML before JSON; `*\/*` alone (curl) and JSON clients get JSON. */
function wantsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept ?? '';
  const html = accept.indexOf('text/html');
  const json = accept.indexOf('application/json');
  return html !== -1 && (json === -1 || html < json);
}

function originOf(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/** The first type whose records anyone may list, or the first type. */
function firstType(model: Model): ResourceType | undefined {
  return model.types.find((type) => type.rules.read === undefined || isOpen(type.rules.read)) ?? model.types[0];
}

function isOpen(rule: NonNullable<ResourceType['rules']['read']>): boolean {
  return rule.expr.kind === 'const' && rule.expr.value;
}

/** A few of the type's own fields that anyone may read: the example query's selection. */
function exampleFields(type: ResourceType): string[] {
  const fields = type.fields.filter((field) => field.kind === 'scalar' && !field.list && field.rules.read === undefined).map((field) => field.name);
  return fields.slice(0, 3);
}

function renderPage(model: Model, links: Record<string, string>, origin: string, stylePath: string, scriptPath: string): string {
  const type = firstType(model);
  const curl = type === undefined ? `curl ${origin}/healthz` : `curl '${origin}/${type.path}?limit=5'`;
  const fields = type === undefined ? [] : exampleFields(type);
  const query = type === undefined ? '{ __typename }' : `{ ${type.plural}(first: 5) { ${(fields.length === 0 ? ['id'] : fields).join(' ')} } }`;
  const curlGraphql = `curl ${origin}/graphql -H 'content-type: application/json' -d '${JSON.stringify({ query })}'`;
  const types = model.types
    .map((each) => `<li><a href="/${escape(each.path)}"><code>/${escape(each.path)}</code></a> · <code>${escape(each.plural)}</code></li>`)
    .join('');
  const link = (href: string, label: string, note: string): string => `<li><a href="${escape(href)}">${escape(label)}</a> <span>${escape(note)}</span></li>`;
  const block = (id: string, text: string): string =>
    `<div class="example"><pre id="${id}"><code>${escape(text)}</code></pre><button type="button" data-copy="${id}">Copy</button></div>`;
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <meta name="color-scheme" content="light dark" />
    <title>Diglot</title>
    <link rel="icon" href="data:," />
    <link rel="stylesheet" href="${stylePath}" />
  </head>
  <body>
    <main>
      <h1>Diglot</h1>
      <p>This server answers one schema in two styles: REST and GraphQL, with the same data, rules, errors and caching.</p>
      <nav aria-label="Places">
        <ul class="links">
          ${link(links['console'] ?? '/console', 'Console', 'see and edit the data, keys, webhooks and events')}
          ${link(links['docs'] ?? '/docs/', 'API reference', 'every REST route, with try-it')}
          ${link(links['graphql'] ?? '/graphql', 'GraphiQL', 'write and run GraphQL')}
          ${link(links['openapi'] ?? '/openapi.json', 'OpenAPI document', 'for code generators')}
          ${link(links['health'] ?? '/healthz', 'Health', 'is the server and its database up')}
        </ul>
      </nav>
      <h2>First requests</h2>
      ${block('first-curl', curl)}
      ${block('first-graphql', curlGraphql)}
      <h2>Collections</h2>
      <ul class="types">${types}</ul>
    </main>
    <script src="${scriptPath}"></script>
  </body>
</html>
`;
}

function escape(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

const STYLE = `:root{color-scheme:light dark;--fg:#1b1f24;--bg:#fff;--muted:#57606a;--box:#f3f4f6;--accent:#0a58ca}
@media (prefers-color-scheme:dark){:root{--fg:#e6edf3;--bg:#0d1117;--muted:#9198a1;--box:#161b22;--accent:#6cb6ff}}
body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:var(--fg);background:var(--bg)}
main{max-width:46rem;margin:0 auto;padding:2rem 1rem}
h1{margin:0 0 .25rem;font-size:2rem}h2{font-size:1.15rem;margin-top:2rem}
a{color:var(--accent)}a:focus-visible,button:focus-visible{outline:2px solid var(--accent);outline-offset:2px}
ul{padding-left:1.2rem}.links li{margin:.35rem 0}.links span{color:var(--muted)}
.example{display:flex;gap:.5rem;align-items:flex-start;margin:.5rem 0}
pre{flex:1;margin:0;padding:.75rem;background:var(--box);border-radius:6px;overflow-x:auto;white-space:pre-wrap;word-break:break-all}
code{font:14px/1.4 ui-monospace,SFMono-Regular,Menlo,monospace}
button{font:inherit;padding:.4rem .8rem;border:1px solid var(--muted);border-radius:6px;background:var(--box);color:var(--fg);cursor:pointer}
`;

const SCRIPT = `for (const button of document.querySelectorAll('button[data-copy]')) {
  button.addEventListener('click', async () => {
    const text = document.getElementById(button.dataset.copy).textContent;
    try {
      await navigator.clipboard.writeText(text);
      button.textContent = 'Copied';
    } catch {
      button.textContent = 'Select and copy';
    }
    setTimeout(() => { button.textContent = 'Copy'; }, 2000);
  });
}
`;
