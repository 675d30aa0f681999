import type { Model, ResourceType } from '../schema/model.js';
import type { RuleExpr, RuleOperand } from '../schema/rules.js';
import type { Principal } from './principal.js';
import type { CompareOp, Filter, Param } from './read-plan.js';

/**
 * A rule for one principal: every `auth.…` operand is replaced by the
 * principal's value and every comparison that no longer involves the record
 * is decided, so what is left is a row filter in the plan's own terms (its
 * values in param slots), or a plain yes or no that needs no SQL.
 */
export type FoldedRule = { readonly kind: 'always' } | { readonly kind: 'never' } | { readonly kind: 'filter'; readonly filter: Filter };

export const ALWAYS: FoldedRule = Object.freeze({ kind: 'always' });
export const NEVER: FoldedRule = Object.freeze({ kind: 'never' });

export interface FoldContext {
  readonly model: Model;
  readonly principal: Principal;
  readonly param: (value: unknown) => Param;
}

export function foldExpr(ctx: FoldContext, type: ResourceType, expr: RuleExpr): FoldedRule {
  switch (expr.kind) {
    case 'const':
      return expr.value ? ALWAYS : NEVER;
    case 'and':
      return all(expr.items.map((item) => foldExpr(ctx, type, item)));
    case 'or':
      return any(expr.items.map((item) => foldExpr(ctx, type, item)));
    case 'not': {
      const inner = foldExpr(ctx, type, expr.item);
      if (inner.kind === 'filter') return { kind: 'filter', filter: { op: 'not', item: inner.filter } };
      return inner.kind === 'always' ? NEVER : ALWAYS;
    }
    case 'compare':
      return foldCompare(ctx, type, expr.op, expr.left, expr.right);
    case 'in':
      return any(expr.values.map((value) => foldCompare(ctx, type, 'eq', expr.item, value)));
  }
}

/** `left op right`, the record's field (if any) turned to the left. */
function foldCompare(ctx: FoldContext, type: ResourceType, op: CompareOp, left: RuleOperand, right: RuleOperand): FoldedRule {
  if (left.kind !== 'field' && right.kind === 'field') return foldCompare(ctx, type, MIRRORED[op], right, left);
  if (right.kind === 'field') throw new Error(`A rule of ${type.name} compares two fields; the schema checker refuses that`);
  const value = valueOf(ctx.principal, right);
  if (left.kind !== 'field') return compareValues(valueOf(ctx.principal, left), op, value) ? ALWAYS : NEVER;
  // What the principal lacks (auth.id of an anonymous caller) matches no record: `author == auth.id` is false, `!=` true.
  if (value === null && right.kind === 'auth') return op === 'ne' ? ALWAYS : NEVER;
  return fieldCondition(ctx, type, left.path, op, value);
}

/** A condition on the field at `path`, following to-one relations (`order.customer`) with EXISTS. */
function fieldCondition(ctx: FoldContext, type: ResourceType, path: readonly string[], op: CompareOp, value: unknown): FoldedRule {
  const [name, ...rest] = path;
  const field = name === undefined ? undefined : type.fieldsByName.get(name);
  if (field === undefined) throw new Error(`A rule of ${type.name} names an unknown field ${path.join('.')}`);
  if (rest.length > 0) {
    if (field.kind !== 'toOne') throw new Error(`A rule of ${type.name} follows ${name ?? ''}, which is not a to-one relation`);
    const target = ctx.model.typesByName.get(field.target) as ResourceType;
    const inner = fieldCondition(ctx, target, rest, op, value);
    return inner.kind === 'filter' ? { kind: 'filter', filter: { op: 'related', field: field.name, filter: inner.filter } } : inner;
  }
  // SQL's comparisons with NULL are unknown: a rule's `== null` means "has none".
  if (value === null) {
    if (op === 'eq' || op === 'ne') return { kind: 'filter', filter: { op: 'isNull', field: field.name, value: op === 'eq' } };
    return NEVER;
  }
  if (op === 'ne') {
    // The plan's `ne` keeps rows where the field is null; a rule's `author != auth.id` means the same.
    return { kind: 'filter', filter: { op: 'ne', field: field.name, value: ctx.param(value) } };
  }
  return { kind: 'filter', filter: { op, field: field.name, value: ctx.param(value) } };
}

const MIRRORED: Readonly<Record<CompareOp, CompareOp>> = { eq: 'eq', ne: 'ne', lt: 'gt', lte: 'gte', gt: 'lt', gte: 'lte', contains: 'contains', startsWith: 'startsWith' };

function valueOf(principal: Principal, operand: Exclude<RuleOperand, { kind: 'field' }>): unknown {
  if (operand.kind === 'value') return operand.value;
  const [head, ...rest] = operand.path;
  if (head === 'id' && rest.length === 0) return principal.id;
  if (head === 'role' && rest.length === 0) return principal.role;
  let value: unknown = principal.claims;
  for (const key of operand.path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  return value === undefined ? null : value;
}

/** Two known values: null equals only null and orders with nothing. */
function compareValues(left: unknown, op: CompareOp, right: unknown): boolean {
  if (op === 'eq') return left === right;
  if (op === 'ne') return left !== right;
  if (left === null || right === null || typeof left !== typeof right || (typeof left !== 'number' && typeof left !== 'string')) return false;
  const a = left;
  const b = right as number | string;
  switch (op) {
    case 'lt':
      return a < b;
    case 'lte':
      return a <= b;
    case 'gt':
      return a > b;
    case 'gte':
      return a >= b;
    default:
      return false;
  }
}

export function all(parts: readonly FoldedRule[]): FoldedRule {
  if (parts.some((part) => part.kind === 'never')) return NEVER;
  const filters = parts.flatMap((part) => (part.kind === 'filter' ? [part.filter] : []));
  if (filters.length === 0) return ALWAYS;
  return { kind: 'filter', filter: filters.length === 1 ? (filters[0] as Filter) : { op: 'and', items: filters } };
}

export function any(parts: readonly FoldedRule[]): FoldedRule {
  if (parts.some((part) => part.kind === 'always')) return ALWAYS;
  const filters = parts.flatMap((part) => (part.kind === 'filter' ? [part.filter] : []));
  if (filters.length === 0) return NEVER;
  return { kind: 'filter', filter: filters.length === 1 ? (filters[0] as Filter) : { op: 'or', items: filters } };
}
