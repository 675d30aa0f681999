import { ApiError } from '../errors/api-error.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
import { suggest } from '../util/suggest.js';
import { coerceScalar } from './coerce.js';
import type { DeprecationCollector } from './deprecated-use.js';
import type { CompareOp, Filter, Param } from './read-plan.js';

/**
 * The neutral filter both front-ends produce: GraphQL's `filter:` input
 * object as is, REST's `?filter=` grammar after parsing.
 *
 *   { and: [F…] } | { or: [F…] } | { not: F } | { <field>: { eq: v, in: [v…], isNull: true, … } }
 *
 * Several keys in one object are combined with AND.
 */
export type FilterInput = Readonly<Record<string, unknown>>;

export const FILTER_OPERATORS = ['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'isNull'] as const;
export type FilterOperator = (typeof FILTER_OPERATORS)[number];

const STRING_ONLY: ReadonlySet<string> = new Set(['contains', 'startsWith']);
const ORDERED: ReadonlySet<string> = new Set(['lt', 'lte', 'gt', 'gte']);

export interface FilterContext {
  readonly model: Model;
  readonly param: (value: unknown) => Param;
  /** Values arrived as URL text and may need parsing (`"42"` → 42). */
  readonly fromText: boolean;
  /** Where the filter came from, for error messages (`filter`, `users.filter`). */
  readonly path: string;
  /** Throws when the asker may not filter on the field (see plan/read-rules.ts). */
  readonly readable?: (type: ResourceType, field: Field) => void;
  /** Where the deprecated fields and enum values the filter uses are noted. */
  readonly deprecations?: DeprecationCollector | undefined;
}

/**
 * How far one filter may go. Each `and` / `or` / `not` level is a nested SQL
 * expression, and an `or` of n items is an expression n deep (SQLite refuses
 * one 1,000 deep, a 500 where a 400 belongs); no honest filter comes near
 * these.
 */
export const FILTER_LIMITS = Object.freeze({ maxDepth: 32, maxConditions: 200 });

/** The filter objects and operator conditions one filter has used so far. */
interface Budget {
  conditions: number;
}

function spend(ctx: FilterContext, budget: Budget, path: string, conditions: number): void {
  budget.conditions += conditions;
  if (budget.conditions > FILTER_LIMITS.maxConditions) {
    throw tooComplex(ctx, path, `has more than ${FILTER_LIMITS.maxConditions} conditions; the limit is ${FILTER_LIMITS.maxConditions}`);
  }
}

export function buildFilter(ctx: FilterContext, type: ResourceType, input: unknown, path: string = ctx.path): Filter {
  return filterOf(ctx, { conditions: 0 }, type, input, path, 1);
}

function filterOf(ctx: FilterContext, budget: Budget, type: ResourceType, input: unknown, path: string, depth: number): Filter {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid(path, 'must be an object of field conditions');
  }
  if (depth > FILTER_LIMITS.maxDepth) {
    throw tooComplex(ctx, path, `nests and, or and not more than ${FILTER_LIMITS.maxDepth} levels deep; the limit is ${FILTER_LIMITS.maxDepth}`);
  }
  spend(ctx, budget, path, 1);
  const parts: Filter[] = [];
  for (const [key, value] of Object.entries(input)) {
    const here = `${path}.${key}`;
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(value)) throw invalid(here, 'must be a list of filters');
      parts.push({ op: key, items: value.map((item, i) => filterOf(ctx, budget, type, item, `${here}[${i}]`, depth + 1)) });
    } else if (key === 'not') {
      parts.push({ op: 'not', item: filterOf(ctx, budget, type, value, here, depth + 1) });
    } else {
      const conditions = buildFieldConditions(ctx, type, key, value, here);
      spend(ctx, budget, here, conditions.length);
      parts.push(...conditions);
    }
  }
  return parts.length === 1 ? (parts[0] as Filter) : { op: 'and', items: parts };
}

function buildFieldConditions(ctx: FilterContext, type: ResourceType, name: string, conditions: unknown, path: string): Filter[] {
  const field = type.fieldsByName.get(name);
  if (field === undefined || field.kind === 'toMany' || field.kind === 'manyToMany' || (field.kind === 'scalar' && (field.list || field.scalar === 'JSON'))) {
    const filterable = type.fields.filter((f) => f.kind === 'toOne' || f.kind === 'file' || (f.kind === 'scalar' && !f.list && f.scalar !== 'JSON'));
    const hint = suggest(name, filterable.map((f) => f.name));
    throw new ApiError('QUERY_UNKNOWN_FIELD', {
      detail: field === undefined ? `${type.name} has no field "${name}"${hint === undefined ? '' : `; did you mean "${hint}"?`}` : `${type.name}.${name} cannot be filtered on`,
      extensions: { path, ...(hint === undefined ? {} : { suggestion: hint }) },
    });
  }
  ctx.readable?.(type, field);
  ctx.deprecations?.field(type, field);
  if (typeof conditions !== 'object' || conditions === null || Array.isArray(conditions)) {
    throw invalid(path, `must be an object of operators (${FILTER_OPERATORS.join(', ')})`);
  }
  const result: Filter[] = [];
  for (const [op, raw] of Object.entries(conditions)) {
    const here = `${path}.${op}`;
    if (!(FILTER_OPERATORS as readonly string[]).includes(op)) {
      const hint = suggest(op, FILTER_OPERATORS);
      throw invalid(here, `unknown operator "${op}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`);
    }
    if (op === 'isNull') {
      const flag: unknown = ctx.fromText && (raw === 'true' || raw === 'false') ? raw === 'true' : raw;
      if (typeof flag !== 'boolean') throw invalid(here, 'must be true or false');
      result.push({ op: 'isNull', field: name, value: flag });
      continue;
    }
    if (field.kind === 'file') throw invalid(here, `${name} is a file; only isNull applies`);
    const isText = field.kind === 'toOne' || field.scalar === 'String' || field.scalar === 'ID';
    if (STRING_ONLY.has(op) && (!isText || (field.kind === 'scalar' && field.enum !== undefined))) {
      throw invalid(here, `${op} applies to text fields; ${name} is not one`);
    }
    if (ORDERED.has(op) && field.kind === 'scalar' && field.scalar === 'Boolean') throw invalid(here, `${op} does not apply to a Boolean`);
    const coerce = (value: unknown, at: string): Param => {
      if (value === null) throw invalid(at, 'must not be null (use isNull)');
      if (field.kind === 'toOne') {
        if (typeof value !== 'string') throw invalid(at, 'must be an id string');
        return ctx.param(value);
      }
      const coerced = coerceScalar(ctx.model, { ...field, nullable: false }, value, ctx.fromText);
      if (!coerced.ok) throw invalid(at, `${name} ${coerced.reason}`);
      ctx.deprecations?.enumValues(ctx.model, field.enum, coerced.value);
      return ctx.param(coerced.value);
    };
    if (op === 'in') {
      if (!Array.isArray(raw)) throw invalid(here, 'must be a list of values');
      if (raw.length > 500) throw invalid(here, 'may hold at most 500 values');
      result.push({ op: 'in', field: name, values: raw.map((value, i) => coerce(value, `${here}[${i}]`)) });
    } else {
      result.push({ op: op as CompareOp, field: name, value: coerce(raw, here) });
    }
  }
  if (result.length === 0) throw invalid(path, 'names no operator');
  return result;
}

/** The detail names the filter (`users.filter`), not the full path, which may be hundreds of `not`s long. */
function tooComplex(ctx: FilterContext, path: string, message: string): ApiError {
  return new ApiError('QUERY_TOO_COMPLEX', { detail: `${ctx.path} ${message}`, extensions: { path, limit: 'filter' } });
}

function invalid(path: string, message: string): ApiError {
  return new ApiError('QUERY_INVALID_FILTER', { detail: `${path}: ${message}`, extensions: { path } });
}
