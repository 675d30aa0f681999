import { ApiError } from '../errors/api-error.js';
import type { Model, ResourceType } from '../schema/model.js';
import { suggest } from '../util/suggest.js';
import { coerceScalar } from './coerce.js';
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
}

export function buildFilter(ctx: FilterContext, type: ResourceType, input: unknown, path: string = ctx.path): Filter {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalid(path, 'must be an object of field conditions');
  }
  const parts: Filter[] = [];
  for (const [key, value] of Object.entries(input)) {
    const here = `${path}.${key}`;
    if (key === 'and' || key === 'or') {
      if (!Array.isArray(value)) throw invalid(here, 'must be a list of filters');
      parts.push({ op: key, items: value.map((item, i) => buildFilter(ctx, type, item, `${here}[${i}]`)) });
    } else if (key === 'not') {
      parts.push({ op: 'not', item: buildFilter(ctx, type, value, here) });
    } else {
      parts.push(...buildFieldConditions(ctx, type, key, value, here));
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

function invalid(path: string, message: string): ApiError {
  return new ApiError('QUERY_INVALID_FILTER', { detail: `${path}: ${message}`, extensions: { path } });
}
