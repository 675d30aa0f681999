import { useEffect, useState } from 'preact/hooks';
import { api, ApiProblem, messageOf } from '../api';
import { Notice, Progress } from './status';

interface Suspended {
  readonly accountId: string;
  readonly suspended: boolean;
  readonly reason: string | null;
}

/** An account's suspension, through the admin API; shown only to callers it answers (admins). */
export function Suspension(props: { id: string }) {
  const [state, setState] = useState<Suspended | undefined>(undefined);
  const [hidden, setHidden] = useState(false);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [reason, setReason] = useState('');
  const path = `/admin/accounts/${encodeURIComponent(props.id)}/suspension`;

  useEffect(() => {
    api<Suspended>(path).then(
      ({ body }) => setState(body),
      (cause: unknown) => {
        if (cause instanceof ApiProblem && (cause.status === 401 || cause.status === 403 || cause.status === 404)) setHidden(true);
        else setError(messageOf(cause));
      },
    );
  }, [path]);

  const change = async (method: 'PUT' | 'DELETE'): Promise<void> => {
    setBusy(method === 'PUT' ? 'Suspending' : 'Lifting the suspension');
    setError(undefined);
    try {
      const { body } = await api<Suspended>(path, { method, ...(method === 'PUT' ? { body: reason === '' ? {} : { reason } } : {}) });
      setState(body);
    } catch (cause) {
      setError(messageOf(cause));
    } finally {
      setBusy(undefined);
    }
  };

  if (hidden) return null;
  return (
    <section class="card" aria-labelledby="suspension-title">
      <h2 id="suspension-title">Account</h2>
      {state === undefined && error === undefined && <Progress label="Reading the account" />}
      {state !== undefined && (
        <>
          <p>{state.suspended ? `Suspended${state.reason !== null ? `: ${state.reason}` : ''}.` : 'Active.'}</p>
          {state.suspended ? (
            <button type="button" onClick={() => void change('DELETE')} disabled={busy !== undefined}>
              Lift the suspension
            </button>
          ) : (
            <form onSubmit={(event) => { event.preventDefault(); void change('PUT'); }}>
              <label>
                Reason
                <input value={reason} onInput={(event) => setReason((event.currentTarget).value)} />
              </label>
              <button type="submit" class="danger" disabled={busy !== undefined}>
                Suspend (ends its sessions at once)
              </button>
            </form>
          )}
        </>
      )}
      {busy !== undefined && <Progress label={busy} />}
      {error !== undefined && <Notice kind="error">{error}</Notice>}
    </section>
  );
}
