/**
 * Who is signed in. The credential lives in sessionStorage: it survives a
 * reload of this tab, is gone when the tab closes, and is not shared with
 * other tabs (so a second tab can sign in as someone else). localStorage
 * would keep an admin's token on the disk long after the visit, for any
 * later script of this origin to read; memory alone would sign the person
 * out on every reload.
 */
import { useEffect, useState } from 'preact/hooks';

export interface Credential {
  /** `account`: a session from /auth/sign-in (refreshable); `key`: an API key or token pasted in. */
  readonly kind: 'account' | 'key';
  readonly accessToken: string;
  readonly refreshToken?: string;
  /** Shown in the header: the email signed in with, or "API key". */
  readonly label: string;
  readonly accountId?: string;
  /** The `role` claim of an account token, when it has one. */
  readonly role?: string;
}

const KEY = 'diglot.console.credential';
const listeners = new Set<() => void>();
let current: Credential | undefined = load();
let refreshing: Promise<boolean> | undefined;

function load(): Credential | undefined {
  try {
    const text = sessionStorage.getItem(KEY);
    return text === null ? undefined : (JSON.parse(text) as Credential);
  } catch {
    return undefined;
  }
}

function set(credential: Credential | undefined): void {
  current = credential;
  if (credential === undefined) sessionStorage.removeItem(KEY);
  else sessionStorage.setItem(KEY, JSON.stringify(credential));
  for (const listener of listeners) listener();
}

/** The `role` claim of a JWT, read without verifying it (the server verifies; this only picks what to show). */
export function roleClaim(token: string): string | undefined {
  const payload = token.split('.')[1];
  if (payload === undefined) return undefined;
  try {
    const claims = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as Record<string, unknown>;
    return typeof claims['role'] === 'string' ? claims['role'] : undefined;
  } catch {
    return undefined;
  }
}

export const session = {
  token: (): string | undefined => current?.accessToken,
  current: (): Credential | undefined => current,
  signIn: (credential: Credential): void => set(credential),
  /** Ends the account's session on the server too (its refresh token), then forgets it here. */
  async signOut(): Promise<void> {
    const credential = current;
    set(undefined);
    if (credential?.refreshToken === undefined) return;
    await fetch('/auth/sign-out', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: credential.refreshToken }),
    }).catch(() => undefined);
  },
  /** Trades the refresh token for a new session once; false when there is none or it is refused. */
  refresh(): Promise<boolean> {
    const credential = current;
    if (credential?.refreshToken === undefined) return Promise.resolve(false);
    refreshing ??= (async () => {
      try {
        const response = await fetch('/auth/refresh', {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify({ refreshToken: credential.refreshToken }),
        });
        if (!response.ok) {
          set(undefined);
          return false;
        }
        const next = (await response.json()) as { accessToken: string; refreshToken: string };
        set({ ...credential, accessToken: next.accessToken, refreshToken: next.refreshToken, role: roleClaim(next.accessToken) ?? credential.role });
        return true;
      } finally {
        refreshing = undefined;
      }
    })();
    return refreshing;
  },
};

/** The current credential, re-rendering on sign-in and sign-out. */
export function useCredential(): Credential | undefined {
  const [, setTick] = useState(0);
  useEffect(() => {
    const listener = (): void => setTick((tick) => tick + 1);
    listeners.add(listener);
    return () => listeners.delete(listener);
  }, []);
  return current;
}
