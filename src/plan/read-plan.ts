/**
 * The read plan: a frozen tree of plain data that both front-ends build and
 * the engine compiles to one SQL statement.
 *
 * Values never sit in the tree itself: a node refers to them as `{ param: i }`
 * slots into `ReadPlan.params`. The tree without params is the plan's *shape*;
 * the same question asked with other values has the same shape and reuses the
 * compiled SQL and prepared statement.
 */

import type { DeprecatedUse } from './deprecated-use.js';

export interface Param {
  readonly param: number;
}

export type CompareOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte' | 'contains' | 'startsWith';

export type Filter =
  | { readonly op: 'and' | 'or'; readonly items: readonly Filter[] }
  | { readonly op: 'not'; readonly item: Filter }
  | { readonly op: CompareOp; readonly field: string; readonly value: Param }
  | { readonly op: 'in'; readonly field: string; readonly values: readonly Param[] }
  | { readonly op: 'isNull'; readonly field: string; readonly value: boolean }
  /** The record a to-one relation points at exists and matches `filter` (a rule's `order.customer == auth.id`). */
  | { readonly op: 'related'; readonly field: string; readonly filter: Filter };

export interface OrderKey {
  readonly field: string;
  readonly direction: 'asc' | 'desc';
}

/**
 * Keyset position: the order-key values of the row to start after (or end
 * before). `nulls[i]` records which values are null, because SQL compares
 * nulls differently and that changes the statement's shape.
 */
export interface Cursor {
  readonly values: readonly Param[];
  readonly nulls: readonly boolean[];
}

export interface Page {
  /** Max rows; always set (front-ends apply the default and the hard maximum). */
  readonly limit: Param;
  readonly after: Cursor | undefined;
  readonly before: Cursor | undefined;
  /** When true, take the *last* `limit` rows (GraphQL `last:`); output is still in order. */
  readonly fromEnd: boolean;
}

/**
 * `mask`: the rows of the record being read on which the principal may see
 * this field (a field rule such as `id == auth.id`); elsewhere it is null.
 */
export type Selection =
  | { readonly kind: 'column'; readonly key: string; readonly field: string; readonly mask?: Filter }
  | { readonly kind: 'file'; readonly key: string; readonly field: string; readonly size: Param | undefined; readonly mask?: Filter }
  | { readonly kind: 'toOne'; readonly key: string; readonly field: string; readonly node: ReadNode; readonly mask?: Filter }
  | { readonly kind: 'toMany'; readonly key: string; readonly field: string; readonly node: ListNode; readonly mask?: Filter }
  | { readonly kind: 'count'; readonly key: string; readonly field: string; readonly filter: Filter | undefined }
  | { readonly kind: 'constant'; readonly key: string; readonly value: string }
  /** This record's keyset cursor in the list it was read in (null outside a list). */
  | { readonly kind: 'cursor'; readonly key: string }
  /**
   * A field the principal may not read, asked for by name where the answer
   * is null with an error at its path (GraphQL: `PlanOptions.withhold`);
   * always null, and the front-end reports each occurrence as FIELD_FORBIDDEN.
   */
  | { readonly kind: 'withheld'; readonly key: string; readonly field: string };

/** What to output for one record of `type`. */
export interface ReadNode {
  readonly type: string;
  readonly select: readonly Selection[];
  /** One record (a root `one`, a to-one relation): the rows the principal may see; a record outside it reads as missing. A list has it in its `filter`. */
  readonly rule?: Filter;
}

/** A filtered, ordered, paged list of records. `order` always ends with `id`. */
export interface ListNode extends ReadNode {
  readonly filter: Filter | undefined;
  readonly order: readonly OrderKey[];
  readonly page: Page;
}

export type ReadRoot =
  /** One record by id: the result is the record's JSON or null. */
  | { readonly kind: 'one'; readonly node: ReadNode; readonly id: Param }
  /** A list, optionally scoped to a relation of one parent record (`/users/42/posts`). */
  | {
      readonly kind: 'list';
      readonly node: ListNode;
      /** `rule`: the parent rows the principal may see; the list of a parent outside it is a 404, as a missing parent's. */
      readonly parent: { readonly type: string; readonly field: string; readonly id: Param; readonly rule?: Filter } | undefined;
      readonly totalCount: boolean;
    };

export interface ReadPlan {
  readonly kind: 'read';
  readonly root: ReadRoot;
  readonly params: readonly unknown[];
  /**
   * The deprecated things the question uses (types, fields it names, filters
   * or sorts on, arguments, enum values), noted once when the plan is built
   * and kept with its template: headers, extensions and usage counts read it.
   */
  readonly deprecations: readonly DeprecatedUse[];
}

/**
 * The result of a list read. `json` is the response body fragment built by
 * the database; the cursors are the order-key values of the first and last row.
 */
export interface ListResult {
  readonly json: string;
  readonly count: number;
  readonly hasMore: boolean;
  readonly startKey: readonly unknown[] | undefined;
  readonly endKey: readonly unknown[] | undefined;
  readonly totalCount: number | undefined;
}
