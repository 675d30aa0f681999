import { describe, expect, it } from 'vitest';
import { MAX_RULE_DEPTH, parseRule, type OperandSyntax, type RuleSyntax } from './parse-rule.js';

function parse(text: string): RuleSyntax {
  const parsed = parseRule(text);
  if (!parsed.ok) expect.fail(`${text}: ${parsed.message} at ${parsed.offset}`);
  return parsed.rule;
}

function failure(text: string): { offset: number; message: string; empty: boolean } {
  const parsed = parseRule(text);
  if (parsed.ok) expect.fail(`${text} parsed`);
  return { offset: parsed.offset, message: parsed.message, empty: parsed.empty };
}

/** The tree without offsets, as a compact string: precedence shows as nesting. */
function shape(rule: RuleSyntax): string {
  switch (rule.kind) {
    case 'const':
      return String(rule.value);
    case 'and':
    case 'or':
      return `${rule.kind}(${rule.items.map(shape).join(', ')})`;
    case 'not':
      return `not(${shape(rule.item)})`;
    case 'compare':
      return `${rule.op}(${operand(rule.left)}, ${operand(rule.right)})`;
    case 'in':
      return `in(${operand(rule.item)}, [${rule.values.map(operand).join(', ')}])`;
    case 'test':
      return `test(${operand(rule.operand)})`;
  }
}

function operand(syntax: OperandSyntax): string {
  return syntax.kind === 'path' ? syntax.names.join('.') : JSON.stringify(syntax.value);
}

describe('parseRule', () => {
  it('binds && tighter than ||, and ! tighter than both', () => {
    expect(shape(parse('a == 1 || b == 2 && c == 3'))).toBe('or(eq(a, 1), and(eq(b, 2), eq(c, 3)))');
    expect(shape(parse('a == 1 && b == 2 || c == 3'))).toBe('or(and(eq(a, 1), eq(b, 2)), eq(c, 3))');
    expect(shape(parse('!isPrivate && x != null'))).toBe('and(not(test(isPrivate)), ne(x, null))');
    expect(shape(parse('(a == 1 || b == 2) && c == 3'))).toBe('and(or(eq(a, 1), eq(b, 2)), eq(c, 3))');
    expect(shape(parse('!(a == 1 || !b)'))).toBe('not(or(eq(a, 1), not(test(b))))');
    expect(shape(parse('a || b || c'))).toBe('or(test(a), test(b), test(c))');
  });

  it('reads every comparison, in, literals and paths', () => {
    expect(shape(parse('n < 1 || n <= 2.5 || n > -3 || n >= 1e3'))).toBe('or(lt(n, 1), lte(n, 2.5), gt(n, -3), gte(n, 1000))');
    expect(shape(parse('auth.role in [MODERATOR, ADMIN]'))).toBe('in(auth.role, [MODERATOR, ADMIN])');
    expect(shape(parse('order.customer == auth.id'))).toBe('eq(order.customer, auth.id)');
    expect(shape(parse('auth.app_metadata.plan == "pro \\"max\\" \\\\ x"'))).toBe('eq(auth.app_metadata.plan, "pro \\"max\\" \\\\ x")');
    expect(shape(parse('true'))).toBe('true');
    expect(shape(parse('  false  '))).toBe('false');
    expect(shape(parse('flag == true && other != false && x == null'))).toBe('and(eq(flag, true), ne(other, false), eq(x, null))');
    expect(shape(parse('status == PUBLISHED\n  || author == auth.id'))).toBe('or(eq(status, PUBLISHED), eq(author, auth.id))');
  });

  it('keeps offsets of every operand and operator', () => {
    const rule = parse('status == PUBLISHED || order.customer != auth.id');
    if (rule.kind !== 'or') expect.fail(rule.kind);
    const [first, second] = rule.items;
    if (first?.kind !== 'compare' || second?.kind !== 'compare') expect.fail('two comparisons');
    expect(first.left.span).toEqual({ start: 0, end: 6 });
    expect(first.opSpan).toEqual({ start: 7, end: 9 });
    expect(first.right.span).toEqual({ start: 10, end: 19 });
    expect(second.left).toMatchObject({ names: ['order', 'customer'], spans: [{ start: 23, end: 28 }, { start: 29, end: 37 }] });
    expect(second.opSpan).toEqual({ start: 38, end: 40 });
  });

  it('says what it expected, and where', () => {
    expect(failure('status == ')).toEqual({ offset: 10, empty: false, message: 'Expected a value to compare with after "==", found the end of the rule.' });
    expect(failure('a == 1 b == 2')).toMatchObject({ offset: 7, message: 'Expected "&&", "||" or the end of the rule, found "b".' });
    expect(failure('(a == 1 || b == 2')).toMatchObject({ offset: 17, message: 'Expected "&&", "||" or ")", found the end of the rule.' });
    expect(failure('a == 1)')).toMatchObject({ offset: 6, message: 'Unexpected ")": it closes no "(".' });
    expect(failure('x in MODERATOR')).toMatchObject({ offset: 5, message: 'Expected "[" after "in", found "MODERATOR".' });
    expect(failure('x in [A, B')).toMatchObject({ offset: 10, message: 'Expected "," or "]", found the end of the rule.' });
    expect(failure('x in []')).toMatchObject({ offset: 6, message: 'Expected a value in the list, found "]".' });
    expect(failure('auth. == 1')).toMatchObject({ offset: 6, message: 'Expected a name after ".", found "==".' });
    expect(failure('a || && b')).toMatchObject({ offset: 5, message: 'Expected a condition, found "&&".' });
  });

  it('explains the mistakes people make', () => {
    expect(failure('a = 1')).toMatchObject({ offset: 2, message: 'Unexpected "=": compare with "==".' });
    expect(failure('a == 1 & b')).toMatchObject({ offset: 7, message: 'Unexpected "&": "and" is written "&&".' });
    expect(failure('a == 1 | b')).toMatchObject({ offset: 7, message: 'Unexpected "|": "or" is written "||".' });
    expect(failure("name == 'Ada'")).toMatchObject({ offset: 8, message: 'Unexpected "\'": strings are written in double quotes.' });
    expect(failure('name == "Ada')).toMatchObject({ offset: 8, message: 'Unterminated string: it needs its closing double quote.' });
    expect(failure('name == "A\\nda"')).toMatchObject({ offset: 10 });
    expect(failure('n == 12abc')).toMatchObject({ offset: 5, message: 'Invalid number "12a".' });
    expect(failure('!status == DRAFT')).toMatchObject({ offset: 0, message: expect.stringContaining('write !(…) around the comparison') });
  });

  it('calls a blank rule empty', () => {
    expect(failure('')).toMatchObject({ empty: true, offset: 0 });
    expect(failure('  \n ')).toMatchObject({ empty: true });
  });

  it('bounds nesting, so a hostile rule cannot exhaust the stack', () => {
    const deep = (levels: number): string => `${'('.repeat(levels)}a == 1${')'.repeat(levels)}`;
    expect(shape(parse(deep(MAX_RULE_DEPTH - 1)))).toBe('eq(a, 1)');
    expect(failure(deep(MAX_RULE_DEPTH))).toMatchObject({ offset: MAX_RULE_DEPTH, message: `The rule nests "(" and "!" more than ${MAX_RULE_DEPTH} deep.` });
    expect(failure('!'.repeat(10_000) + 'a')).toMatchObject({ offset: MAX_RULE_DEPTH });
  });
});
