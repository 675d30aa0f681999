import type { SqlCompilerHooks } from '../dialect.js';

/**
 * PostgreSQL's spellings, chosen so that the JSON text PostgreSQL builds is
 * byte for byte what SQLite builds for the same row: `json_build_object`
 * and `json_agg` pad with spaces (`{"a" : 1}`, `[1, 2]`) and take at most 50
 * pairs, so objects come from `row_to_json` over a one-row subquery whose
 * column names are the keys, and arrays from `array_to_json(array_agg(…))`,
 * which both write compact JSON. Everything JSON is of type `json` (never
 * `jsonb`, which reorders keys), and the driver returns json unparsed.
 */

/** PostgreSQL truncates longer names (NAMEDATALEN - 1), so longer keys cannot be column names. */
const MAX_KEY_BYTES = 63;

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const sqlString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/**
 * `to_json` and `array_agg` need a known type, which a bare string literal
 * or parameter lacks; they are text. Other expressions carry their type.
 */
function typed(expr: string): string {
  return /^'(?:[^']|'')*'$/.test(expr) || /^\$\d+$/.test(expr) || /^NULL$/i.test(expr) ? `${expr}::text` : expr;
}

function jsonObject(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length === 0) return `'{}'::json`;
  if (pairs.every(([key]) => Buffer.byteLength(key) <= MAX_KEY_BYTES)) {
    const columns = pairs.map(([key, value]) => `${typed(value)} AS ${quoteIdent(key)}`).join(', ');
    return `(SELECT row_to_json(_dj) FROM (SELECT ${columns}) _dj)`;
  }
  // A key too long for a column name: splice the text together instead (slower: the result is parsed once more).
  const members = pairs.map(([key, value]) => `${sqlString(`${JSON.stringify(key)}:`)} || coalesce(to_json(${typed(value)})::text, 'null')`);
  return `('{' || ${members.join(` || ',' || `)} || '}')::json`;
}

export const postgresHooks = Object.freeze({
  placeholder: (index: number): string => `$${index + 1}`,
  quoteIdent,
  jsonObject,
  jsonArrayAgg: (valueExpr: string, orderBy: string): string =>
    `coalesce(array_to_json(array_agg(${typed(valueExpr)}${orderBy === '' ? '' : ` ORDER BY ${orderBy}`})), '[]'::json)`,
  embedJson: (expr: string): string => `(${expr})::json`,
  embedArray: (expr: string): string => `(${expr})::json`,
  // row_to_json and to_json write a boolean as true/false already.
  jsonBoolean: (expr: string): string => `(${expr})`,
  jsonTimestamp: (expr: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`,
  jsonText: (expr: string): string => `(${expr})::text`,
  jsonValue: (expr: string): string => `(${expr})::json`,
  // PostgreSQL writes doubles in the shortest form that reads back exactly, as JavaScript does.
  jsonFloat: (expr: string): string => `(${expr})`,
  // strpos and starts_with compare characters, so % and _ in the parameter are literal (LIKE would treat them as wildcards).
  contains: (column: string, param: string): string => `strpos(${column}, ${typed(param)}) > 0`,
  startsWith: (column: string, param: string): string => `starts_with(${column}, ${typed(param)})`,
  // Compact JSON (as JSON.stringify writes it), as UTF-8, as upper-case hex.
  cursorHex: (values: readonly string[]): string =>
    `upper(encode(convert_to(array_to_json(ARRAY[${values.map((value) => `to_json(${typed(value)})`).join(', ')}])::text, 'UTF8'), 'hex'))`,
  // Each part as text: `||` on an unknown-typed literal or parameter is ambiguous otherwise.
  concat: (parts: readonly string[]): string => `(${parts.map((part) => `(${part})::text`).join(' || ')})`,
  columnType: (scalar: 'ID' | 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON'): string => POSTGRES_TYPES[scalar],
}) satisfies SqlCompilerHooks;

/** Spelled as `format_type` reports them, so introspection compares directly. */
export const POSTGRES_TYPES = Object.freeze({
  ID: 'text',
  String: 'text',
  Int: 'integer',
  Float: 'double precision',
  Boolean: 'boolean',
  DateTime: 'timestamp with time zone',
  // Not jsonb: json keeps the text as written (key order, spacing), like SQLite's TEXT.
  JSON: 'json',
  BigInt: 'bigint',
  Serial: 'bigint',
} as const);
