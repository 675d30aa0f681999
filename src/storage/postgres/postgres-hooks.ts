import type { JsonList, JsonMember, SqlCompilerHooks } from '../dialect.js';

/**
 * PostgreSQL's spellings, chosen so that the JSON text PostgreSQL builds is
 * byte for byte what SQLite builds for the same row.
 *
 * JSON is spliced together as text, as on SQLite: each member's value is
 * written by `to_json` (the escaping and number format `row_to_json` uses)
 * or, a timestamp, by `to_char`; nested objects and arrays are the text
 * their subqueries built, and arrays are the objects' text joined by
 * `array_to_string` (`jsonArray`). No JSON text is parsed again, and no
 * record costs a subquery of its own (`json_build_object` and `json_agg`
 * pad with spaces; `row_to_json` costs a subplan a record: bench/HISTORY.md).
 */

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const sqlString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

/**
 * `to_json` needs a known type, which a bare string literal or parameter
 * lacks; they are text. Other expressions carry their type.
 */
function typed(expr: string): string {
  return /^'(?:[^']|'')*'$/.test(expr) || /^\$\d+$/.test(expr) || /^NULL$/i.test(expr) ? `${expr}::text` : expr;
}

/**
 * A member's value as JSON: nested JSON as it came (text), a timestamp by
 * `to_char`, anything else through `to_json`; SQL NULL is `null`. A JSON
 * column's value is its text already (json keeps it as written). Values
 * stay of type `json`: a cast to text would copy it twice more.
 */
function memberText([, value, kind]: JsonMember): string {
  if (kind === 'embedded') return value;
  if (kind === 'timestamp') return `coalesce(${isoTimestamp(value, QUOTED_ISO_FORMAT)}, 'null')`;
  return `coalesce(${kind === 'json' ? value : `to_json(${typed(value)})`}, 'null')`;
}

/** ISO-8601 in UTC with milliseconds, as JavaScript's `toISOString` writes it. */
const ISO_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
/** The same between JSON's quotes (`\"` is a literal `"` in `to_char`): it holds nothing to escape, so `to_json` would only copy it. */
const QUOTED_ISO_FORMAT = `\\"${ISO_FORMAT}\\"`;
const isoTimestamp = (expr: string, format: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', ${sqlString(format)})`;

/** Wider objects are written by one `format` call: a `||` chain copies all the text before each link, so it is quadratic in the width. */
const MAX_CHAINED_MEMBERS = 4;

function jsonObject(members: readonly JsonMember[]): string {
  return members.length === 0 ? `'{}'` : objectText(members, false);
}

/**
 * The object's text; `bare`, without its opening `{"<first key>":` and its
 * closing `}`, which `jsonArray` writes once for a whole array.
 */
function objectText(members: readonly JsonMember[], bare: boolean): string {
  if (members.length > MAX_CHAINED_MEMBERS) return formatAll(members, bare);
  // Each key, with the punctuation before it, is one string literal.
  const operands = members.flatMap((member, i) => [sqlString(`${i === 0 ? '{' : ','}${JSON.stringify(member[0])}:`), memberText(member)]);
  const text = bare ? operands.slice(1) : [...operands, `'}'`];
  return text.length === 1 ? (text[0] as string) : `(${text.join(' || ')})`;
}

/**
 * A page of objects as `'[{"a":' || array_to_string(ARRAY(page of bare
 * objects), '},{"a":') || '}]'`: the punctuation between two objects and
 * their first key are the separator, written by `array_to_string` as it
 * joins them, and no row's text is copied into an aggregate's state. An
 * object's text is never empty (every member writes at least `null`), so
 * an empty string is an empty page.
 */
function jsonArray({ members, rows, derived, order }: JsonList): string {
  const first = members[0];
  const [opening, element, closing] = first === undefined ? ['', `'{}'::text`, ''] : [`{${JSON.stringify(first[0])}:`, objectText(members, true), '}'];
  const page = rows(element);
  const elements = order === '' ? `ARRAY(${page})` : `ARRAY(SELECT ${derived}.j FROM (${page}) ${derived} ORDER BY ${order})`;
  return `coalesce(${sqlString(`[${opening}`)} || nullif(array_to_string(${elements}, ${sqlString(`${closing},${opening}`)}), '') || ${sqlString(`${closing}]`)}, '[]')`;
}

/** A function takes at most 100 arguments (FUNC_MAX_ARGS). */
const MAX_ARGS = 100;

/**
 * A wide object as `format('{"a":%s,"b":%s}', …)`: unlike `concat`, it looks
 * up an output function again only when the type changes. An object wider
 * than one call takes (the format string and 99 values) is written a call
 * at a time, the pieces joined by `concat`.
 */
function formatAll(members: readonly JsonMember[], bare: boolean): string {
  const pieces: string[] = [];
  for (let start = 0; start < members.length; start += MAX_ARGS - 1) {
    const chunk = members.slice(start, start + MAX_ARGS - 1);
    // `%` is format's one special character: a key's own is doubled.
    const keys = chunk.map((member, i) => `${bare && start + i === 0 ? '' : `${JSON.stringify(member[0]).replaceAll('%', '%%')}:`}%s`).join(',');
    const last = start + chunk.length === members.length;
    const template = `${start > 0 ? ',' : bare ? '' : '{'}${keys}${last && !bare ? '}' : ''}`;
    pieces.push(`format(${[sqlString(template), ...chunk.map(memberText)].join(', ')})`);
  }
  return pieces.length === 1 ? (pieces[0] as string) : concatAll(pieces);
}

/** `concat` of any number of text operands. */
function concatAll(operands: readonly string[]): string {
  if (operands.length <= MAX_ARGS) return `concat(${operands.join(', ')})`;
  const chunks: string[] = [];
  for (let i = 0; i < operands.length; i += MAX_ARGS) chunks.push(concatAll(operands.slice(i, i + MAX_ARGS)));
  return concatAll(chunks);
}

export const postgresHooks = Object.freeze({
  placeholder: (index: number): string => `$${index + 1}`,
  quoteIdent,
  jsonObject,
  jsonArray,
  // to_json writes a boolean as true/false already.
  jsonBoolean: (expr: string): string => `(${expr})`,
  jsonTimestamp: (expr: string): string => isoTimestamp(expr, ISO_FORMAT),
  jsonValue: (expr: string): string => `(${expr})::json`,
  // PostgreSQL writes doubles in the shortest form that reads back exactly, as JavaScript does.
  jsonFloat: (expr: string): string => `(${expr})`,
  // strpos and starts_with compare characters, so % and _ in the parameter are literal (LIKE would treat them as wildcards).
  contains: (column: string, param: string): string => `strpos(${column}, ${typed(param)}) > 0`,
  foldCase: (expr: string): string => `lower((${expr})::text COLLATE "C")`,
  startsWith: (column: string, param: string): string => `starts_with(${column}, ${typed(param)})`,
  // Compact JSON (as JSON.stringify writes it), as UTF-8, as upper-case hex.
  cursorHex: (values: readonly string[]): string =>
    `upper(encode(convert_to(array_to_json(ARRAY[${values.map((value) => `to_json(${typed(value)})`).join(', ')}])::text, 'UTF8'), 'hex'))`,
  // Each part as text: `||` on an unknown-typed literal or parameter is ambiguous otherwise.
  concat: (parts: readonly string[]): string => `(${parts.map((part) => `(${part})::text`).join(' || ')})`,
  idList: (param: string): string => `SELECT json_array_elements_text(${param}::json) AS id`,
  // A row comparison of these is one range of a b-tree on (length(id), id); a parameter is text (`typed`).
  idOrder: (expr: () => string): readonly string[] => [`length(${typed(expr())})`, expr()],
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
