import { useEffect, useState } from 'preact/hooks';
import { api, isAbort, messageOf } from '../api';
import { labelOf, type Model, type ModelType } from '../model';
import { href } from '../router';

/** The text field a search matches with `startsWith`: a name-like field, else the id. */
function searchField(type: ModelType): string {
  for (const name of ['name', 'title', 'username', 'email', 'sku', 'label']) {
    if (type.fields.some((field) => field.name === name && field.filterable && field.scalar === 'string')) return name;
  }
  return 'id';
}

/** A to-one relation: the chosen record's id, and a search of the related type to choose another. */
export function RelationPicker(props: { model: Model; target: string; id: string; value: string; disabled: boolean; invalid: boolean; describedBy?: string; onChange: (id: string) => void }) {
  const type = props.model.byName.get(props.target);
  const [query, setQuery] = useState('');
  const [results, setResults] = useState<Record<string, unknown>[] | undefined>(undefined);
  const [label, setLabel] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);

  useEffect(() => {
    if (type === undefined || props.value === '') {
      setLabel(undefined);
      return;
    }
    const controller = new AbortController();
    api<Record<string, unknown>>(`/${type.path}/${encodeURIComponent(props.value)}`, { signal: controller.signal }).then(
      ({ body }) => setLabel(labelOf(type, body)),
      (cause: unknown) => {
        if (!isAbort(cause)) setLabel('not found or not visible to you');
      },
    );
    return () => controller.abort();
  }, [type, props.value]);

  useEffect(() => {
    if (type === undefined || query.trim() === '') {
      setResults(undefined);
      return;
    }
    const controller = new AbortController();
    const field = searchField(type);
    const timer = setTimeout(() => {
      const op = field === 'id' ? 'eq' : 'startsWith';
      api<{ data: Record<string, unknown>[] }>(`/${type.path}?limit=8&filter[${field}][${op}]=${encodeURIComponent(query.trim())}`, { signal: controller.signal }).then(
        ({ body }) => {
          setResults(body.data);
          setError(undefined);
        },
        (cause: unknown) => {
          if (!isAbort(cause)) setError(messageOf(cause));
        },
      );
    }, 200);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
  }, [type, query]);

  if (type === undefined) return <input id={props.id} value={props.value} disabled />;
  return (
    <div class="picker">
      <div class="picker-current">
        <input
          id={props.id}
          value={props.value}
          disabled={props.disabled}
          aria-invalid={props.invalid ? 'true' : undefined}
          aria-describedby={props.describedBy}
          onInput={(event) => props.onChange((event.currentTarget).value)}
          size={14}
        />
        {props.value !== '' && (
          <a href={href('data', type.name, props.value)} class="small">
            {label ?? '…'}
          </a>
        )}
      </div>
      {!props.disabled && (
        <>
          <label class="small">
            Search {type.name} by {searchField(type)}
            <input type="search" value={query} onInput={(event) => setQuery((event.currentTarget).value)} />
          </label>
          {error !== undefined && <span class="field-error">{error}</span>}
          {results !== undefined && (
            <ul class="picker-results" aria-label={`${type.name} matches`}>
              {results.length === 0 && <li class="muted small">No {type.name} starts with that.</li>}
              {results.map((record) => (
                <li key={String(record['id'])}>
                  <button
                    type="button"
                    onClick={() => {
                      props.onChange(String(record['id']));
                      setQuery('');
                    }}
                  >
                    {labelOf(type, record)} <span class="muted">({String(record['id'])})</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </>
      )}
    </div>
  );
}
