import { useEffect, useMemo, useState } from 'preact/hooks';
import { isAbort, messageOf } from '../api';
import { useResource } from '../use-resource';
import { defaultColumns, type Model, type ModelType } from '../model';
import { href } from '../router';
import { readEventStream } from '../sse';
import { Cell } from '../parts/cell';
import { Notice, Progress } from '../parts/status';

interface Page {
  readonly data: Record<string, unknown>[];
  readonly hasMore: boolean;
  readonly nextCursor: string | null;
  readonly prevCursor: string | null;
  readonly totalCount?: number;
}

export interface Condition {
  readonly field: string;
  readonly op: string;
  readonly value: string;
}

const OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'isNull'] as const;
const PAGE_SIZES = [10, 20, 50, 100];

/** The REST query of a page: the same parameters a person could type (docs/rest.md). */
export function listQuery(type: ModelType, options: { columns: readonly string[]; sort?: string; conditions?: readonly Condition[]; limit: number; cursor?: { after?: string; before?: string } }): string {
  const params = new URLSearchParams();
  params.set('limit', String(options.limit));
  params.set('count', 'true');
  params.set('fields', ['id', ...options.columns.filter((name) => name !== 'id')].join(','));
  for (const name of options.columns) if (type.fields.find((field) => field.name === name)?.kind === 'file') params.set(`${name}.size`, '64');
  if (options.sort !== undefined && options.sort !== '') params.set('sort', options.sort);
  for (const condition of options.conditions ?? []) params.set(`filter[${condition.field}][${condition.op}]`, condition.value);
  if (options.cursor?.after !== undefined) params.set('after', options.cursor.after);
  if (options.cursor?.before !== undefined) params.set('before', options.cursor.before);
  return `/${type.path}?${params.toString()}`;
}

const columnKey = (type: ModelType): string => `diglot.console.columns.${type.name}`;

/** A type's records as a table: choose columns, sort by a header, filter, page by cursor, watch live. */
export function DataList(props: { model: Model; type: ModelType; query: URLSearchParams }) {
  const { model, type } = props;
  const selectable = type.fields.filter((field) => field.kind !== 'toMany' && field.kind !== 'manyToMany');
  const [columns, setColumns] = useState<string[]>(() => {
    const saved = sessionStorage.getItem(columnKey(type));
    return saved === null ? defaultColumns(type) : (JSON.parse(saved) as string[]);
  });
  const [sort, setSort] = useState<string>('');
  const [conditions, setConditions] = useState<Condition[]>([]);
  const [limit, setLimit] = useState(20);
  const [cursor, setCursor] = useState<{ after?: string; before?: string }>({});
  const [live, setLive] = useState(false);
  const [liveNote, setLiveNote] = useState<string | undefined>(undefined);

  const url = useMemo(() => listQuery(type, { columns, sort, conditions, limit, cursor }), [type, columns, sort, conditions, limit, cursor]);

  useEffect(() => {
    sessionStorage.setItem(columnKey(type), JSON.stringify(columns));
  }, [type, columns]);

  const { data: page, error, loading, set: setPage } = useResource<Page>(url);

  // Live: the same read as a Server-Sent Events stream; each `update` is the page as it is now.
  useEffect(() => {
    if (!live) return;
    const controller = new AbortController();
    setLiveNote('Watching for changes…');
    readEventStream(
      url,
      (message) => {
        if (message.event === 'update') {
          setPage(JSON.parse(message.data) as Page);
          setLiveNote(`Updated live at ${new Date().toLocaleTimeString()}`);
        } else if (message.event === 'problem') setLiveNote(`The live read stopped: ${(JSON.parse(message.data) as { detail?: string }).detail ?? 'a problem'}`);
      },
      controller.signal,
    ).then(
      () => setLiveNote('The live read ended.'),
      (cause: unknown) => {
        if (!isAbort(cause)) setLiveNote(`The live read stopped: ${messageOf(cause)}`);
      },
    );
    return () => controller.abort();
  }, [live, url]);

  const shown = columns.map((name) => type.fields.find((field) => field.name === name)).filter((field) => field !== undefined);
  const toggleSort = (name: string): void => {
    setCursor({});
    setSort(sort === name ? `-${name}` : name);
  };

  return (
    <section aria-labelledby="list-title">
      <div class="title-row">
        <h1 id="list-title">
          {type.name} <span class="muted count">{page?.totalCount === undefined ? '' : `${page.totalCount} ${page.totalCount === 1 ? 'record' : 'records'}`}</span>
        </h1>
        <a class="button primary" href={href('data', type.name, 'new')}>
          New {type.name}
        </a>
      </div>
      {type.description !== undefined && <p class="muted">{type.description}</p>}
      <div class="toolbar">
        <details class="menu">
          <summary>Columns ({columns.length})</summary>
          <fieldset>
            <legend>Columns shown</legend>
            {selectable.map((field) => (
              <label key={field.name} class="check">
                <input
                  type="checkbox"
                  checked={columns.includes(field.name)}
                  onChange={(event) => {
                    const on = (event.currentTarget).checked;
                    setColumns(on ? selectable.map((item) => item.name).filter((name) => name === field.name || columns.includes(name)) : columns.filter((name) => name !== field.name));
                  }}
                />
                {field.name}
              </label>
            ))}
          </fieldset>
        </details>
        <Filters type={type} conditions={conditions} onChange={(next) => { setCursor({}); setConditions(next); }} />
        <label for="page-size">Per page</label>
        <select id="page-size" value={String(limit)} onChange={(event) => { setCursor({}); setLimit(Number((event.currentTarget).value)); }}>
            {PAGE_SIZES.map((size) => (
              <option key={size} value={String(size)}>
                {size}
              </option>
            ))}
          </select>
        <label class="check">
          <input type="checkbox" checked={live} onChange={(event) => setLive((event.currentTarget).checked)} />
          Live
        </label>
        {live && liveNote !== undefined && (
          <span class="muted small" role="status" data-testid="live-note">
            {liveNote}
          </span>
        )}
      </div>
      {error !== undefined && <Notice kind="error">{error}</Notice>}
      {loading && <Progress label={`Loading ${type.name} records`} />}
      <div class="table-wrap">
        <table>
          <caption class="visually-hidden">{type.name} records{sort !== '' ? `, sorted by ${sort}` : ''}</caption>
          <thead>
            <tr>
              <th scope="col">id</th>
              {shown
                .filter((field) => field.name !== 'id')
                .map((field) => (
                  <th key={field.name} scope="col" aria-sort={sort === field.name ? 'ascending' : sort === `-${field.name}` ? 'descending' : undefined}>
                    {field.sortable ? (
                      <button type="button" class="sort" onClick={() => toggleSort(field.name)} aria-label={`Sort by ${field.name}`}>
                        {field.name} <span aria-hidden="true">{sort === field.name ? '▲' : sort === `-${field.name}` ? '▼' : '↕'}</span>
                      </button>
                    ) : (
                      field.name
                    )}
                  </th>
                ))}
            </tr>
          </thead>
          <tbody>
            {page?.data.map((record) => (
              <tr key={String(record['id'])}>
                <td>
                  <a href={href('data', type.name, String(record['id']))}>{String(record['id'])}</a>
                </td>
                {shown
                  .filter((field) => field.name !== 'id')
                  .map((field) => (
                    <td key={field.name}>
                      <Cell model={model} field={field} value={record[field.name]} />
                    </td>
                  ))}
              </tr>
            ))}
            {page?.data.length === 0 && (
              <tr>
                <td colSpan={shown.length + 1} class="muted">
                  No records{conditions.length > 0 ? ' match these filters' : ''}.
                </td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <nav class="pager" aria-label="Pages">
        <button type="button" onClick={() => setCursor({})} disabled={cursor.after === undefined && cursor.before === undefined}>
          First
        </button>
        <button type="button" onClick={() => typeof page?.prevCursor === 'string' && setCursor({ before: page.prevCursor })} disabled={typeof page?.prevCursor !== 'string'}>
          Previous
        </button>
        <button type="button" onClick={() => typeof page?.nextCursor === 'string' && setCursor({ after: page.nextCursor })} disabled={typeof page?.nextCursor !== 'string'}>
          Next
        </button>
      </nav>
    </section>
  );
}

function Filters(props: { type: ModelType; conditions: Condition[]; onChange: (conditions: Condition[]) => void }) {
  const filterable = props.type.fields.filter((field) => field.filterable);
  const [field, setField] = useState(filterable[0]?.name ?? '');
  const [op, setOp] = useState<string>('eq');
  const [value, setValue] = useState('');
  const chosen = filterable.find((item) => item.name === field);
  if (filterable.length === 0) return null;
  return (
    <div class="filters">
      <form
        class="filter-form"
        aria-label="Add a filter"
        onSubmit={(event) => {
          event.preventDefault();
          props.onChange([...props.conditions, { field, op, value: op === 'isNull' ? (value === 'false' ? 'false' : 'true') : value }]);
          setValue('');
        }}
      >
        <label for="filter-field">Filter</label>
        <select id="filter-field" value={field} onChange={(event) => setField((event.currentTarget).value)}>
            {filterable.map((item) => (
              <option key={item.name}>{item.name}</option>
            ))}
        </select>
          <select aria-label="Operator" value={op} onChange={(event) => setOp((event.currentTarget).value)}>
            {OPERATORS.map((item) => (
              <option key={item}>{item}</option>
            ))}
          </select>
          {chosen?.enumValues !== undefined && op !== 'in' && op !== 'isNull' ? (
            <select aria-label="Value" value={value} onChange={(event) => setValue((event.currentTarget).value)}>
              <option value="">choose…</option>
              {chosen.enumValues.map((item) => (
                <option key={item}>{item}</option>
              ))}
            </select>
          ) : (
            <input aria-label="Value" value={value} onInput={(event) => setValue((event.currentTarget).value)} placeholder={op === 'isNull' ? 'true or false' : op === 'in' ? 'a,b,c' : 'value'} size={12} />
          )}
        <button type="submit">Add</button>
      </form>
      {props.conditions.length > 0 && (
        <ul class="chips" aria-label="Filters applied">
          {props.conditions.map((condition, index) => (
            <li key={`${condition.field}-${index}`}>
              {condition.field} {condition.op} {condition.value}
              <button type="button" aria-label={`Remove filter ${condition.field} ${condition.op} ${condition.value}`} onClick={() => props.onChange(props.conditions.filter((_, at) => at !== index))}>
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
