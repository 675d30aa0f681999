import { ApiError } from '../errors/api-error.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
import type { Rule } from '../schema/rules.js';
import { foldExpr, type FoldedRule } from './fold-rule.js';
import type { Principal } from './principal.js';
import type { Filter, Param } from './read-plan.js';

/**
 * What the schema's rules let one principal read, in the plan's terms: a
 * row filter per type and an access per field. A schema without rules is
 * open, and the admin role reads everything; otherwise a type without a
 * read rule is the admin's alone.
 */
export interface RuleScope {
  readonly model: Model;
  readonly principal: Principal;
  readonly param: (value: unknown) => Param;
}

/** Matches no row: `or` of nothing. */
export const NO_ROWS: Filter = Object.freeze({ op: 'or', items: Object.freeze([]) });

/** The rows of `type` the principal may see, or undefined for all of them. */
export function rowRule(scope: RuleScope, type: ResourceType): Filter | undefined {
  if (!scope.model.hasRules || scope.principal.admin) return undefined;
  const rule = asFilter(fold(scope, type, type.rules.read, false));
  if (rule !== undefined) rowRules.add(rule);
  return rule;
}

/**
 * The filters `rowRule` made: a plan's list filter is the asker's conditions
 * and the rule together (`both`), and the cost of a read counts only the
 * asker's (plan/scan-cost.ts). A mark on the object, not a field of the
 * plan, so plans (and their golden files) stay as they are.
 */
const rowRules = new WeakSet<Filter>();

/** Whether `filter` is a row rule made by `rowRule`. */
export function isRowRule(filter: Filter): boolean {
  return rowRules.has(filter);
}

export type FieldAccess = { readonly kind: 'open' } | { readonly kind: 'denied' } | { readonly kind: 'masked'; readonly mask: Filter };

const OPEN: FieldAccess = Object.freeze({ kind: 'open' });
const DENIED: FieldAccess = Object.freeze({ kind: 'denied' });

/** Whether the principal may read `field`: always, never, or on the rows its mask keeps (null on the others). */
export function fieldAccess(scope: RuleScope, type: ResourceType, field: Field): FieldAccess {
  if (!scope.model.hasRules || scope.principal.admin || field.rules.read === undefined) return OPEN;
  const folded = fold(scope, type, field.rules.read, true);
  if (folded.kind === 'always') return OPEN;
  if (folded.kind === 'never') return DENIED;
  return { kind: 'masked', mask: folded.filter };
}

/** A field the principal may not read on every row cannot be filtered or sorted on: the answer would tell what it holds. */
export function assertReadable(scope: RuleScope, type: ResourceType, field: Field, use: string): void {
  if (fieldAccess(scope, type, field).kind !== 'open') throw fieldForbidden(type, field, use);
}

export function fieldForbidden(type: ResourceType, field: Field, use = 'read'): ApiError {
  return new ApiError('FIELD_FORBIDDEN', {
    detail: `You may not ${use} ${type.name}.${field.name}`,
    extensions: { field: field.name, type: type.name },
  });
}

/** Both conditions; `undefined` is "all rows". */
export function both(a: Filter | undefined, b: Filter | undefined): Filter | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return { op: 'and', items: [a, b] };
}

function fold(scope: RuleScope, type: ResourceType, rule: Rule | undefined, missing: boolean): FoldedRule {
  if (rule === undefined) return missing ? { kind: 'always' } : { kind: 'never' };
  return foldExpr(scope, type, rule.expr);
}

function asFilter(folded: FoldedRule): Filter | undefined {
  if (folded.kind === 'always') return undefined;
  return folded.kind === 'never' ? NO_ROWS : folded.filter;
}
