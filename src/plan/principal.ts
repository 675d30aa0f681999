import { ApiError } from '../errors/api-error.js';
import type { Model } from '../schema/model.js';

/**
 * Who is asking: built once per request at the HTTP edge (src/server/) from
 * its credentials, and handed to the plan builders, which turn the schema's
 * rules into row filters and field masks for it. Nothing below the edge
 * reads a header.
 */
export interface Principal {
  /** The subject: a record id of the account type (a token's `sub`), an API key's id, or null when anonymous. */
  readonly id: string | null;
  /** A value of the schema's role enum, or null when anonymous. */
  readonly role: string | null;
  /** Every claim of a verified token (`{}` for keys and anonymous): rules may name any of them as `auth.<path>`. */
  readonly claims: Readonly<Record<string, unknown>>;
  /** The admin role: every operation is allowed, whatever the rules say. */
  readonly admin: boolean;
  /** How the principal was established (logs, cache keys). */
  readonly via: 'anonymous' | 'jwt' | 'api-key' | 'admin-key';
}

export const ANONYMOUS: Principal = Object.freeze({ id: null, role: null, claims: Object.freeze({}), admin: false, via: 'anonymous' });

/**
 * What sets apart the answers of one asker from another's under a model's
 * rules, for the keys of plan templates and validators: empty for a schema
 * without rules, where everyone gets the same answers.
 */
export function askerKey(model: Model, principal: Principal): string {
  return isPersonal(model) ? principalKey(principal) : '';
}

/**
 * Whether answers can differ by who asks: under rules, and wherever there
 * is an account type (`GET /me` and `{ me }` are the caller's own record).
 */
export function isPersonal(model: Model): boolean {
  return model.hasRules || model.account !== undefined;
}

/**
 * The caller's own account id, for `GET /me` and `{ me }`: the subject of a
 * token (Diglot's own, or an outside issuer's whose `sub` is an account
 * id). Anyone else, API keys included, is 401.
 */
export function ownAccountId(principal: Principal): string {
  if (principal.via !== 'jwt' || principal.id === null) throw new ApiError('UNAUTHENTICATED', { detail: 'Sign in first: send Authorization: Bearer <access token>' });
  return principal.id;
}

const keys = new WeakMap<Principal, string>();

/**
 * What sets one principal's answers apart from another's, as text for cache
 * keys (plan templates, validators): empty for the anonymous caller, so
 * anonymous requests share everything as before.
 */
export function principalKey(principal: Principal): string {
  if (principal.via === 'anonymous') return '';
  let key = keys.get(principal);
  if (key === undefined) {
    key = JSON.stringify([principal.via, principal.id, principal.role, principal.admin, principal.claims]);
    keys.set(principal, key);
  }
  return key;
}
