import { isListRelation, type Model } from '../../schema/model.js';

/**
 * GraphiQL as one self-contained HTML page (scripts and styles inline, no
 * CDN), rendered on first use and then reused. It opens on a query that
 * works against the served schema, so the first click shows data.
 *
 * The renderer's module holds GraphiQL's whole bundle as strings (~45 MiB of
 * memory once loaded), so it is imported on the first browser visit, not at
 * start-up.
 */
export function graphiqlPage(endpoint: string, model: Model): () => Promise<string> {
  let html: Promise<string> | undefined;
  return () => {
    html ??= import('@graphql-yoga/render-graphiql').then(({ renderGraphiQL }) =>
      renderGraphiQL({ endpoint, title: 'Diglot GraphiQL', defaultEditorToolsVisibility: true, defaultQuery: exampleQuery(model) }),
    );
    return html;
  };
}

/** `{ users(first: 5) { id name … posts(first: 3) { id … } } }` for the first type of the schema. */
export function exampleQuery(model: Model): string {
  const type = model.types[0];
  if (type === undefined) return '{ __typename }';
  const scalars = (fields: Model['types'][number]['fields']): string[] =>
    fields.filter((field) => field.kind === 'scalar' && !field.list && field.scalar !== 'JSON' && field.deprecated === undefined).slice(0, 3).map((field) => field.name);
  const lines = [`# The same data as REST: GET /${type.path}`, '{', `  ${type.plural}(first: 5) {`];
  for (const name of scalars(type.fields)) lines.push(`    ${name}`);
  const image = type.fields.find((field) => field.kind === 'file');
  if (image?.kind === 'file') lines.push(`    ${image.name}(size: ${image.image.sizes[0] ?? 64})`);
  const list = type.fields.find(isListRelation);
  const target = list === undefined ? undefined : model.typesByName.get(list.target);
  if (list !== undefined && target !== undefined) {
    lines.push(`    ${list.name}(first: 3) {`);
    for (const name of scalars(target.fields)) lines.push(`      ${name}`);
    lines.push('    }');
  }
  lines.push('  }', '}', '');
  return lines.join('\n');
}
