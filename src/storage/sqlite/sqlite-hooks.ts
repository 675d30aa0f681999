import type { SqlCompilerHooks } from '../dialect.js';

/**
 * SQLite's spellings. JSON is built by SQLite's JSON1 functions; values keep
 * their JSON-ness inside `json_object` only while they carry SQLite's JSON
 * subtype, which a subquery boundary drops, hence `json(...)` to embed.
 */

/** SQLite allows 1000 function arguments: 499 key/value pairs leave room to spare. */
const MAX_PAIRS = 499;

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const sqlString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

function jsonObject(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length <= MAX_PAIRS) return `json_object(${pairs.map(([key, value]) => `${sqlString(key)}, ${value}`).join(', ')})`;
  // Wider than one call allows: splice the members of several objects into
  // one. The chunks are never empty, so each contributes `"k":v,...`.
  const chunks: string[] = [];
  for (let i = 0; i < pairs.length; i += MAX_PAIRS) chunks.push(jsonObject(pairs.slice(i, i + MAX_PAIRS)));
  const members = chunks.map((chunk) => `substr(${chunk}, 2, length(${chunk}) - 2)`);
  return `json('{' || ${members.join(` || ',' || `)} || '}')`;
}

export const sqliteHooks = Object.freeze({
  placeholder: (_index: number): string => '?',
  quoteIdent,
  jsonObject,
  // The array as JSONB (SQLite 3.45+), which json_object embeds as it is:
  // JSON text would lose its subtype leaving the subquery and be parsed
  // again (7% of a user-with-two-lists statement). Yields '[]' for no rows.
  jsonArrayAgg: (valueExpr: string, orderBy: string): string =>
    orderBy === '' ? `jsonb_group_array(${valueExpr})` : `jsonb_group_array(${valueExpr} ORDER BY ${orderBy})`,
  embedArray: (expr: string): string => expr,
  embedJson: (expr: string): string => `json(${expr})`,
  jsonBoolean: (expr: string): string => `CASE ${expr} WHEN 1 THEN json('true') WHEN 0 THEN json('false') END`,
  // Stored as ISO-8601 text with milliseconds and Z already.
  jsonTimestamp: (expr: string): string => expr,
  jsonText: (expr: string): string => expr,
  jsonValue: (expr: string): string => `json(${expr})`,
  /**
   * A REAL rendered as PostgreSQL renders a double: SQLite writes `10.0` and
   * `1.0e+20` where PostgreSQL (and JavaScript) write `10` and `1e+20`.
   */
  jsonFloat: (expr: string): string =>
    `json(replace(replace(replace(json_quote(${expr}) || '~', '.0~', ''), '~', ''), '.0e', 'e'))`,
  // instr compares characters, so % and _ in the parameter are literal (LIKE would treat them as wildcards).
  contains: (column: string, param: string): string => `instr(${column}, ${param}) > 0`,
  // The first occurrence is at 1 exactly when the column starts with it (and '' is found at 1).
  startsWith: (column: string, param: string): string => `instr(${column}, ${param}) = 1`,
  // hex() is upper-case already; json_array writes the same compact text as JSON.stringify.
  cursorHex: (values: readonly string[]): string => `hex(json_array(${values.join(', ')}))`,
  concat: (parts: readonly string[]): string => `(${parts.join(' || ')})`,
  columnType: (scalar: 'ID' | 'String' | 'Int' | 'Float' | 'Boolean' | 'DateTime' | 'JSON'): string => SQLITE_TYPES[scalar],
}) satisfies SqlCompilerHooks;

/** STRICT tables accept only INTEGER, REAL, TEXT, BLOB and ANY. */
export const SQLITE_TYPES = Object.freeze({
  ID: 'TEXT',
  String: 'TEXT',
  Int: 'INTEGER',
  Float: 'REAL',
  Boolean: 'INTEGER',
  DateTime: 'TEXT',
  JSON: 'TEXT',
  BigInt: 'INTEGER',
  Serial: 'INTEGER',
} as const);
