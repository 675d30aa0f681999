import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, isAbort, messageOf } from '../api';
import { labelOf, type Model, type ModelField, type ModelType } from '../model';
import { href, navigate } from '../router';
import { FieldInput, fromInput, toInput } from '../parts/field-input';
import { RelationPicker } from '../parts/relation-picker';
import { ImageField } from '../parts/image-field';
import { SubCollection } from '../parts/sub-collection';
import { Suspension } from '../parts/suspension';
import { Notice, Progress } from '../parts/status';

type Values = Record<string, string>;
type Loaded = { readonly record: Record<string, unknown>; readonly etag: string | undefined };

/** The record's own URL, without parameters: its ETag is the one If-Match is compared with. */
function recordUrl(type: ModelType, id: string): string {
  return `/${type.path}/${encodeURIComponent(id)}`;
}

function valuesOf(type: ModelType, record: Record<string, unknown>): Values {
  return Object.fromEntries(type.fields.filter(editable).map((field) => [field.name, toInput(field, record[field.name] ?? (record['id'] === undefined ? field.defaultValue : undefined))]));
}

const editable = (field: ModelField): boolean => field.kind !== 'toMany' && field.kind !== 'manyToMany' && field.kind !== 'file';

/** One record as a form generated from the model, its files, and its sub-collections; or a new one (`id` = `new`). */
export function RecordPage(props: { model: Model; type: ModelType; id: string; admin: boolean }) {
  const { model, type } = props;
  const creating = props.id === 'new';
  const [loaded, setLoaded] = useState<Loaded | undefined>(creating ? { record: {}, etag: undefined } : undefined);
  const [values, setValues] = useState<Values>(() => (creating ? valuesOf(type, {}) : {}));
  const [errors, setErrors] = useState<Map<string, string>>(new Map());
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const [saved, setSaved] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState<string | undefined>(creating ? undefined : 'Loading the record');
  const [conflict, setConflict] = useState<Loaded | undefined>(undefined);
  const [showCompare, setShowCompare] = useState(false);

  const load = async (signal?: AbortSignal): Promise<void> => {
    setBusy('Loading the record');
    try {
      const { body, etag } = await api<Record<string, unknown>>(recordUrl(type, props.id), { signal });
      setLoaded({ record: body, etag });
      setValues(valuesOf(type, body));
      setErrors(new Map());
      setConflict(undefined);
      setProblem(undefined);
    } catch (cause) {
      if (!isAbort(cause)) setProblem(cause instanceof ApiProblem && cause.status === 404 ? `No ${type.name} ${props.id}, or you may not see it.` : messageOf(cause));
    } finally {
      setBusy(undefined);
    }
  };

  useEffect(() => {
    if (creating) return;
    const controller = new AbortController();
    void load(controller.signal);
    return () => controller.abort();
  }, []);

  const changes = (): Record<string, unknown> | undefined => {
    const original = loaded === undefined ? {} : valuesOf(type, loaded.record);
    const body: Record<string, unknown> = {};
    const found = new Map<string, string>();
    for (const field of type.fields.filter(editable)) {
      if (field.readOnly || (!creating && field.immutable)) continue;
      const text = values[field.name] ?? '';
      if (!creating && text === original[field.name]) continue;
      if (creating && text === '') continue;
      try {
        body[field.name] = fromInput(field, text);
      } catch (error) {
        found.set(field.name, (error as Error).message);
      }
    }
    setErrors(found);
    return found.size > 0 ? undefined : body;
  };

  const save = async (event: Event, overwrite = false): Promise<void> => {
    event.preventDefault();
    const body = changes();
    if (body === undefined) return;
    setSaved(undefined);
    setProblem(undefined);
    if (!creating && Object.keys(body).length === 0) {
      setSaved('Nothing changed.');
      return;
    }
    setBusy(creating ? `Creating the ${type.name}` : 'Saving');
    try {
      if (creating) {
        const { body: record } = await api<Record<string, unknown>>(`/${type.path}`, { method: 'POST', body });
        navigate(href('data', type.name, String(record['id'])));
        return;
      }
      const etag = overwrite ? conflict?.etag : loaded?.etag;
      const { body: record, etag: next } = await api<Record<string, unknown>>(recordUrl(type, props.id), {
        method: 'PATCH',
        body,
        headers: { 'content-type': 'application/merge-patch+json', ...(etag === undefined ? {} : { 'if-match': etag }) },
      });
      setLoaded({ record, etag: next });
      setValues(valuesOf(type, record));
      setConflict(undefined);
      setErrors(new Map());
      setSaved(`Saved at ${new Date().toLocaleTimeString()}.`);
    } catch (cause) {
      if (cause instanceof ApiProblem && cause.status === 412) {
        // Someone changed it since it was opened: fetch theirs, keep ours in the form, and let the person choose.
        try {
          const { body: record, etag } = await api<Record<string, unknown>>(recordUrl(type, props.id));
          setConflict({ record, etag });
        } catch (inner) {
          setProblem(messageOf(inner));
        }
      } else if (cause instanceof ApiProblem) {
        setErrors(cause.byField());
        setProblem(cause.items.length > 0 ? `${cause.message}: see the fields marked below.` : messageOf(cause));
      } else setProblem(messageOf(cause));
    } finally {
      setBusy(undefined);
    }
  };

  const remove = async (): Promise<void> => {
    if (!confirm(`Delete ${type.name} ${props.id}? This cannot be undone.`)) return;
    setBusy('Deleting');
    try {
      await api(`/${type.path}/${encodeURIComponent(props.id)}`, { method: 'DELETE', headers: loaded?.etag === undefined ? {} : { 'if-match': loaded.etag } });
      navigate(href('data', type.name));
    } catch (cause) {
      setProblem(cause instanceof ApiProblem && cause.status === 412 ? 'It changed since you opened it: reload before deleting.' : messageOf(cause));
      setBusy(undefined);
    }
  };

  const title = creating ? `New ${type.name}` : `${type.name} ${loaded === undefined ? props.id : labelOf(type, loaded.record)}`;
  const differing = conflict === undefined ? [] : type.fields.filter(editable).filter((field) => toInput(field, conflict.record[field.name]) !== (values[field.name] ?? ''));

  return (
    <section aria-labelledby="record-title">
      <p class="crumbs">
        <a href={href('data')}>Data</a> / <a href={href('data', type.name)}>{type.name}</a> / {creating ? 'new' : props.id}
      </p>
      <h1 id="record-title">{title}</h1>
      {busy !== undefined && <Progress label={busy} />}
      {problem !== undefined && <Notice kind="error">{problem}</Notice>}
      {saved !== undefined && <Notice kind="ok">{saved}</Notice>}
      {conflict !== undefined && (
        <div class="notice conflict" role="alert">
          <p>
            <strong>This {type.name} changed since you opened it.</strong> Someone else saved it; your changes were not saved, so nothing was overwritten.
          </p>
          <div class="actions">
            <button type="button" onClick={() => void load()}>
              Reload (drop my changes)
            </button>
            <button type="button" onClick={() => setShowCompare(!showCompare)} aria-expanded={showCompare}>
              Compare
            </button>
            <button type="button" class="danger" onClick={(event) => void save(event, true)}>
              Save mine over theirs
            </button>
          </div>
          {showCompare && (
            <table class="compare">
              <caption>Fields that differ</caption>
              <thead>
                <tr>
                  <th scope="col">field</th>
                  <th scope="col">saved now</th>
                  <th scope="col">yours</th>
                </tr>
              </thead>
              <tbody>
                {differing.map((field) => (
                  <tr key={field.name}>
                    <th scope="row">{field.name}</th>
                    <td>{toInput(field, conflict.record[field.name])}</td>
                    <td>{values[field.name]}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
      {loaded !== undefined && (
        <div class="record-layout">
          <form class="record-form card" onSubmit={(event) => void save(event)} aria-label={`${type.name} fields`} noValidate>
            {type.fields.filter(editable).map((field) => {
              const id = `field-${field.name}`;
              const error = errors.get(field.name);
              const disabled = field.readOnly || (!creating && field.immutable);
              const help = error !== undefined ? `${id}-error` : field.description !== undefined ? `${id}-help` : undefined;
              if (creating && field.readOnly) return null;
              return (
                <div class={`field${error !== undefined ? ' invalid' : ''}`} key={field.name}>
                  <label for={id}>
                    {field.name}
                    {field.required && !disabled && <span aria-hidden="true"> *</span>}
                    <span class="muted small"> {describe(field)}</span>
                  </label>
                  {field.kind === 'toOne' && field.target !== undefined ? (
                    <RelationPicker
                      model={model}
                      target={field.target}
                      id={id}
                      value={values[field.name] ?? ''}
                      disabled={disabled}
                      invalid={error !== undefined}
                      describedBy={help}
                      onChange={(text) => setValues({ ...values, [field.name]: text })}
                    />
                  ) : (
                    <FieldInput field={field} id={id} value={values[field.name] ?? ''} disabled={disabled} invalid={error !== undefined} describedBy={help} onInput={(text) => setValues({ ...values, [field.name]: text })} />
                  )}
                  {error !== undefined ? (
                    <span class="field-error" id={`${id}-error`}>
                      {error}
                    </span>
                  ) : (
                    field.description !== undefined && (
                      <span class="muted small" id={`${id}-help`}>
                        {field.description}
                      </span>
                    )
                  )}
                </div>
              );
            })}
            <div class="actions">
              <button type="submit" class="primary" disabled={busy !== undefined}>
                {creating ? `Create ${type.name}` : 'Save'}
              </button>
              {!creating && (
                <button type="button" class="danger" onClick={() => void remove()} disabled={busy !== undefined}>
                  Delete
                </button>
              )}
            </div>
          </form>
          {!creating && (
            <aside class="record-side" aria-label="Files and related records">
              {type.fields
                .filter((field) => field.kind === 'file')
                .map((field) => (
                  <ImageField
                    key={field.name}
                    type={type}
                    field={field}
                    id={props.id}
                    url={loaded.record[field.name] as string | null | undefined}
                    etag={loaded.etag}
                    onChange={(record, etag) => {
                      setLoaded({ record, etag });
                      setConflict(undefined);
                    }}
                    onConflict={() => void api<Record<string, unknown>>(recordUrl(type, props.id)).then(({ body, etag }) => setConflict({ record: body, etag }))}
                  />
                ))}
              {props.admin && model.accountType === type.name && <Suspension id={props.id} />}
              {type.fields
                .filter((field) => field.kind === 'toMany' || field.kind === 'manyToMany')
                .map((field) => (
                  <SubCollection key={field.name} model={model} type={type} field={field} id={props.id} />
                ))}
            </aside>
          )}
        </div>
      )}
    </section>
  );
}

function describe(field: ModelField): string {
  const kind = field.kind === 'toOne' ? `→ ${field.target ?? ''}` : field.kind === 'enum' ? 'enum' : field.scalar;
  const notes = [kind, field.list ? 'list' : '', field.readOnly ? 'set by the server' : '', field.immutable ? 'set once' : ''].filter((note) => note !== '');
  return `(${notes.join(', ')})`;
}
