import type { JsonList, JsonMember, SqlCompilerHooks } from '../dialect.js';

/**
 * SQLite's spellings. JSON is built by SQLite's JSON1 functions; values keep
 * their JSON-ness inside `json_object` only while they carry SQLite's JSON
 * subtype, which a subquery boundary drops.
 */

/** SQLite allows 1000 function arguments: 499 key/value pairs leave room to spare. */
const MAX_PAIRS = 499;

const quoteIdent = (name: string): string => `"${name.replaceAll('"', '""')}"`;
const sqlString = (value: string): string => `'${value.replaceAll("'", "''")}'`;

const objectCall = (members: readonly JsonMember[]): string =>
  `json_object(${members.map(([key, value]) => `${sqlString(key)}, ${value}`).join(', ')})`;

/**
 * An object whose members include JSON built by a nested subquery is spliced
 * together as text, because `json_object` would write that JSON, its subtype
 * lost at the subquery's boundary, as a string. Parsing it again to get the
 * subtype back (`json(…)`, or building the nested arrays as JSONB) cost a
 * parse of every nested object: measured in-process on the benchmark's
 * data, splicing made the statement for a user with 10 posts and 10
 * followers 28% cheaper and W4's 13% cheaper; in a server under load, CPU
 * per request fell 12% on W9 and 6% on W5 (W4: no change), for
 * byte-identical output.
 *
 * Runs of the other members are still written by one `json_object` each,
 * with the braces cut off: `substr(…, 2)` drops the `{`, which is always one
 * character, and `rtrim(…, '}')` the `}`, which is one character only when
 * the run's last value cannot itself end in `}`. So a JSON column's value
 * (which may be an object) never ends a run that is followed by more
 * members: it is written on its own by `json_quote`, as nested JSON is
 * spliced in as it came. Objects wider than one call allows are spliced the
 * same way, in runs of at most 499 members.
 */
function jsonObject(members: readonly JsonMember[]): string {
  if (members.length <= MAX_PAIRS && !members.some(([, , kind]) => kind === 'embedded')) return objectCall(members);
  const pieces = splitIntoPieces(members);
  // Operands of `||`, adjacent literal text merged into one string literal.
  const operands: (string | { text: string })[] = [];
  const literal = (text: string): void => {
    const previous = operands.at(-1);
    if (typeof previous === 'object') previous.text += text;
    else operands.push({ text });
  };
  pieces.forEach((piece, i) => {
    const first = i === 0;
    const last = i === pieces.length - 1;
    if (!first) literal(',');
    if (piece.kind === 'run') {
      // Its `{` opens the object when it comes first, its `}` closes it when it comes last.
      const call = objectCall(piece.members);
      const open = last ? call : `rtrim(${call}, '}')`;
      operands.push(first ? open : `substr(${open}, 2)`);
      return;
    }
    const [key, value, kind] = piece.member;
    literal(`${first ? '{' : ''}${JSON.stringify(key)}:`);
    operands.push(kind === 'embedded' ? value : `json_quote(${value})`);
    if (last) literal('}');
  });
  return `(${operands.map((operand) => (typeof operand === 'string' ? operand : sqlString(operand.text))).join(' || ')})`;
}

type Piece = { readonly kind: 'run'; readonly members: readonly JsonMember[] } | { readonly kind: 'alone'; readonly member: JsonMember };

/**
 * Runs of at most MAX_PAIRS plain and JSON-column members, with nested JSON
 * on its own between them; a run followed by more never ends with a JSON
 * column's value (that one goes on its own instead).
 */
function splitIntoPieces(members: readonly JsonMember[]): Piece[] {
  const pieces: Piece[] = [];
  let run: JsonMember[] = [];
  const endRun = (): void => {
    const last = run.at(-1);
    const mayEndInBrace = last?.[2] === 'json';
    if (mayEndInBrace) run.pop();
    if (run.length > 0) pieces.push({ kind: 'run', members: run });
    if (mayEndInBrace) pieces.push({ kind: 'alone', member: last });
    run = [];
  };
  for (const member of members) {
    if (member[2] === 'embedded') {
      endRun();
      pieces.push({ kind: 'alone', member });
    } else {
      if (run.length === MAX_PAIRS) endRun();
      run.push(member);
    }
  }
  if (run.length > 0) pieces.push({ kind: 'run', members: run });
  return pieces;
}

/** The SQL function the scan guard calls (registered on each connection by open-sqlite.ts). */
export const DEADLINE_FUNCTION = 'diglot_deadline';

export const sqliteHooks = Object.freeze({
  /**
   * `+?`, not `?`: the unary plus is compiled away, but it hides the variable
   * from the planner. SQLite marks a statement to be prepared again when a
   * parameter it looked at while planning (`LIMIT ?` is one) is bound anew,
   * and better-sqlite3 clears the bindings after every run, which counts:
   * every page and nested list was parsed and planned again on each request
   * (bench/HISTORY.md). No value of a parameter chooses a plan here, so the
   * plans are the same.
   */
  placeholder: (_index: number): string => '+?',
  quoteIdent,
  jsonObject,
  // The objects' text joined as it is (never parsed again), spliced into
  // the parent object by jsonObject. Yields '[]' for no rows.
  jsonArray: ({ members, rows, derived, order }: JsonList): string =>
    `(SELECT ('[' || coalesce(group_concat(${derived}.j, ','${order === '' ? '' : ` ORDER BY ${order}`}), '') || ']') FROM (${rows(jsonObject(members))}) ${derived})`,
  /**
   * true and false as JSONB (SQLite ≥ 3.45), which json_object takes as JSON:
   * x'01' and x'02' are the one-byte JSONB elements TRUE and FALSE. They are
   * constants, where json('true') parsed its text again for every value.
   */
  jsonBoolean: (expr: string): string => `CASE ${expr} WHEN 1 THEN x'01' WHEN 0 THEN x'02' END`,
  // Stored as ISO-8601 text with milliseconds and Z already (so a `timestamp` member is written as the plain text it is).
  jsonTimestamp: (expr: string): string => expr,
  jsonValue: (expr: string): string => `json(${expr})`,
  /**
   * A REAL rendered as PostgreSQL renders a double: SQLite writes `10.0` and
   * `1.0e+20` where PostgreSQL (and JavaScript) write `10` and `1e+20`.
   */
  jsonFloat: (expr: string): string =>
    `json(replace(replace(replace(json_quote(${expr}) || '~', '.0~', ''), '~', ''), '.0e', 'e'))`,
  // instr compares characters, so % and _ in the parameter are literal (LIKE would treat them as wildcards).
  contains: (column: string, param: string): string => `instr(${column}, ${param}) > 0`,
  foldCase: (expr: string): string => `lower(${expr})`,
  // The first occurrence is at 1 exactly when the column starts with it (and '' is found at 1).
  startsWith: (column: string, param: string): string => `instr(${column}, ${param}) = 1`,
  // hex() is upper-case already; json_array writes the same compact text as JSON.stringify.
  cursorHex: (values: readonly string[]): string => `hex(json_array(${values.join(', ')}))`,
  concat: (parts: readonly string[]): string => `(${parts.join(' || ')})`,
  idList: (param: string): string => `SELECT value AS id FROM json_each(${param})`,
  /**
   * One term, the length as a character (ids are 1 to 64 ASCII characters:
   * util/ids.ts) before the id: SQLite seeks an index only on a
   * bound of its first differing column, never on a row value of
   * expressions, so `(length(id), id) > (…)` would scan every id of the
   * cursor's length before it (all of them, for generated ids).
   */
  idOrder: (expr: () => string): readonly string[] => [`(char(length(${expr()})) || ${expr()})`],
  /**
   * better-sqlite3 runs a statement on this thread and offers neither
   * sqlite3_interrupt nor a progress handler, so the budget is checked from
   * inside the scan: every 256th rowid calls `diglot_deadline()`
   * (open-sqlite.ts), which throws once the budget is spent. The bit test
   * costs next to nothing per row and the call is made for one row in 256.
   */
  scanGuard: (alias: string): string => `((${alias}._rowid_ & 255) <> 0 OR ${DEADLINE_FUNCTION}())`,
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
