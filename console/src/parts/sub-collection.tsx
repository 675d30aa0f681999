import { useState } from 'preact/hooks';
import { useResource } from '../use-resource';
import { labelOf, type Model, type ModelField, type ModelType } from '../model';
import { href } from '../router';
import { Notice } from './status';

interface Page {
  readonly data: Record<string, unknown>[];
  readonly nextCursor: string | null;
  readonly totalCount?: number;
}

/** A list relation of one record (a user's posts, followers): its sub-collection, a page at a time, each linked. */
export function SubCollection(props: { model: Model; type: ModelType; field: ModelField; id: string }) {
  const target = props.field.target === undefined ? undefined : props.model.byName.get(props.field.target);
  // The pages shown before the current one: "Show more" adds a page below them.
  const [earlier, setEarlier] = useState<Record<string, unknown>[]>([]);
  const [after, setAfter] = useState<string | undefined>(undefined);
  const cursor = after === undefined ? '' : `&after=${encodeURIComponent(after)}`;
  const { data: last, error, loading } = useResource<Page>(`/${props.type.path}/${encodeURIComponent(props.id)}/${props.field.name}?limit=10&count=true${cursor}`);
  const records = loading ? earlier : [...earlier, ...(last?.data ?? [])];
  const total = last?.totalCount;
  return (
    <section class="card sub" aria-labelledby={`sub-${props.field.name}`}>
      <h2 id={`sub-${props.field.name}`}>
        {props.field.name} <span class="muted count">{total === undefined ? '' : `${total}`}</span>
      </h2>
      {error !== undefined && <Notice kind="error">{error}</Notice>}
      <ul class="links">
        {records.map((record) => (
          <li key={String(record['id'])}>
            <a href={href('data', props.field.target ?? '', String(record['id']))}>{labelOf(target, record)}</a>
          </li>
        ))}
        {!loading && records.length === 0 && error === undefined && <li class="muted">None.</li>}
      </ul>
      {loading && <p class="muted small" role="status">Loading…</p>}
      {typeof last?.nextCursor === 'string' && !loading && (
        <button
          type="button"
          onClick={() => {
            setEarlier(records);
            setAfter(last.nextCursor ?? undefined);
          }}
        >
          Show more
        </button>
      )}
    </section>
  );
}
