import { useState } from 'preact/hooks';
import { api, ApiProblem, messageOf, formText } from '../api';
import type { StartDocument } from '../start';
import { roleClaim, session } from '../session';
import { Notice } from '../parts/status';

interface AuthSession {
  readonly accessToken: string;
  readonly refreshToken: string;
  readonly accountId: string;
}

/** Sign in with an account (the schema's `@account` type, if it has one) or with an API key or token. */
export function SignIn(props: { start: StartDocument }) {
  const account = props.start.account;
  const identifiers = account === null ? [] : [account.identifier];
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>(undefined);

  const signInWithAccount = async (event: Event): Promise<void> => {
    event.preventDefault();
    const data = new FormData(event.currentTarget as HTMLFormElement);
    setBusy(true);
    setError(undefined);
    try {
      const body = Object.fromEntries([...identifiers, 'password'].map((name) => [name, formText(data, name)]));
      const { body: answer } = await api<AuthSession>(account?.signIn ?? '/auth/sign-in', { method: 'POST', body, anonymous: true });
      session.signIn({
        kind: 'account',
        accessToken: answer.accessToken,
        refreshToken: answer.refreshToken,
        accountId: answer.accountId,
        label: body[identifiers[0] ?? ''] ?? 'account',
        role: roleClaim(answer.accessToken),
      });
    } catch (cause) {
      setError(cause instanceof ApiProblem && cause.code === 'INVALID_CREDENTIALS' ? 'That email and password do not match an account.' : messageOf(cause));
    } finally {
      setBusy(false);
    }
  };

  const signInWithKey = async (event: Event): Promise<void> => {
    event.preventDefault();
    const key = formText(new FormData(event.currentTarget as HTMLFormElement), 'key').trim();
    setBusy(true);
    setError(undefined);
    try {
      // Checked once against a cheap read the key must be able to make: a refused key is a 401 here, not later.
      const response = await fetch('/healthz', { headers: { authorization: `Bearer ${key}` } });
      if (response.status === 401) throw new Error('The server refused this key or token (401).');
      session.signIn({ kind: 'key', accessToken: key, label: key.split('.').length === 3 ? 'token' : 'API key', role: roleClaim(key) });
    } catch (cause) {
      setError(messageOf(cause));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="sign-in" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p class="muted">The console uses this server's public API with your credentials: you see and change what your role's rules allow, nothing more.</p>
      {error !== undefined && <Notice kind="error">{error}</Notice>}
      <div class="cards">
        {identifiers.length > 0 && (
          <form class="card" onSubmit={(event) => void signInWithAccount(event)} aria-label="Sign in with an account">
            <h2>With an account</h2>
            {identifiers.map((name, index) => (
              <label key={name}>
                {name}
                <input name={name} type="text" inputMode={name === 'email' ? 'email' : 'text'} autoComplete="username" required autoFocus={index === 0} />
              </label>
            ))}
            <label>
              password
              <input name="password" type="password" autoComplete="current-password" required />
            </label>
            <button type="submit" class="primary" disabled={busy}>
              {busy ? 'Signing in…' : 'Sign in'}
            </button>
          </form>
        )}
        <form class="card" onSubmit={(event) => void signInWithKey(event)} aria-label="Sign in with an API key">
          <h2>With an API key or token</h2>
          <label>
            Key or token
            <input name="key" type="password" autoComplete="off" required placeholder="dk_…" />
          </label>
          <p class="muted small">An API key (<code>diglot keys create</code>), the admin key, or a JWT your identity provider issued.</p>
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Use this key'}
          </button>
        </form>
      </div>
    </section>
  );
}
