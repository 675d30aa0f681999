import { useEffect, useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import type { AdminSchema } from '../admin';
import type { Model } from '../model';
import { SchemaDiagram } from '../parts/schema-diagram';
import { Notice, Progress } from '../parts/status';

/** The schema as written (rules included, from the admin API) and a diagram of its types and relations. */
export function SchemaPage(props: { model: Model; admin: boolean }) {
  const [schema, setSchema] = useState<AdminSchema | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  useEffect(() => {
    if (!props.admin) return;
    api<AdminSchema>('/admin/schema').then(({ body }) => setSchema(body), (cause: unknown) => setError(messageOf(cause)));
  }, [props.admin]);
  return (
    <section aria-labelledby="schema-title">
      <h1 id="schema-title">Schema</h1>
      <h2>Types and relations</h2>
      <SchemaDiagram model={props.model} />
      <h2>Schema files</h2>
      {!props.admin && <Notice kind="info">The schema files, with their rules, are shown to the admin role. The diagram above is drawn from the public API description.</Notice>}
      {props.admin && schema === undefined && error === undefined && <Progress label="Loading the schema" />}
      {error !== undefined && <Notice kind="error">{error}</Notice>}
      {schema?.sdl.map((file) => (
        <figure key={file.file} class="sdl">
          <figcaption>{file.file}</figcaption>
          <pre tabIndex={0}>
            <code>{file.text}</code>
          </pre>
        </figure>
      ))}
    </section>
  );
}
