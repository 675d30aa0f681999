/**
 * Write plans: plain data describing one change. Input values are already
 * validated and coerced to the model's types by `validate-input.ts`; the
 * engine only has to store them, in one transaction with the change clock
 * bump and the outbox event.
 */

/** A validated input record: field name → value (relations as target ids). */
export type WriteValues = Readonly<Record<string, unknown>>;

export type WritePlan =
  | { readonly kind: 'create'; readonly type: string; readonly values: WriteValues }
  /** `replace` is PUT: fields absent from `values` are reset to default/null. */
  | { readonly kind: 'update'; readonly type: string; readonly id: string; readonly values: WriteValues; readonly replace: boolean }
  | { readonly kind: 'delete'; readonly type: string; readonly id: string }
  /** Add or remove one many-to-many link, seen from `type.field` of record `id`. */
  | { readonly kind: 'connect' | 'disconnect'; readonly type: string; readonly field: string; readonly id: string; readonly targetId: string };

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
