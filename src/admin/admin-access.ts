import { ApiError } from '../errors/api-error.js';
import { timed, WRITE_COST } from '../engine/request-meter.js';
import type { RequestContext } from '../plan/request-context.js';

/** What an admin read costs per row it may return (a listing's `limit`), as a data read is charged the rows it may read. */
export const ADMIN_ROW_COST = 1;
/** What an admin action costs: the same as one write of data. */
export const ADMIN_WRITE_COST = WRITE_COST;

/**
 * The one gate of every admin action, in both styles and on every
 * transport: the caller must hold the admin role. It is checked before
 * anything is read or validated, so a refusal says nothing about what
 * exists: without a credential 401 UNAUTHENTICATED, with any other 403
 * FORBIDDEN. Then the action is charged to the caller's budget, as data
 * requests are, and its statements timed on the request's meter.
 */
export async function asAdmin<T>(context: RequestContext, cost: number, work: () => Promise<T>): Promise<T> {
  assertAdmin(context);
  const charged = context.meter.spend(Math.max(1, cost));
  if (charged !== undefined) await charged;
  return timed(context.meter, work);
}

/** The gate alone: a front-end calls it before it reads a body, so a stranger's malformed request is refused as any other of theirs. */
export function assertAdmin(context: RequestContext): void {
  const { principal } = context;
  if (principal.via === 'anonymous') throw new ApiError('UNAUTHENTICATED', { detail: 'The admin API needs the admin role: send Authorization: Bearer <admin key, API key or token>' });
  if (!principal.admin) throw new ApiError('FORBIDDEN', { detail: 'The admin API is for the admin role only' });
}
