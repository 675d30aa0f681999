import { isListRelation, type Field, type Model } from '../../schema/model.js';

/** What the headers editor opens with: where a token goes. */
export const PRESET_HEADERS = JSON.stringify({ Authorization: 'Bearer ' }, null, 2);

/**
 * GraphiQL as one self-contained HTML page (scripts and styles inline, no
 * CDN), rendered on first use and then reused. It opens on a query that
 * works against the served schema, so the first click shows data, with the
 * headers editor open on `Authorization: Bearer ` for a token to be pasted.
 * Headers are not kept in the browser's storage (GraphiQL's settings can
 * turn that on): a pasted admin key should not outlive the visit.
 *
 * The renderer's module holds GraphiQL's whole bundle as strings (~45 MiB of
 * memory once loaded), so it is imported on the first browser visit, not at
 * start-up.
 */
export function graphiqlPage(endpoint: string, model: Model): () => Promise<string> {
  let html: Promise<string> | undefined;
  return () => {
    html ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) =>
      withoutBareBearer(
        renderGraphiQL({
          endpoint,
          title: 'Diglot GraphiQL',
          defaultQuery: exampleQuery(model),
          isHeadersEditorEnabled: true,
          defaultEditorToolsVisibility: 'headers',
          defaultHeaders: PRESET_HEADERS,
          shouldPersistHeaders: false,
        }),
      ),
    );
    return html;
  };
}

const ROOT = '<div id="root"></div>';

/**
 * Until a token is pasted, the preset sends `Authorization: Bearer` with no
 * credential, which the server rightly refuses (401, never anonymous): that
 * would fail the schema's introspection and the first query. So the page's
 * own requests leave such a header out, and ask as anonymous.
 */
export const BARE_BEARER_SCRIPT = `<script>
(() => {
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
</script>`;

/** The page with the script above before GraphiQL's own, which may take `fetch` when it loads. */
function withoutBareBearer(page: string): string {
  const at = page.indexOf(ROOT);
  if (at < 0) throw new Error('GraphiQL\'s page has no root element to put the header script after');
  const end = at + ROOT.length;
  return `${page.slice(0, end)}\n${BARE_BEARER_SCRIPT}${page.slice(end)}`;
}

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
