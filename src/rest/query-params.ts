import qs from 'qs';
import { ApiError, isApiError } from '../errors/api-error.js';
import type { FieldRequest, ListArgs } from '../plan/build-read.js';
import type { FilterInput } from '../plan/build-filter.js';
import type { OrderKey } from '../plan/read-plan.js';
import type { Model, ResourceType } from '../schema/model.js';
import { resolveField } from '../schema/renamed.js';
import { suggest } from '../util/suggest.js';

/**
 * The REST query grammar, parsed into the neutral arguments the planner takes.
 *
 *   fields=name,email                  root fields (default: every column; relations as ids)
 *   include=posts,followers,posts.author   relations to embed, dotted for depth
 *   posts.fields=title  posts.limit=5  posts.sort=-createdAt  posts.filter[status]=PUBLISHED
 *   filter[age][gte]=18  filter[name]=Ada (eq)  filter[status][in]=A,B  filter[bio][isNull]=true
 *   filter[or][0][name][startsWith]=A&filter[or][1][age][lt]=30
 *   sort=-createdAt,name   limit=20   after=<cursor>   before=<cursor>   count=true
 *   profilePicture.size=64   posts.author.profilePicture.size=32
 */
export interface RestQuery {
  readonly select: readonly FieldRequest[];
  readonly list: ListArgs;
  readonly count: boolean;
}

const ROOT_LIST_PARAMS = ['limit', 'after', 'before', 'sort', 'filter', 'count'];
const EMBED_PARAMS = ['fields', 'limit', 'sort', 'filter'];

/** What the query-string parser takes; past these a request is refused, never quietly cut short. */
export const QUERY_STRING_LIMITS = Object.freeze({ depth: 6, arrayLimit: 100, parameterLimit: 300 });

/**
 * The query string as qs reads it, or a 400. Objects have no prototype,
 * so a key such as `filter[constructor]` is a key like any other (qs would
 * drop it quietly otherwise), and then unknown like any other.
 */
export function parseQueryString(search: string): Record<string, unknown> {
  try {
    return qs.parse(search, {
      ...QUERY_STRING_LIMITS,
      allowDots: false,
      ignoreQueryPrefix: true,
      strictDepth: true,
      throwOnLimitExceeded: true,
      plainObjects: true,
      allowPrototypes: true,
      decoder: (text, decode, charset, kind) => {
        const decoded: unknown = decode(text, decode, charset);
        // qs drops a `__proto__` key without a word; refused, so a request never means less than it says.
        if (kind === 'key' && typeof decoded === 'string' && decoded.split(/[[\]]/).includes('__proto__')) {
          throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `The query key "${decoded}" names __proto__, which no parameter or field is`, extensions: { parameter: decoded } });
        }
        return decoded;
      },
    });
  } catch (error) {
    if (isApiError(error)) throw error;
    throw queryStringError(error);
  }
}

/** qs's limits (RangeErrors) as QUERY_TOO_COMPLEX; anything else it throws is the query string's fault too. */
function queryStringError(error: unknown): ApiError {
  const message = error instanceof Error ? error.message : String(error);
  const { depth, arrayLimit, parameterLimit } = QUERY_STRING_LIMITS;
  if (/depth/i.test(message)) {
    return new ApiError('QUERY_TOO_COMPLEX', {
      detail: `A query parameter nests more than ${depth} bracket levels (such as filter[not][not]…); the limit is ${depth}`,
      extensions: { limit: 'depth' },
    });
  }
  if (/array limit/i.test(message)) {
    return new ApiError('QUERY_TOO_COMPLEX', {
      detail: `A query parameter has more than ${arrayLimit} items, or an index of ${arrayLimit} or more; the limit is ${arrayLimit}`,
      extensions: { limit: 'arrayLimit' },
    });
  }
  if (/parameter limit/i.test(message)) {
    return new ApiError('QUERY_TOO_COMPLEX', {
      detail: `The query string has more than ${parameterLimit} parameters; the limit is ${parameterLimit}`,
      extensions: { limit: 'parameterLimit' },
    });
  }
  return new ApiError('QUERY_INVALID_ARGUMENT', { detail: 'The query string cannot be read' });
}

export function parseRestQuery(model: Model, type: ResourceType, raw: Record<string, unknown>, isList: boolean): RestQuery {
  const includes = parseIncludes(model, type, raw['include']);
  const known = new Set(['fields', 'include', ...(isList ? ROOT_LIST_PARAMS : [])]);
  for (const path of includes.keys()) for (const param of EMBED_PARAMS) known.add(`${path}.${param}`);
  for (const [prefix, at] of [['', type] as const, ...[...includes].map(([path, target]) => [`${path}.`, target] as const)]) {
    for (const field of at.fields) {
      if (field.kind !== 'file') continue;
      known.add(`${prefix}${field.name}.size`);
      if (field.renamedFrom !== undefined) known.add(`${prefix}${field.renamedFrom}.size`);
    }
  }
  for (const key of Object.keys(raw)) {
    if (known.has(key)) continue;
    const hint = suggest(key, [...known]);
    throw new ApiError('QUERY_INVALID_ARGUMENT', {
      detail: `Unknown query parameter "${key}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`,
      extensions: { parameter: key, ...(hint === undefined ? {} : { suggestion: hint }) },
    });
  }
  const select = buildSelect(model, type, raw, '', includes);
  return {
    select,
    list: isList ? listArgs(raw, '') : {},
    count: isList && parseBoolean(raw['count'], 'count'),
  };
}

/** Embedded relation paths → the type they reach, checked against the model. */
function parseIncludes(model: Model, root: ResourceType, value: unknown): Map<string, ResourceType> {
  const paths = new Map<string, ResourceType>();
  for (const path of splitList(value, 'include')) {
    let type = root;
    const segments = path.split('.');
    segments.forEach((segment, i) => {
      const field = resolveField(type, segment)?.field;
      if (field === undefined || (field.kind !== 'toOne' && field.kind !== 'toMany' && field.kind !== 'manyToMany')) {
        const relations = type.fields.filter((f) => f.kind === 'toOne' || f.kind === 'toMany' || f.kind === 'manyToMany').map((f) => f.name);
        const hint = suggest(segment, relations);
        throw new ApiError('QUERY_UNKNOWN_RELATION', {
          detail: `${type.name} has no relation "${segment}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`,
          extensions: { parameter: 'include', ...(hint === undefined ? {} : { suggestion: hint }) },
        });
      }
      type = model.typesByName.get(field.target) as ResourceType;
      paths.set(segments.slice(0, i + 1).join('.'), type);
    });
  }
  return paths;
}

function buildSelect(model: Model, type: ResourceType, raw: Record<string, unknown>, prefix: string, includes: ReadonlyMap<string, ResourceType>): FieldRequest[] {
  const fieldsParam = `${prefix}fields`;
  const named = raw[fieldsParam] === undefined ? undefined : splitList(raw[fieldsParam], fieldsParam);
  // By default the old name of a renamed field (`@renamed`) comes too, right after the new one: old clients read on unchanged.
  const names = named ?? type.fields.filter((f) => f.kind === 'scalar' || f.kind === 'file' || f.kind === 'toOne').flatMap((f) => (f.renamedFrom === undefined ? [f.name] : [f.name, f.renamedFrom]));
  // Fields named by default: a field the asker may not read is left out of them, not refused.
  const implicit = named === undefined;
  const select: FieldRequest[] = [];
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) continue;
    seen.add(name);
    const field = resolveField(type, name)?.field;
    if (field === undefined) {
      const hint = suggest(name, type.fields.map((f) => f.name));
      throw new ApiError('QUERY_UNKNOWN_FIELD', {
        detail: `${type.name} has no field "${name}"${hint === undefined ? '' : `; did you mean "${hint}"?`}`,
        extensions: { parameter: fieldsParam, field: name, ...(hint === undefined ? {} : { suggestion: hint }) },
      });
    }
    const path = `${prefix}${name}`;
    if (field.kind === 'file') {
      const size = raw[`${path}.size`];
      select.push({ key: name, field: name, size: size === undefined ? undefined : parseInteger(size, `${path}.size`), implicit });
    } else if (field.kind === 'scalar' || (field.kind === 'toOne' && !includes.has(path))) {
      select.push({ key: name, field: name, implicit });
    } else if (!includes.has(path)) {
      // A list relation named in fields= is embedded with its defaults.
      select.push(embed(model, field.target, raw, path, includes));
    }
  }
  for (const [path, target] of includes) {
    if (!path.startsWith(prefix) || path.slice(prefix.length).includes('.')) continue;
    // include= adds to the fields (explicit or default) rather than replacing them.
    select.push(embed(model, target.name, raw, path, includes));
  }
  return select;
}

function embed(model: Model, targetName: string, raw: Record<string, unknown>, path: string, includes: ReadonlyMap<string, ResourceType>): FieldRequest {
  const target = model.typesByName.get(targetName) as ResourceType;
  const name = path.slice(path.lastIndexOf('.') + 1);
  return { key: name, field: name, select: buildSelect(model, target, raw, `${path}.`, includes), list: listArgs(raw, `${path}.`) };
}

function listArgs(raw: Record<string, unknown>, prefix: string): ListArgs {
  const limit = raw[`${prefix}limit`];
  const filter = raw[`${prefix}filter`];
  const size = limit === undefined ? undefined : parseInteger(limit, `${prefix}limit`);
  const after = optionalString(raw[`${prefix}after`], `${prefix}after`);
  const before = optionalString(raw[`${prefix}before`], `${prefix}before`);
  // `before` alone is a step back (rel="prev"): the `limit` rows just before it, GraphQL's `last:`.
  const backward = before !== undefined && after === undefined;
  return {
    first: backward ? undefined : size,
    last: backward ? size : undefined,
    after,
    before,
    orderBy: raw[`${prefix}sort`] === undefined ? undefined : parseSort(raw[`${prefix}sort`], `${prefix}sort`),
    filter: filter === undefined ? undefined : normalizeFilter(filter, `${prefix}filter`),
  };
}

export function parseSort(value: unknown, parameter: string): OrderKey[] {
  return splitList(value, parameter).map((item) =>
    item.startsWith('-') ? { field: item.slice(1), direction: 'desc' as const } : { field: item.replace(/^\+/, ''), direction: 'asc' as const },
  );
}

/**
 * URL filters in the neutral shape: `filter[name]=Ada` means `eq`, and an
 * `in` list is comma-separated text.
 */
function normalizeFilter(value: unknown, path: string): FilterInput {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ApiError('QUERY_INVALID_FILTER', { detail: `${path} must use brackets: ${path}[field][op]=value`, extensions: { parameter: path } });
  }
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    if (key === 'and' || key === 'or') {
      const items: unknown[] | undefined = Array.isArray(item) ? item : typeof item === 'object' && item !== null ? Object.values(item) : undefined;
      if (items === undefined) throw new ApiError('QUERY_INVALID_FILTER', { detail: `${path}[${key}] must be indexed: ${path}[${key}][0][field][op]=value` });
      out[key] = items.map((entry, i) => normalizeFilter(entry, `${path}[${key}][${i}]`));
    } else if (key === 'not') {
      out[key] = normalizeFilter(item, `${path}[not]`);
    } else if (typeof item === 'string') {
      out[key] = { eq: item };
    } else if (typeof item === 'object' && item !== null && !Array.isArray(item)) {
      const ops: Record<string, unknown> = {};
      for (const [op, operand] of Object.entries(item as Record<string, unknown>)) {
        ops[op] = op === 'in' && typeof operand === 'string' ? (operand === '' ? [] : operand.split(',')) : operand;
      }
      out[key] = ops;
    } else {
      throw new ApiError('QUERY_INVALID_FILTER', { detail: `${path}[${key}] must be a value or [op]=value`, extensions: { parameter: path } });
    }
  }
  return out;
}

function splitList(value: unknown, parameter: string): string[] {
  if (value === undefined) return [];
  // Repeated (`fields=a&fields=b`) or bracketed (`fields[]=a`) values are one list; anything nested in them is not.
  const text = Array.isArray(value) && value.every((item) => typeof item === 'string') ? value.join(',') : value;
  if (typeof text !== 'string') throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `${parameter} must be a comma-separated list`, extensions: { parameter } });
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

function parseInteger(value: unknown, parameter: string): number {
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value)) {
    throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `${parameter} must be a non-negative integer`, extensions: { parameter } });
  }
  return Number(value);
}

function parseBoolean(value: unknown, parameter: string): boolean {
  if (value === undefined) return false;
  if (value === 'true' || value === '1' || value === '') return true;
  if (value === 'false' || value === '0') return false;
  throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `${parameter} must be true or false`, extensions: { parameter } });
}

function optionalString(value: unknown, parameter: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: `${parameter} must be a single value`, extensions: { parameter } });
  return value;
}
