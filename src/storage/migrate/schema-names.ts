import { createHash } from 'node:crypto';
import type { SqlCompilerHooks } from '../dialect.js';
import type { ActualIndex, ColumnType, DefaultSpec, IndexSpec } from './schema-spec.js';

/**
 * Names of the things Diglot creates besides tables and columns, and the
 * canonical form of default values. Both dialects use the same names, so an
 * error from either can be traced back to a field by name alone.
 */

/** PostgreSQL truncates identifiers to 63 bytes (NAMEDATALEN - 1); longer names get a hash instead. */
const MAX_IDENTIFIER_BYTES = 63;

export function constraintName(table: string, column: string, suffix: 'key' | 'idx' | 'fkey' | 'check' | 'pkey'): string {
  const name = `${table}_${column}_${suffix}`;
  if (Buffer.byteLength(name) <= MAX_IDENTIFIER_BYTES) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 10);
  // Cut by characters, then make sure the bytes fit (non-ASCII names).
  let head = name.slice(0, 40);
  while (Buffer.byteLength(head) > 40) head = head.slice(0, -1);
  return `${head}_${hash}_${suffix}`;
}

/** The canonical key of a desired default, comparable with what `literalKey` makes of a database's text. */
export function defaultKey(spec: DefaultSpec | undefined, type: ColumnType): string | undefined {
  if (spec === undefined) return undefined;
  if (spec.kind === 'now') return 'now';
  return valueKey(spec.value, type);
}

export function valueKey(value: unknown, type: ColumnType): string {
  switch (type) {
    case 'Int':
    case 'Float':
    case 'BigInt':
    case 'Serial':
      return `n:${Number(value)}`;
    case 'Boolean':
      return `b:${value === true || value === 1}`;
    case 'JSON':
      return `j:${canonicalJson(value)}`;
    case 'DateTime':
      return `t:${isoTimestamp(value)}`;
    case 'ID':
    case 'String':
      return `s:${String(value)}`;
  }
}

/** The key of a literal read back from a database: `text` is a string literal's content or a bare constant. */
export function literalKey(text: string, type: ColumnType): string {
  switch (type) {
    case 'Boolean':
      return `b:${text === '1' || text === 'true' || text === 't'}`;
    case 'JSON':
      try {
        return `j:${canonicalJson(JSON.parse(text))}`;
      } catch {
        return `raw:${text}`;
      }
    default:
      return valueKey(text, type);
  }
}

/** JSON text with object keys sorted, so that formatting and key order do not count as a change. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    const sorted: Record<string, unknown> = {};
    for (const key of Object.keys(inner).sort()) sorted[key] = (inner as Record<string, unknown>)[key];
    return sorted;
  });
}

/** ISO-8601 UTC with milliseconds, from a Date, an ISO string, or PostgreSQL's `2024-01-02 03:04:05.678+00`. */
export function isoTimestamp(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  const text = String(value);
  const pg = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d(?:\.\d+)?)([+-]\d\d)(?::?(\d\d))?$/.exec(text);
  const date = new Date(pg === null ? text : `${pg[1] ?? ''}T${pg[2] ?? ''}${pg[3] ?? ''}:${pg[4] ?? '00'}`);
  return Number.isNaN(date.getTime()) ? text : date.toISOString();
}

/** How a dialect spells the terms an id orders by (`SqlCompilerHooks.idOrder`). */
export type IdOrder = SqlCompilerHooks['idOrder'];

/**
 * The keys of CREATE INDEX, each with whether it is an expression (which
 * PostgreSQL wants in parentheses of its own): the columns, case-folded
 * ones through `foldCase`, an id-ordered last column as its order terms.
 */
export function indexTerms(index: IndexSpec, hooks: Pick<SqlCompilerHooks, 'quoteIdent' | 'foldCase' | 'idOrder'>): { readonly sql: string; readonly expression: boolean }[] {
  const last = index.columns.length - 1;
  return index.columns.flatMap((column, i) => {
    const quoted = hooks.quoteIdent(column);
    if (index.caseInsensitive) return [{ sql: hooks.foldCase(quoted), expression: true }];
    if (index.idOrdered === true && i === last) return withId(index, quoted, hooks.idOrder(() => quoted)).map((sql) => ({ sql, expression: sql !== quoted }));
    return [{ sql: quoted, expression: false }];
  });
}

/**
 * An index's keys as introspection reports them: a column's name,
 * `lower(<column>)` for a case-folded one, and an id ordered by `idOrder`
 * as the dialect's terms in `expressionKey`'s form.
 */
export function indexKeys(index: Pick<IndexSpec, 'columns' | 'caseInsensitive' | 'idOrdered' | 'idCovered'>, idOrder: IdOrder): readonly string[] {
  if (index.caseInsensitive) return index.columns.map((column) => `lower(${column})`);
  const last = index.columns.at(-1);
  if (index.idOrdered !== true || last === undefined) return index.columns;
  return [...index.columns.slice(0, -1), ...withId(index, last, idOrder(() => `"${last}"`).map(expressionKey))];
}

/** An id's order terms, then the id itself where the index covers it and the terms do not hold it (`IndexSpec.idCovered`). */
function withId(index: Pick<IndexSpec, 'idCovered'>, id: string, terms: readonly string[]): readonly string[] {
  return index.idCovered === true && !terms.includes(id) ? [...terms, id] : terms;
}

/**
 * An index key expression as a database prints it (SQLite: `lower("email")`;
 * PostgreSQL: `lower((email)::text COLLATE "C")`), in `indexKeys`' form; any
 * other expression without its quotes, spaces and outer parentheses (SQLite
 * keeps the text it was given, PostgreSQL prints its own).
 */
export function expressionKey(text: string): string {
  const folded = /^\s*lower\s*\(\W*"?([A-Za-z_][\w$]*)"?/i.exec(text);
  if (folded?.[1] !== undefined) return `lower(${folded[1]})`;
  const bare = text.replaceAll('"', '').replace(/\s+/g, '');
  return wrapped(bare) ? bare.slice(1, -1) : bare;
}

/** Whether the text is one parenthesized expression: its first `(` closes at its end. */
function wrapped(text: string): boolean {
  if (!text.startsWith('(')) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i === text.length - 1;
  }
  return false;
}

/**
 * Whether an index the database has serves as the one the model asks for:
 * the same keys and uniqueness, or the keys without the id that ends the
 * model's (an index made before the id was appended; see `IndexSpec.tieBreak`).
 */
export function servesIndex(wanted: IndexSpec, actual: ActualIndex, idOrder: IdOrder): boolean {
  const sameColumns = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((column, i) => column === b[i]);
  const keys = indexKeys(wanted, idOrder);
  const untied = wanted.idOrdered !== true && wanted.tieBreak !== undefined && sameColumns(keys.slice(0, -1), actual.columns);
  return wanted.unique === actual.unique && (sameColumns(keys, actual.columns) || untied);
}
