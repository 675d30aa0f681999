import type { SourceLocation } from './model.js';

/**
 * Permission rules as the schema states them (`@allow`), parsed and checked
 * against the model once, at load. The planner turns them into row filters
 * and field masks for each principal (src/plan/); nothing else reads them.
 */

/** One side of a comparison. */
export type RuleOperand =
  /** A field of the record, following to-one relations: `author`, `order.customer`; a relation compares by id. */
  | { readonly kind: 'field'; readonly path: readonly string[] }
  /** The principal: `auth.id`, `auth.role`, or any claim by its path (`auth.app_metadata.plan`). */
  | { readonly kind: 'auth'; readonly path: readonly string[] }
  /** A literal, or an enum value (as its name). */
  | { readonly kind: 'value'; readonly value: string | number | boolean | null };

export type RuleExpr =
  | { readonly kind: 'const'; readonly value: boolean }
  | { readonly kind: 'and' | 'or'; readonly items: readonly RuleExpr[] }
  | { readonly kind: 'not'; readonly item: RuleExpr }
  | { readonly kind: 'compare'; readonly op: 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte'; readonly left: RuleOperand; readonly right: RuleOperand }
  | { readonly kind: 'in'; readonly item: RuleOperand; readonly values: readonly RuleOperand[] };

export interface Rule {
  readonly expr: RuleExpr;
  /** The expression as written, for messages and docs. */
  readonly source: string;
  readonly location: SourceLocation;
}

/** Who may do what to a type's records; an operation without a rule is the admin role's alone (when the schema has rules at all). */
export interface TypeRules {
  readonly read?: Rule;
  readonly create?: Rule;
  readonly update?: Rule;
  readonly delete?: Rule;
}

/** Who may read or write one field, on top of the type's rules. */
export interface FieldRules {
  readonly read?: Rule;
  readonly write?: Rule;
}

/** The schema's role enum (`enum Role @roles(admin: "ADMIN")`). */
export interface RoleSet {
  readonly enum: string;
  readonly values: readonly string[];
  /** The value whose holders may do everything. */
  readonly admin: string;
}
