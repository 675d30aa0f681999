import { ApiError } from '../errors/api-error.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
import { suggest } from '../util/suggest.js';
import { buildFilter, type FilterInput } from './build-filter.js';
import { cursorSignature, decodeCursor, orderSignature } from './cursor.js';
import { DeprecationCollector } from './deprecated-use.js';
import { checkCost, checkNesting, planCost, type PlanLimits } from './limits.js';
import type { Principal } from './principal.js';
import type { Cursor, Filter, ListNode, OrderKey, Page, Param, ReadNode, ReadPlan, Selection } from './read-plan.js';
import { assertReadable, both, fieldAccess, fieldForbidden, rowRule, type RuleScope } from './read-rules.js';

/**
 * Builders from neutral arguments to read plans. REST (`?fields=…&include=…`)
 * and GraphQL (a selection set) both describe what they want as
 * `FieldRequest`s; from here on the two styles are the same question.
 */

export { DEFAULT_LIMITS, type PlanLimits } from './limits.js';

export interface ListArgs {
  readonly filter?: FilterInput | undefined;
  readonly orderBy?: readonly OrderKey[] | undefined;
  readonly first?: number | undefined;
  readonly last?: number | undefined;
  readonly after?: string | undefined;
  readonly before?: string | undefined;
}

export type FieldRequest =
  /** A column, a file (with its image `size`), or a relation with its own selection. */
  | {
      readonly key: string;
      readonly field: string;
      readonly size?: number | undefined;
      readonly select?: readonly FieldRequest[] | undefined;
      readonly list?: ListArgs | undefined;
      readonly implicit?: boolean | undefined;
    }
  /** The number of related records (`postsCount`, `?include=posts.count`). */
  | { readonly key: string; readonly countOf: string; readonly filter?: FilterInput | undefined }
  /** GraphQL's `__typename`. */
  | { readonly key: string; readonly typename: true }
  /** The record's cursor in its list, to pass to `after` / `before`. */
  | { readonly key: string; readonly cursor: true };

export interface PlanOptions {
  readonly limits: PlanLimits;
  /** Filter values arrived as URL text. */
  readonly fromText: boolean;
  /** Who is asking: the schema's rules become row filters and field masks for them (plan/read-rules.ts). */
  readonly principal: Principal;
  /**
   * A field asked for by name that the principal may not read is a
   * `withheld` selection (null, reported as an error at its path: GraphQL)
   * rather than FIELD_FORBIDDEN for the whole question (REST's 403).
   */
  readonly withhold?: boolean | undefined;
}

/**
 * Values one plan may bind. SQLite takes at most 32,766 in a statement and
 * PostgreSQL 65,535; a plan past that would fail in the database (a 500, or
 * a protocol error that reads as an outage) rather than as the client's
 * question being too big.
 */
export const MAX_PLAN_PARAMS = 5_000;

class Params {
  readonly values: unknown[] = [];
  scope: RuleScope | undefined;
  /** Embedded relations so far, counted as they are built (see `enter`). */
  relations = 0;
  readonly deprecations = new DeprecationCollector();
  add = (value: unknown): Param => {
    if (this.values.length >= MAX_PLAN_PARAMS) {
      throw new ApiError('QUERY_TOO_COMPLEX', {
        detail: `The question needs more than ${MAX_PLAN_PARAMS} values (filter operands, ids, cursors); the limit is ${MAX_PLAN_PARAMS}`,
        extensions: { limit: 'params' },
      });
    }
    this.values.push(value);
    return { param: this.values.length - 1 };
  };
}

export function planReadOne(model: Model, typeName: string, id: string, select: readonly FieldRequest[], options: PlanOptions): ReadPlan {
  const params = new Params();
  const type = resourceType(model, typeName);
  const node = withRule(buildNode(model, params, type, select, options, typeName, 1), rowRule(scopeOf(model, params, options), type));
  return checked(freeze({ kind: 'read', root: { kind: 'one', node, id: params.add(id) }, params: params.values, deprecations: params.deprecations.list() }), options.limits);
}

export interface ListPlanOptions extends PlanOptions {
  /** Scope the list to a relation of one record: `/users/42/posts`. */
  readonly parent?: { readonly type: string; readonly field: string; readonly id: string } | undefined;
  readonly totalCount?: boolean | undefined;
}

export function planReadList(
  model: Model,
  typeName: string,
  args: ListArgs,
  select: readonly FieldRequest[],
  options: ListPlanOptions,
): ReadPlan {
  const params = new Params();
  let type = resourceType(model, typeName);
  let parent: { type: string; field: string; id: Param; rule?: Filter } | undefined;
  if (options.parent !== undefined) {
    const parentType = resourceType(model, options.parent.type);
    const field = parentType.fieldsByName.get(options.parent.field);
    if (field?.kind !== 'toMany' && field?.kind !== 'manyToMany') {
      throw new ApiError('QUERY_UNKNOWN_RELATION', { detail: `${parentType.name} has no list relation "${options.parent.field}"` });
    }
    type = resourceType(model, field.target);
    parent = { type: parentType.name, field: field.name, id: params.add(options.parent.id) };
    params.deprecations.type(parentType);
    params.deprecations.field(parentType, field);
    // A relation the asker may not read on every row cannot be listed on its own (`/users/42/<field>`).
    assertReadable(scopeOf(model, params, options), parentType, field, 'list');
    const rule = rowRule(scopeOf(model, params, options), parentType);
    if (rule !== undefined) parent = { ...parent, rule };
  }
  const node = buildListNode(model, params, type, select, args, options, type.plural, 1);
  const root = { kind: 'list', node, parent, totalCount: options.totalCount === true } as const;
  return checked(freeze({ kind: 'read', root, params: params.values, deprecations: params.deprecations.list() }), options.limits);
}

function checked(plan: ReadPlan, limits: PlanLimits): ReadPlan {
  checkCost(planCost(plan), limits);
  return plan;
}

function buildNode(model: Model, params: Params, type: ResourceType, select: readonly FieldRequest[], options: PlanOptions, path: string, depth: number): ReadNode {
  params.deprecations.type(type);
  const selections = select.flatMap((request) => buildSelection(model, params, type, request, options, path, depth) ?? []);
  return { type: type.name, select: selections };
}

function withRule(node: ReadNode, rule: Filter | undefined): ReadNode {
  return rule === undefined ? node : { ...node, rule };
}

/** The rules' view for this principal; its params are the plan's own. */
function scopeOf(model: Model, params: Params, options: PlanOptions): RuleScope {
  params.scope ??= { model, principal: options.principal, param: params.add };
  return params.scope;
}

/** The level of an embedded relation's records, once the limits allow it. */
function enter(params: Params, limits: PlanLimits, depth: number): number {
  params.relations += 1;
  checkNesting(depth + 1, params.relations, limits);
  return depth + 1;
}

function buildListNode(
  model: Model,
  params: Params,
  type: ResourceType,
  select: readonly FieldRequest[],
  args: ListArgs,
  options: PlanOptions,
  path: string,
  depth: number,
): ListNode {
  const scope = scopeOf(model, params, options);
  const asked =
    args.filter === undefined
      ? undefined
      : buildFilter({ model, param: params.add, fromText: options.fromText, path: `${path}.filter`, readable: readableIn(scope), deprecations: params.deprecations }, type, args.filter);
  // The rows the asker may see, whatever else the list is filtered on: in every count and cursor too.
  const filter = both(asked, rowRule(scope, type));
  const order = buildOrder(type, args.orderBy ?? [], args.after ?? args.before, path);
  for (const key of order) assertReadable(scope, type, fieldOf(type, key.field, path), 'sort on');
  for (const key of args.orderBy ?? []) params.deprecations.field(type, fieldOf(type, key.field, path));
  const node = buildNode(model, params, type, select, options, path, depth);
  const page = buildPage(params, order, args, options.limits, path);
  return { ...node, filter, order, page };
}

function readableIn(scope: RuleScope): (type: ResourceType, field: Field) => void {
  return (type, field) => assertReadable(scope, type, field, 'filter on');
}

/** A selection, or undefined for a field named by default that the asker may not read. */
function buildSelection(
  model: Model,
  params: Params,
  type: ResourceType,
  request: FieldRequest,
  options: PlanOptions,
  path: string,
  depth: number,
): Selection | undefined {
  if ('typename' in request) return { kind: 'constant', key: request.key, value: type.name };
  if ('cursor' in request) return { kind: 'cursor', key: request.key };
  if ('countOf' in request) {
    const field = fieldOf(type, request.countOf, path);
    if (field.kind !== 'toMany' && field.kind !== 'manyToMany') {
      throw new ApiError('QUERY_UNKNOWN_RELATION', { detail: `${type.name}.${field.name} is not a list relation and has no count` });
    }
    const scope = scopeOf(model, params, options);
    // A count tells how many related records exist: only when the relation may be read on every row, and only the visible ones.
    assertReadable(scope, type, field, 'count');
    params.deprecations.field(type, field);
    const target = resourceType(model, field.target);
    params.deprecations.type(target);
    const asked =
      request.filter === undefined
        ? undefined
        : buildFilter(
            { model, param: params.add, fromText: options.fromText, path: `${path}.${request.key}.filter`, readable: readableIn(scope), deprecations: params.deprecations },
            target,
            request.filter,
          );
    return { kind: 'count', key: request.key, field: field.name, filter: both(asked, rowRule(scope, target)) };
  }
  const field = fieldOf(type, request.field, path);
  const here = `${path}.${request.key}`;
  const access = fieldAccess(scopeOf(model, params, options), type, field);
  if (access.kind === 'denied') {
    if (request.implicit === true) return undefined;
    if (options.withhold === true) return { kind: 'withheld', key: request.key, field: field.name };
    throw fieldForbidden(type, field);
  }
  const mask = access.kind === 'masked' ? { mask: access.mask } : {};
  // A field the client named (not one of REST's default representation) is a use of it.
  if (request.implicit !== true) params.deprecations.field(type, field);
  switch (field.kind) {
    case 'scalar':
      return { kind: 'column', key: request.key, field: field.name, ...mask };
    case 'file': {
      if (request.size !== undefined) params.deprecations.argument(type, field, 'size', field.sizeDeprecation);
      const size = request.size === undefined ? undefined : params.add(snapSize(field.image.sizes, request.size, here));
      return { kind: 'file', key: request.key, field: field.name, size, ...mask };
    }
    case 'toOne': {
      // A to-one relation without a sub-selection is its id, as written.
      if (request.select === undefined) return { kind: 'column', key: request.key, field: field.name, ...mask };
      const target = resourceType(model, field.target);
      const inner = enter(params, options.limits, depth);
      const node = withRule(buildNode(model, params, target, request.select, options, here, inner), rowRule(scopeOf(model, params, options), target));
      return { kind: 'toOne', key: request.key, field: field.name, node, ...mask };
    }
    case 'toMany':
    case 'manyToMany': {
      const target = resourceType(model, field.target);
      const select = request.select ?? [{ key: 'id', field: 'id' }];
      const inner = enter(params, options.limits, depth);
      return { kind: 'toMany', key: request.key, field: field.name, node: buildListNode(model, params, target, select, request.list ?? {}, options, here, inner), ...mask };
    }
  }
}

/**
 * Image sizes snap *up* to the next size in the field's allow-list (the
 * largest when asked for more), so a client never gets a smaller picture than
 * it asked for and the server never makes sizes nobody declared.
 */
export function snapSize(sizes: readonly number[], requested: number, path: string): number {
  if (!Number.isInteger(requested) || requested < 1) {
    throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `${path}: size must be a positive integer`, extensions: { path } });
  }
  return sizes.find((size) => size >= requested) ?? (sizes[sizes.length - 1] as number);
}

function buildOrder(type: ResourceType, requested: readonly OrderKey[], continuing: string | undefined, path: string): OrderKey[] {
  const order: OrderKey[] = [];
  for (const key of requested) {
    const field = type.fieldsByName.get(key.field);
    const sortable = field !== undefined && (field.kind === 'toOne' || (field.kind === 'scalar' && !field.list && field.scalar !== 'JSON'));
    if (!sortable) {
      const candidates = type.fields.filter((f) => f.kind === 'toOne' || (f.kind === 'scalar' && !f.list && f.scalar !== 'JSON')).map((f) => f.name);
      const hint = suggest(key.field, candidates);
      throw new ApiError('QUERY_INVALID_ORDER', {
        detail:
          field === undefined
            ? `${path}: ${type.name} has no field "${key.field}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`
            : `${path}: ${type.name}.${key.field} cannot be sorted on`,
        extensions: { path, ...(hint === undefined ? {} : { suggestion: hint }) },
      });
    }
    if (order.some((existing) => existing.field === key.field)) continue;
    order.push({ field: key.field, direction: key.direction });
    // The id is unique: keys after it can never matter.
    if (key.field === 'id') return order;
  }
  // A unique last key makes the order total, which keyset paging needs. It
  // runs the same way as the key before it, so an index on (…, key, id) read
  // backwards hands a `sort=-createdAt` page over in order, with no sort step
  // (every non-unique index ends with the id: see desired-schema.ts). It
  // used to run ascending always; a cursor made then goes on in the order it
  // was made for, rather than being refused halfway through a list.
  const direction = order.at(-1)?.direction ?? 'asc';
  const madeEarlier = direction === 'desc' && continuing !== undefined && cursorSignature(continuing) === orderSignature([...order, { field: 'id', direction: 'asc' }]);
  order.push({ field: 'id', direction: madeEarlier ? 'asc' : direction });
  return order;
}

function buildPage(params: Params, order: readonly OrderKey[], args: ListArgs, limits: PlanLimits, path: string): Page {
  if (args.first !== undefined && args.last !== undefined) {
    throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `${path}: give first or last, not both` });
  }
  const requested = args.first ?? args.last;
  if (requested !== undefined && (!Number.isInteger(requested) || requested < 0)) {
    throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `${path}: page size must be a non-negative integer`, extensions: { path } });
  }
  if (requested !== undefined && requested > limits.maxPageSize) {
    throw new ApiError('QUERY_PAGE_TOO_LARGE', {
      detail: `${path}: at most ${limits.maxPageSize} rows per page (asked for ${requested})`,
      extensions: { path, maximum: limits.maxPageSize },
    });
  }
  const cursor = (value: string | undefined, argument: string): Cursor | undefined => {
    if (value === undefined) return undefined;
    const values = decodeCursor(order, value, `${path}.${argument}`);
    return { values: values.map((v) => params.add(v)), nulls: values.map((v) => v === null) };
  };
  const after = cursor(args.after, 'after');
  const before = cursor(args.before, 'before');
  // A `before` cursor alone pages backward: the rows just before it, not the list's first rows.
  const fromEnd = args.last !== undefined || (before !== undefined && after === undefined && args.first === undefined);
  return { limit: params.add(requested ?? limits.defaultPageSize), after, before, fromEnd };
}

function resourceType(model: Model, name: string): ResourceType {
  const type = model.typesByName.get(name);
  if (type === undefined) throw new ApiError('ROUTE_NOT_FOUND', { detail: `No resource type ${name}` });
  return type;
}

function fieldOf(type: ResourceType, name: string, path: string): Field {
  const field = type.fieldsByName.get(name);
  if (field !== undefined) return field;
  const hint = suggest(name, type.fields.map((f) => f.name));
  throw new ApiError('QUERY_UNKNOWN_FIELD', {
    detail: `${type.name} has no field "${name}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`,
    extensions: { path, field: name, ...(hint === undefined ? {} : { suggestion: hint }) },
  });
}

function freeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) freeze(child);
  }
  return value;
}
