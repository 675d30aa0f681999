import type { Principal } from '../plan/principal.js';

/** setTimeout's longest delay (about 24.8 days); a later expiry is reached in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * Calls `expire` once the principal's credential is no longer valid (a
 * token's `exp`), for connections that outlive a request: a live read, a
 * subscription, a WebSocket. A request is checked when it arrives; a stream
 * must be ended when its credential runs out, or a token that expired (or
 * an account suspended since, which gets no new token) would keep being
 * answered. Returns the cancel function; a credential without `exp` (an
 * API key, the admin key, anonymous) never expires here.
 */
export function onCredentialExpiry(principal: Principal, expire: () => void): () => void {
  const exp = principal.claims['exp'];
  if (typeof exp !== 'number') return () => undefined;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = exp * 1000 - Date.now();
    if (left <= 0) {
      expire();
      return;
    }
    timer = setTimeout(arm, Math.min(left, LONGEST_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
