import { useEffect, useState } from 'preact/hooks';
import { api, formText } from '../api';
import { useResource } from '../use-resource';
import { useAction } from '../use-action';
import { TextField } from '../parts/text-field';
import type { AdminApiKey, AdminNewApiKey, AdminSchema } from '../admin';
import type { Model } from '../model';
import { href } from '../router';
import { Notice, Progress } from '../parts/status';

/** API keys (create, list, revoke) and where accounts are suspended, through the admin API. */
export function KeysPage(props: { model: Model }) {
  const listing = useResource<{ data: AdminApiKey[] }>('/admin/api-keys');
  const keys = listing.data?.data;
  const [roles, setRoles] = useState<readonly string[]>([]);
  const [created, setCreated] = useState<AdminNewApiKey | undefined>(undefined);

  useEffect(() => {
    api<AdminSchema>('/admin/schema').then(({ body }) => setRoles(body.model.roles?.values ?? []), () => setRoles([]));
  }, []);

  const action = useAction(listing.reload);
  const { busy, error, fieldErrors } = action;

  const create = (event: Event): void => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    setCreated(undefined);
    void action.run('Creating the key', async () => {
      const { body } = await api<AdminNewApiKey>('/admin/api-keys', { method: 'POST', body: { name: formText(data, 'name'), role: formText(data, 'role') } });
      setCreated(body);
      form.reset();
      return undefined;
    });
  };

  const revoke = (key: AdminApiKey): void => {
    if (!confirm(`Revoke the key ${key.name}? Anything using it is refused at once.`)) return;
    void action.run(`Revoking ${key.name}`, async () => {
      await api(`/admin/api-keys/${encodeURIComponent(key.id)}`, { method: 'DELETE' });
      return `Key ${key.name} revoked.`;
    });
  };

  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">Keys & accounts</h1>
      <h2>API keys</h2>
      {(error ?? listing.error) !== undefined && <Notice kind="error">{error ?? listing.error}</Notice>}
      {busy !== undefined && <Progress label={busy} />}
      {action.note !== undefined && <Notice kind="ok">{action.note}</Notice>}
      {created !== undefined && (
        <div class="notice ok" role="status">
          <p>
            Key <strong>{created.name}</strong> ({created.role}) created. Copy it now: it is shown this once.
          </p>
          <p>
            <code class="secret" data-testid="new-key">
              {created.key}
            </code>{' '}
            <button type="button" onClick={() => void navigator.clipboard.writeText(created.key)}>
              Copy
            </button>
          </p>
        </div>
      )}
      <form class="card inline-form" onSubmit={create} aria-label="Create an API key">
        <TextField id="key-name" name="name" label="Name" pattern="[A-Za-z0-9._\-]{1,64}" error={fieldErrors.get('name')} help="Letters, digits, . _ - (up to 64)" />
        <div class="field">
          <label for="key-role">Role</label>
          {roles.length > 0 ? (
            <select id="key-role" name="role" required>
              {roles.map((role) => (
                <option key={role}>{role}</option>
              ))}
            </select>
          ) : (
            <input id="key-role" name="role" required />
          )}
          {fieldErrors.has('role') && <span class="field-error">{fieldErrors.get('role')}</span>}
        </div>
        <button type="submit" class="primary" disabled={busy !== undefined}>
          Create key
        </button>
      </form>
      {listing.loading && <Progress label="Loading keys" />}
      {keys !== undefined && (
        <div class="table-wrap">
          <table>
            <caption class="visually-hidden">API keys</caption>
            <thead>
              <tr>
                <th scope="col">name</th>
                <th scope="col">role</th>
                <th scope="col">created</th>
                <th scope="col">state</th>
                <th scope="col">
                  <span class="visually-hidden">actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.length === 0 && (
                <tr>
                  <td colSpan={5} class="muted">
                    No keys yet.
                  </td>
                </tr>
              )}
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>{key.name}</td>
                  <td>{key.role}</td>
                  <td>{new Date(key.createdAt).toLocaleString()}</td>
                  <td>{key.revokedAt === null ? 'valid' : `revoked ${new Date(key.revokedAt).toLocaleString()}`}</td>
                  <td>
                    {key.revokedAt === null && (
                      <button type="button" class="danger" onClick={() => revoke(key)} disabled={busy !== undefined}>
                        Revoke
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Accounts</h2>
      {props.model.accountType === undefined ? (
        <p class="muted">This schema has no account type.</p>
      ) : (
        <p>
          Open an account in <a href={href('data', props.model.accountType)}>{props.model.accountType}</a> to suspend it (its sessions end at once) or lift a suspension.
        </p>
      )}
    </section>
  );
}
