import { useState } from 'preact/hooks';
import { api, formText } from '../api';
import { useResource } from '../use-resource';
import { useAction } from '../use-action';
import { TextField } from './text-field';
import type { AdminDelivery, AdminWebhookEndpoint } from '../admin';
import { Notice, Progress } from './status';

/** Webhook endpoints (both sources; the database's ones added, changed, paused and removed here) and their deliveries. */
export function Webhooks() {
  const listing = useResource<{ data: AdminWebhookEndpoint[] }>('/admin/webhooks');
  const endpoints = listing.data?.data;
  const [secret, setSecret] = useState<{ name: string; secret: string } | undefined>(undefined);
  const [open, setOpen] = useState<string | undefined>(undefined);

  const action = useAction(listing.reload);
  const { busy, error, fieldErrors } = action;
  const act = (label: string, request: () => Promise<unknown>): Promise<void> =>
    action.run(label, async () => {
      await request();
      return undefined;
    });

  const create = (event: Event): void => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const body = {
      name: formText(data, 'name'),
      url: formText(data, 'url'),
      events: formText(data, 'events')
        .split(',')
        .map((item) => item.trim())
        .filter((item) => item !== ''),
    };
    void act('Adding the endpoint', async () => {
      const { body: answer } = await api<AdminWebhookEndpoint>('/admin/webhooks', { method: 'POST', body });
      if (answer.secret !== undefined) setSecret({ name: answer.name, secret: answer.secret });
      form.reset();
    });
  };

  return (
    <>
      <h2>Webhook endpoints</h2>
      {busy !== undefined && <Progress label={busy} />}
      {(error ?? listing.error) !== undefined && <Notice kind="error">{error ?? listing.error}</Notice>}
      {secret !== undefined && (
        <Notice kind="ok">
          Endpoint {secret.name} added. Its signing secret, shown this once: <code class="secret">{secret.secret}</code>
        </Notice>
      )}
      <form class="card inline-form" onSubmit={create} aria-label="Add a webhook endpoint">
        <TextField id="hook-name" name="name" label="Name" error={fieldErrors.get('name')} />
        <TextField id="hook-url" name="url" label="URL" inputMode="url" placeholder="https://example.com/hooks" error={fieldErrors.get('url')} grow />
        <TextField id="hook-events" name="events" label="Events" placeholder="post.created, user.*" error={fieldErrors.get('events') ?? fieldErrors.get('events/0')} help="Comma-separated; * for all of a type" />
        <button type="submit" class="primary" disabled={busy !== undefined}>
          Add endpoint
        </button>
      </form>
      {listing.loading && <Progress label="Loading endpoints" />}
      {endpoints?.length === 0 && <p class="muted">No webhook endpoints.</p>}
      <ul class="endpoints">
        {endpoints?.map((endpoint) => {
          const path = `/admin/webhooks/${encodeURIComponent(endpoint.name)}`;
          const managed = endpoint.source === 'database';
          return (
            <li key={endpoint.name} class="card">
              <div class="title-row">
                <h3>
                  {endpoint.name} <span class="muted small">{endpoint.source === 'config' ? 'from the configuration file (read-only)' : 'added at run time'}</span>
                </h3>
                <span class={endpoint.paused ? 'badge warn' : 'badge'}>{endpoint.paused ? 'paused' : 'active'}</span>
              </div>
              <p class="small">
                <code>{endpoint.url}</code> · {endpoint.events.join(', ')} · {endpoint.deliveries.pending} pending, {endpoint.deliveries.delivered} delivered, {endpoint.deliveries.dead} dead
              </p>
              <div class="actions">
                <button type="button" onClick={() => setOpen(open === endpoint.name ? undefined : endpoint.name)} aria-expanded={open === endpoint.name}>
                  Deliveries
                </button>
                {managed && (
                  <>
                    <button type="button" disabled={busy !== undefined} onClick={() => void act(endpoint.paused ? 'Resuming' : 'Pausing', () => api(path, { method: 'PATCH', body: { paused: !endpoint.paused } }))}>
                      {endpoint.paused ? 'Resume' : 'Pause'}
                    </button>
                    <button
                      type="button"
                      class="danger"
                      disabled={busy !== undefined}
                      onClick={() => {
                        if (confirm(`Remove the endpoint ${endpoint.name}? Its pending deliveries are dropped.`)) void act('Removing', () => api(path, { method: 'DELETE' }));
                      }}
                    >
                      Remove
                    </button>
                  </>
                )}
              </div>
              {open === endpoint.name && <Deliveries endpoint={endpoint.name} onChange={listing.reload} />}
            </li>
          );
        })}
      </ul>
    </>
  );
}

function Deliveries(props: { endpoint: string; onChange: () => void }) {
  const [status, setStatus] = useState('');
  const base = `/admin/webhooks/${encodeURIComponent(props.endpoint)}`;

  const listing = useResource<{ data: AdminDelivery[] }>(`${base}/deliveries?limit=50${status === '' ? '' : `&status=${status}`}`);
  const deliveries = listing.data?.data;

  const action = useAction(() => {
    listing.reload();
    props.onChange();
  });
  const { busy, error, note } = action;
  const act = (label: string, request: () => Promise<string>): Promise<void> => action.run(label, request);

  const replay = (event: Event): void => {
    event.preventDefault();
    const since = formText(new FormData(event.currentTarget as HTMLFormElement), 'since');
    void act('Replaying', async () => {
      const { body } = await api<{ queued: number }>(`${base}/replay`, { method: 'POST', body: { since: new Date(since).toISOString() } });
      return `${body.queued} events queued again.`;
    });
  };

  return (
    <div class="deliveries">
      <div class="toolbar">
        <label class="inline">
          Status
          <select value={status} onChange={(event) => setStatus((event.currentTarget).value)}>
            <option value="">all</option>
            <option>pending</option>
            <option>delivered</option>
            <option>dead</option>
          </select>
        </label>
        <form class="inline-form" onSubmit={replay} aria-label="Replay events">
          <label class="inline">
            Replay events since
            <input name="since" type="datetime-local" required />
          </label>
          <button type="submit" disabled={busy !== undefined}>
            Replay
          </button>
        </form>
      </div>
      {busy !== undefined && <Progress label={busy} />}
      {(error ?? listing.error) !== undefined && <Notice kind="error">{error ?? listing.error}</Notice>}
      {note !== undefined && <Notice kind="ok">{note}</Notice>}
      {deliveries?.length === 0 && <p class="muted">No deliveries{status === '' ? '' : ` with status ${status}`}.</p>}
      <ul class="delivery-list">
        {deliveries?.map((delivery) => (
          <li key={delivery.id}>
            <details>
              <summary>
                <span class={`badge ${delivery.status === 'dead' ? 'bad' : delivery.status === 'pending' ? 'warn' : ''}`}>{delivery.status}</span> {delivery.eventType} · {delivery.attemptCount} attempts
                {delivery.lastCode !== null ? ` · last ${delivery.lastCode}` : ''}
              </summary>
              <table class="compact">
                <caption class="visually-hidden">Attempts</caption>
                <thead>
                  <tr>
                    <th scope="col">#</th>
                    <th scope="col">at</th>
                    <th scope="col">outcome</th>
                    <th scope="col">code</th>
                    <th scope="col">ms</th>
                    <th scope="col">error</th>
                  </tr>
                </thead>
                <tbody>
                  {delivery.attempts.map((attempt) => (
                    <tr key={attempt.attempt}>
                      <td>{attempt.attempt}</td>
                      <td>{new Date(attempt.at).toLocaleString()}</td>
                      <td>{attempt.outcome}</td>
                      <td>{attempt.code ?? '—'}</td>
                      <td>{attempt.latencyMs ?? '—'}</td>
                      <td>{attempt.error ?? ''}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </details>
            {delivery.status !== 'delivered' && (
              <button type="button" disabled={busy !== undefined} onClick={() => void act('Retrying', async () => { await api(`/admin/deliveries/${encodeURIComponent(delivery.id)}/retry`, { method: 'POST' }); return 'Sent again.'; })}>
                Retry now
              </button>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
