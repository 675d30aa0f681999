import { useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../api';
import type { ModelField, ModelType } from '../model';
import { Notice, Progress } from './status';

/** An image field: its preview, an upload (multipart, with If-Match) and a removal. */
export function ImageField(props: {
  type: ModelType;
  field: ModelField;
  id: string;
  url: string | null | undefined;
  etag: string | undefined;
  onChange: (record: Record<string, unknown>, etag: string | undefined) => void;
  onConflict: () => void;
}) {
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [done, setDone] = useState<string | undefined>(undefined);
  const path = `/${props.type.path}/${encodeURIComponent(props.id)}/${props.field.name}`;
  const headers: Record<string, string> = props.etag === undefined ? {} : { 'if-match': props.etag };

  const run = async (label: string, request: () => Promise<unknown>, success: string): Promise<void> => {
    setBusy(label);
    setError(undefined);
    setDone(undefined);
    try {
      await request();
      // Read again for the ETag of the record's own URL (the one If-Match is compared with).
      const { body, etag } = await api<Record<string, unknown>>(`/${props.type.path}/${encodeURIComponent(props.id)}`);
      props.onChange(body, etag);
      setDone(success);
    } catch (cause) {
      if (cause instanceof ApiProblem && cause.status === 412) {
        setError('The record changed since you opened it: nothing was stored. Reload it and try again.');
        props.onConflict();
      } else setError(messageOf(cause));
    } finally {
      setBusy(undefined);
    }
  };

  const upload = (event: Event): void => {
    const input = event.currentTarget as HTMLInputElement;
    const file = input.files?.[0];
    if (file === undefined) return;
    const form = new FormData();
    form.append('file', file);
    void run('Uploading', () => api(path, { method: 'PUT', body: form, headers }), `Uploaded ${file.name}.`).finally(() => {
      input.value = '';
    });
  };

  const inputId = `upload-${props.field.name}`;
  return (
    <section class="card image-field" aria-labelledby={`${inputId}-title`}>
      <h2 id={`${inputId}-title`}>{props.field.name}</h2>
      {typeof props.url === 'string' ? <img class="preview" src={props.url} alt={`${props.field.name} of ${props.type.name} ${props.id}`} /> : <p class="muted">No image yet.</p>}
      <label for={inputId}>Upload an image (JPEG, PNG, WebP, AVIF or GIF)</label>
      <input id={inputId} type="file" accept="image/jpeg,image/png,image/webp,image/avif,image/gif" onChange={upload} disabled={busy !== undefined} />
      {typeof props.url === 'string' && (
        <button type="button" class="danger" disabled={busy !== undefined} onClick={() => void run('Removing', () => api(path, { method: 'DELETE', headers }), 'Removed.')}>
          Remove image
        </button>
      )}
      {busy !== undefined && <Progress label={busy} />}
      {error !== undefined && <Notice kind="error">{error}</Notice>}
      {done !== undefined && <Notice kind="ok">{done}</Notice>}
    </section>
  );
}
