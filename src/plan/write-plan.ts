/**
 * Write plans: plain data describing one change. Input values are already
 * validated and coerced to the model's types by `validate-input.ts`; the
 * engine only has to store them, in one transaction with the change clock
 * bump and the outbox event.
 */

import type { DeprecatedUse } from './deprecated-use.js';
import type { Principal } from './principal.js';
import type { Filter } from './read-plan.js';

/** A validated input record: field name → value (relations as target ids). */
export type WriteValues = Readonly<Record<string, unknown>>;

/**
 * What the schema's rules ask of one write for its principal, checked by the
 * engine inside the write's transaction, so a concurrent change cannot slip
 * past them. Filters are over the written type; their values are `params`.
 */
export interface WriteRules {
  readonly params: readonly unknown[];
  /** The stored rows the asker may see: the record outside them is a 404, as a missing one. */
  readonly visible?: Filter;
  /** The stored rows the asker may change this way: outside them, 403. */
  readonly allowed?: Filter;
  /** Links: the target records the asker may see; a link to one outside them is a 404, as to a missing one. */
  readonly target?: Filter;
  /** What the record as written must satisfy (create and update rules, field write rules): otherwise 403 and nothing is kept. */
  readonly check?: Filter;
  /**
   * To-one values, by field: the target records the asker may see. A value
   * pointing at one outside them fails exactly as one pointing at no record
   * (409 RELATION_TARGET_NOT_FOUND), as a link to it is a 404.
   */
  readonly references?: Readonly<Record<string, Filter>>;
}

/** An update of `@immutable` fields: the stored row must already hold the values written (else 409 INPUT_IMMUTABLE_FIELD). */
export interface UnchangedCheck {
  readonly fields: readonly string[];
  readonly params: readonly unknown[];
  readonly filter: Filter;
}

export type WritePlan = (
  | { readonly kind: 'create'; readonly type: string; readonly values: WriteValues }
  /**
   * `replace` is PUT: `values` already holds the default (or null) of each
   * field the body left out and the caller may write (planUpdate).
   */
  | {
      readonly kind: 'update';
      readonly type: string;
      readonly id: string;
      readonly values: WriteValues;
      readonly replace: boolean;
      readonly unchanged?: UnchangedCheck;
    }
  | { readonly kind: 'delete'; readonly type: string; readonly id: string }
  /** Add or remove one many-to-many link, seen from `type.field` of record `id`. */
  | { readonly kind: 'connect' | 'disconnect'; readonly type: string; readonly field: string; readonly id: string; readonly targetId: string }
) & {
  readonly rules?: WriteRules;
  /** The deprecated things the write uses: its type, the input fields it names and their enum values, the relation it links (absent, as none, for Diglot's own writes). */
  readonly deprecations?: readonly DeprecatedUse[];
  /** Who asked for the write, for its event; absent for Diglot's own writes (`via: 'system'`). */
  readonly actor?: WriteActor;
};

/** The principal behind a write as its event shows it: who and how, never a credential or claim. */
export interface WriteActor {
  readonly id: string | null;
  readonly role: string | null;
  readonly via: Principal['via'] | 'system';
}

export interface WriteResult {
  /** Id of the record the write was about (created, updated, deleted or linked from). */
  readonly id: string;
  /** For connect/disconnect: whether the link set changed (idempotent calls report false). */
  readonly changed: boolean;
  /**
   * The record as the caller's read-back plan renders it, when the write
   * could read it back in its own statement (a create on PostgreSQL); absent
   * otherwise, and the caller reads it.
   */
  readonly record?: string;
}
