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
 * record costs a subquery of its own. `json_build_object` and `json_agg`
 * would pad with spaces (`{"a" : 1}`, `[1, 2]`), and `row_to_json`
 * over a one-row subquery per record (the earlier spelling) cost a subplan a
 * record: measured on the benchmark's data, splicing took the W5 statement
 * (50 users with 5 posts each) from about 540 to 475 µs of PostgreSQL's CPU.
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
 * stay of type `json`: `||` and `format` take json as it is, where a cast
 * to text would copy it twice more (json has no binary cast to text; 5
 * members of 100,000 posts: 190 → 165 ms).
 */
function memberText([, value, kind]: JsonMember): string {
  if (kind === 'embedded') return value;
  if (kind === 'timestamp') return `coalesce(${isoTimestamp(value, QUOTED_ISO_FORMAT)}, 'null')`;
  return `coalesce(${kind === 'json' ? value : `to_json(${typed(value)})`}, 'null')`;
}

/** ISO-8601 in UTC with milliseconds, as JavaScript's `toISOString` writes it. */
const ISO_FORMAT = 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
/**
 * The same between JSON's quotes (`\"` is a literal `"` in a `to_char`
 * format): the text holds nothing JSON escapes, so `to_json` would only
 * copy it twice more. 100,000 posts' three timestamps: 1.72 → 1.30 µs a row.
 */
const QUOTED_ISO_FORMAT = `\\"${ISO_FORMAT}\\"`;
const isoTimestamp = (expr: string, format: string): string => `to_char((${expr}) AT TIME ZONE 'UTC', ${sqlString(format)})`;

/**
 * Objects of more members than this are written by one `format` call: each
 * `||` copies all the text before it, so a chain is quadratic in the
 * object's length, while `format` writes each piece once, from one string
 * holding all the keys. Measured in PostgreSQL's CPU a statement: a whole
 * user (27 members) 95 µs with `||` against 68 with `concat` (65 as
 * `row_to_json`); W5's objects of one or two members 470 µs with `||`
 * against about 510 with `concat`. `format` is no cheaper than `||` up to
 * four members (one: 0.54 against 0.51 µs a row; four: the same).
 */
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
 * an empty string is an empty page. Measured in a loop inside PostgreSQL
 * (`micro/pg-statement-cpu.mjs --loop`), same bytes, against
 * `string_agg` over the page: W5's statement (50 users with 5 titles each)
 * 302 → 275 µs, W4's 51.9 → 48.1; W9's, of objects of 10 and 27 members,
 * 186 → 184.
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
 * A wide object as `format('{"a":%s,"b":%s}', …)`. Unlike `concat`, which
 * looks up each argument's output function on every call, `format` looks
 * it up again only when the type changes from one argument to the next.
 * Measured in a loop inside PostgreSQL (`micro/pg-statement-cpu.mjs
 * --loop`), same bytes: W1's statement (one user) 18.5 → 16.7 µs, W2's (20
 * users) 177 → 171, W9's (21 records) 189 → 182. An object wider than one
 * call takes (the format string and 99 values) is written a call at a
 * time, the pieces joined by `concat`.
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
