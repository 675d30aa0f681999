/**
 * The permission rule language: the text of an `@allow` argument → a syntax
 * tree with offsets, knowing nothing of the model. `check-rule.ts` then
 * resolves its names against the model and produces the `RuleExpr` the
 * planner reads.
 *
 *   rule      = or
 *   or        = and { "||" and }
 *   and       = unary { "&&" unary }
 *   unary     = "!" unary | "(" or ")" | condition
 *   condition = operand [ compare operand | "in" "[" operand { "," operand } "]" ]
 *   compare   = "==" | "!=" | "<" | "<=" | ">" | ">="
 *   operand   = name { "." name } | string | number | "true" | "false" | "null"
 *
 * `!` applies to a parenthesized rule or to one operand: `!status == DRAFT`
 * is refused (`!(status == DRAFT)` or `status != DRAFT` says which).
 * Strings are in double quotes (`\"` and `\\` escape); names are
 * `[A-Za-z_][A-Za-z0-9_]*`.
 */

/** Offsets into the rule's text, end exclusive. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

export type CompareOp = 'eq' | 'ne' | 'lt' | 'lte' | 'gt' | 'gte';

export type OperandSyntax =
  /** A bare name or a dotted path: a field, an enum value or `auth.…`; the checker decides which. */
  | { readonly kind: 'path'; readonly names: readonly string[]; readonly spans: readonly Span[]; readonly span: Span }
  | { readonly kind: 'literal'; readonly value: string | number | boolean | null; readonly span: Span };

export type RuleSyntax =
  | { readonly kind: 'const'; readonly value: boolean; readonly span: Span }
  | { readonly kind: 'and' | 'or'; readonly items: readonly RuleSyntax[]; readonly span: Span }
  | { readonly kind: 'not'; readonly item: RuleSyntax; readonly span: Span }
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly opSpan: Span; readonly left: OperandSyntax; readonly right: OperandSyntax; readonly span: Span }
  | { readonly kind: 'in'; readonly item: OperandSyntax; readonly values: readonly OperandSyntax[]; readonly span: Span }
  /** An operand alone, such as a Boolean field: `!isPrivate`. */
  | { readonly kind: 'test'; readonly operand: OperandSyntax; readonly span: Span };

export type ParsedRule =
  | { readonly ok: true; readonly rule: RuleSyntax }
  | { readonly ok: false; readonly empty: boolean; readonly offset: number; readonly message: string };

/** Parentheses and `!` nest at most this deep, so a hostile schema cannot exhaust the stack. */
export const MAX_RULE_DEPTH = 32;

type TokenKind = 'name' | 'string' | 'number' | 'op' | 'end';

interface Token {
  readonly kind: TokenKind;
  /** The operator or name as written; a string's or number's decoded value is in `value`. */
  readonly text: string;
  readonly value: string | number | undefined;
  readonly start: number;
  readonly end: number;
}

const COMPARE_OPS: Readonly<Record<string, CompareOp>> = { '==': 'eq', '!=': 'ne', '<': 'lt', '<=': 'lte', '>': 'gt', '>=': 'gte' };
const TWO_CHAR_OPS = new Set(['||', '&&', '==', '!=', '<=', '>=']);
const ONE_CHAR_OPS = new Set(['!', '<', '>', '(', ')', '[', ']', ',', '.']);
const NAME = /[A-Za-z_][A-Za-z0-9_]*/y;
const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y;

class RuleSyntaxError extends Error {
  constructor(
    readonly offset: number,
    message: string,
  ) {
    super(message);
  }
}

export function parseRule(text: string): ParsedRule {
  if (text.trim() === '') return { ok: false, empty: true, offset: 0, message: 'The rule is empty.' };
  try {
    const parser = new Parser(tokenize(text));
    const rule = parser.or(0);
    parser.expectEnd();
    return { ok: true, rule };
  } catch (error) {
    if (!(error instanceof RuleSyntaxError)) throw error;
    return { ok: false, empty: false, offset: error.offset, message: error.message };
  }
}

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let at = 0;
  while (at < text.length) {
    const char = text.charAt(at);
    if (char === ' ' || char === '\t' || char === '\n' || char === '\r') {
      at++;
      continue;
    }
    const two = text.slice(at, at + 2);
    if (TWO_CHAR_OPS.has(two)) {
      tokens.push({ kind: 'op', text: two, value: undefined, start: at, end: at + 2 });
      at += 2;
      continue;
    }
    if (ONE_CHAR_OPS.has(char)) {
      tokens.push({ kind: 'op', text: char, value: undefined, start: at, end: at + 1 });
      at++;
      continue;
    }
    if (char === '"') {
      const token = readString(text, at);
      tokens.push(token);
      at = token.end;
      continue;
    }
    NUMBER.lastIndex = at;
    const number = NUMBER.exec(text);
    if (number !== null) {
      const end = at + number[0].length;
      const value = Number(number[0]);
      if (/[A-Za-z_.]/.test(text.charAt(end)) || !Number.isFinite(value)) throw new RuleSyntaxError(at, `Invalid number "${text.slice(at, end + 1).trimEnd()}".`);
      tokens.push({ kind: 'number', text: number[0], value, start: at, end });
      at = end;
      continue;
    }
    NAME.lastIndex = at;
    const name = NAME.exec(text);
    if (name !== null) {
      tokens.push({ kind: 'name', text: name[0], value: undefined, start: at, end: at + name[0].length });
      at += name[0].length;
      continue;
    }
    throw new RuleSyntaxError(at, unexpectedCharacter(char));
  }
  tokens.push({ kind: 'end', text: '', value: undefined, start: text.length, end: text.length });
  return tokens;
}

function unexpectedCharacter(char: string): string {
  switch (char) {
    case '=':
      return 'Unexpected "=": compare with "==".';
    case '&':
      return 'Unexpected "&": "and" is written "&&".';
    case '|':
      return 'Unexpected "|": "or" is written "||".';
    case "'":
      return 'Unexpected "\'": strings are written in double quotes.';
    default:
      return `Unexpected character "${char}".`;
  }
}

function readString(text: string, start: number): Token {
  let value = '';
  let at = start + 1;
  while (at < text.length) {
    const char = text.charAt(at);
    if (char === '"') return { kind: 'string', text: text.slice(start, at + 1), value, start, end: at + 1 };
    if (char === '\\') {
      const next = text.charAt(at + 1);
      if (next !== '"' && next !== '\\') throw new RuleSyntaxError(at, 'Unknown escape in a string: only \\" and \\\\ are escapes.');
      value += next;
      at += 2;
      continue;
    }
    value += char;
    at++;
  }
  throw new RuleSyntaxError(start, 'Unterminated string: it needs its closing double quote.');
}

function describe(token: Token): string {
  switch (token.kind) {
    case 'end':
      return 'the end of the rule';
    case 'string':
      return `the string ${token.text}`;
    case 'number':
      return `the number ${token.text}`;
    default:
      return `"${token.text}"`;
  }
}

class Parser {
  #at = 0;

  constructor(private readonly tokens: readonly Token[]) {}

  private get next(): Token {
    // The token list always ends with an 'end' token, and nothing reads past it.
    return this.tokens[this.#at] ?? (this.tokens[this.tokens.length - 1] as Token);
  }

  private take(): Token {
    const token = this.next;
    if (token.kind !== 'end') this.#at++;
    return token;
  }

  private isOp(text: string): boolean {
    return this.next.kind === 'op' && this.next.text === text;
  }

  private fail(expected: string): never {
    throw new RuleSyntaxError(this.next.start, `Expected ${expected}, found ${describe(this.next)}.`);
  }

  expectEnd(): void {
    if (this.next.kind === 'end') return;
    if (this.isOp(')')) throw new RuleSyntaxError(this.next.start, 'Unexpected ")": it closes no "(".');
    this.fail('"&&", "||" or the end of the rule');
  }

  or(depth: number): RuleSyntax {
    const first = this.and(depth);
    const items = [first];
    while (this.isOp('||')) {
      this.take();
      items.push(this.and(depth));
    }
    return items.length === 1 ? first : { kind: 'or', items, span: spanOf(first.span, items[items.length - 1]?.span ?? first.span) };
  }

  private and(depth: number): RuleSyntax {
    const first = this.unary(depth);
    const items = [first];
    while (this.isOp('&&')) {
      this.take();
      items.push(this.unary(depth));
    }
    return items.length === 1 ? first : { kind: 'and', items, span: spanOf(first.span, items[items.length - 1]?.span ?? first.span) };
  }

  private unary(depth: number): RuleSyntax {
    if (depth >= MAX_RULE_DEPTH) {
      throw new RuleSyntaxError(this.next.start, `The rule nests "(" and "!" more than ${MAX_RULE_DEPTH} deep.`);
    }
    const start = this.next.start;
    if (this.isOp('!')) {
      this.take();
      const parenthesized = this.isOp('(');
      const item = this.unary(depth + 1);
      if (!parenthesized && (item.kind === 'compare' || item.kind === 'in')) {
        throw new RuleSyntaxError(start, '"!" applies to the operand after it, not to the comparison: write !(…) around the comparison, or use "!=".');
      }
      return { kind: 'not', item, span: { start, end: item.span.end } };
    }
    if (this.isOp('(')) {
      this.take();
      const inner = this.or(depth + 1);
      if (!this.isOp(')')) this.fail('"&&", "||" or ")"');
      this.take();
      return inner;
    }
    return this.condition();
  }

  private condition(): RuleSyntax {
    const left = this.operand('a condition');
    const next = this.next;
    const op = next.kind === 'op' ? COMPARE_OPS[next.text] : undefined;
    if (op !== undefined) {
      this.take();
      const right = this.operand(`a value to compare with after "${next.text}"`);
      return { kind: 'compare', op, opSpan: { start: next.start, end: next.end }, left, right, span: spanOf(left.span, right.span) };
    }
    if (next.kind === 'name' && next.text === 'in') {
      this.take();
      if (!this.isOp('[')) this.fail('"[" after "in"');
      this.take();
      const values = [this.operand('a value in the list')];
      while (this.isOp(',')) {
        this.take();
        values.push(this.operand('a value after ","'));
      }
      if (!this.isOp(']')) this.fail('"," or "]"');
      const close = this.take();
      return { kind: 'in', item: left, values, span: { start: left.span.start, end: close.end } };
    }
    if (left.kind === 'literal' && typeof left.value === 'boolean') return { kind: 'const', value: left.value, span: left.span };
    return { kind: 'test', operand: left, span: left.span };
  }

  private operand(expected: string): OperandSyntax {
    const token = this.next;
    if (token.kind === 'string' || token.kind === 'number') {
      this.take();
      return { kind: 'literal', value: token.value ?? null, span: { start: token.start, end: token.end } };
    }
    if (token.kind !== 'name' || token.text === 'in') this.fail(expected);
    this.take();
    if (token.text === 'true' || token.text === 'false' || token.text === 'null') {
      const value = token.text === 'null' ? null : token.text === 'true';
      return { kind: 'literal', value, span: { start: token.start, end: token.end } };
    }
    const names = [token.text];
    const spans: Span[] = [{ start: token.start, end: token.end }];
    while (this.isOp('.')) {
      this.take();
      const part = this.next;
      if (part.kind !== 'name') this.fail('a name after "."');
      this.take();
      names.push(part.text);
      spans.push({ start: part.start, end: part.end });
    }
    return { kind: 'path', names, spans, span: { start: token.start, end: spans[spans.length - 1]?.end ?? token.end } };
  }
}

function spanOf(first: Span, last: Span): Span {
  return { start: first.start, end: last.end };
}
