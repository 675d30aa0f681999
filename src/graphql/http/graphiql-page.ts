import { renderGraphiQL } from '@graphql-yoga/render-graphiql';

/**
 * GraphiQL as one self-contained HTML page (scripts and styles inline, no
 * CDN), rendered on first use and then reused.
 */
export function graphiqlPage(endpoint: string): () => string {
  let html: string | undefined;
  return () => {
    html ??= renderGraphiQL({ endpoint, title: 'Diglot GraphiQL', defaultEditorToolsVisibility: true });
    return html;
  };
}
