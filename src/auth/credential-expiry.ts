import { ApiError } from '../errors/api-error.js';
import type { Principal } from '../plan/principal.js';
import type { CredentialEnd, CredentialLifetime } from '../plan/request-context.js';

/** setTimeout's longest delay (about 24.8 days); a later expiry is reached in steps. */
const LONGEST_TIMER_MS = 2 ** 31 - 1;

/**
 * How long a principal's credential stays good, for connections that
 * outlive a request (a live read, a subscription, a WebSocket): until its
 * token's `exp`, or, for an account's own token, until the account is
 * suspended. A request is checked when it arrives; a stream must end when
 * its credential does, or a token that expired or an account suspended
 * since would keep being answered; so must a stream of an API key revoked since. A credential without `exp` (an API key,
 * the admin key, anonymous) does not expire here.
 */
export function credentialLifetime(
  principal: Principal,
  suspensions?: { watch(id: string, end: () => void): () => void },
  why: Exclude<CredentialEnd, 'expired'> = 'suspended',
): CredentialLifetime {
  return {
    onEnd(end) {
      // Either watch may fire at once (a token already past `exp`, an account already suspended).
      const state = { ended: false };
      let cancelExpiry = (): void => undefined;
      let cancelSuspension = (): void => undefined;
      const cancel = (): void => {
        cancelExpiry();
        cancelSuspension();
      };
      const once = (why: CredentialEnd): void => {
        if (state.ended) return;
        state.ended = true;
        cancel();
        end(why);
      };
      cancelExpiry = onExpiry(principal, () => once('expired'));
      if (!state.ended && principal.id !== null && suspensions !== undefined) cancelSuspension = suspensions.watch(principal.id, () => once(why));
      return cancel;
    },
  };
}

/** The error a stream ends with when its credential does: what a new request with it would get. */
export function credentialEndError(why: CredentialEnd, retry: string): ApiError {
  if (why === 'suspended') return new ApiError('ACCOUNT_SUSPENDED', { detail: 'This account is suspended' });
  if (why === 'revoked') return new ApiError('UNAUTHENTICATED', { detail: 'The API key has been revoked' });
  return new ApiError('UNAUTHENTICATED', { detail: `The credential expired; ${retry}` });
}

function onExpiry(principal: Principal, expire: () => void): () => void {
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
