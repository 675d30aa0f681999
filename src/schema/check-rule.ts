import { Kind } from 'graphql';
import { suggest } from '../util/suggest.js';
import { coerceDefault } from './coerce-default.js';
import type { Field, ScalarName } from './model.js';
import type { CompareOp, OperandSyntax, RuleSyntax, Span } from './parse-rule.js';
import type { Roles } from './read-roles.js';
import type { RuleExpr, RuleOperand } from './rules.js';
import type { SchemaProblemCode } from './schema-problem.js';

/** What a rule may name: every type's fields, the enums and the role enum. */
export interface RuleScope {
  /** The type whose records the rule is about. */
  readonly owner: string;
  readonly types: ReadonlyMap<string, ScopeType>;
  readonly enums: ReadonlyMap<string, readonly string[]>;
  readonly roles: Roles;
}

export interface ScopeType {
  readonly fields: ReadonlyMap<string, Field>;
  /** Every field name declared, built or not: naming one that failed to build was reported already. */
  readonly declared: ReadonlySet<string>;
}

export type ReportRuleProblem = (span: Span, code: SchemaProblemCode, message: string, suggestion?: string) => void;

/** What one side of a comparison turned out to be, with what messages and type checks need. */
type Resolved =
  | { readonly kind: 'field'; readonly path: readonly string[]; readonly type: FieldType; readonly span: Span }
  | { readonly kind: 'auth'; readonly path: readonly string[]; readonly member: 'id' | 'role' | 'claim'; readonly span: Span }
  | { readonly kind: 'literal'; readonly value: string | number | boolean | null; readonly span: Span }
  | { readonly kind: 'enumValue'; readonly value: string; readonly span: Span }
  /** A bare name, field or enum value: the other side decides. */
  | { readonly kind: 'name'; readonly name: string; readonly span: Span };

type FieldType =
  | { readonly kind: 'scalar'; readonly scalar: Exclude<ScalarName, 'JSON'> }
  | { readonly kind: 'enum'; readonly name: string }
  | { readonly kind: 'ref'; readonly target: string };

const ORDERING: ReadonlySet<CompareOp> = new Set(['lt', 'lte', 'gt', 'gte']);
const OP_TEXT: Readonly<Record<CompareOp, string>> = { eq: '==', ne: '!=', lt: '<', lte: '<=', gt: '>', gte: '>=' };
const INT_MIN = -(2 ** 31);
const INT_MAX = 2 ** 31 - 1;

/**
 * Resolves a parsed rule against the model and type-checks it: every name
 * is a field of the type (through to-one relations), an enum value or
 * `auth.…`; every comparison is between a field or `auth.…` and something
 * of a fitting type. Reports every problem it finds and returns the
 * planner's `RuleExpr`, or undefined when anything was wrong.
 *
 * A bare name is an enum value when the other side is of an enum that has
 * it (`status == PUBLISHED`), otherwise a field; `auth` always means the
 * principal. `author.id` is written `author` in the result, since a to-one
 * relation compares by id.
 */
export function checkRule(rule: RuleSyntax, scope: RuleScope, report: ReportRuleProblem): RuleExpr | undefined {
  let reported = 0;
  const checker = new Checker(scope, (span, code, message, suggestion) => {
    reported++;
    report(span, code, message, suggestion);
  });
  const expr = checker.expr(rule);
  return reported === 0 ? expr : undefined;
}

class Checker {
  constructor(
    private readonly scope: RuleScope,
    private readonly report: ReportRuleProblem,
  ) {}

  expr(rule: RuleSyntax): RuleExpr {
    switch (rule.kind) {
      case 'const':
        return { kind: 'const', value: rule.value };
      case 'and':
      case 'or': {
        const items = rule.items.flatMap((item) => {
          const checked = this.expr(item);
          return checked.kind === rule.kind ? checked.items : [checked];
        });
        return { kind: rule.kind, items };
      }
      case 'not':
        return { kind: 'not', item: this.expr(rule.item) };
      case 'compare': {
        const pair = this.pair(rule.left, rule.right, rule.op, rule.opSpan);
        return { kind: 'compare', op: rule.op, left: pair?.[0] ?? NOTHING, right: pair?.[1] ?? NOTHING };
      }
      case 'in':
        return this.inList(rule.item, rule.values);
      case 'test':
        return this.test(rule.operand);
    }
  }

  /** `a == b` and the like: at most one side a field, and types that fit. */
  private pair(leftSyntax: OperandSyntax, rightSyntax: OperandSyntax, op: CompareOp, opSpan: Span): [RuleOperand, RuleOperand] | undefined {
    let left = this.classify(leftSyntax);
    let right = this.classify(rightSyntax);
    if (left?.kind === 'name' && right?.kind === 'name') {
      // `PUBLISHED == status`: the side that is a field gives the other its meaning.
      if (!this.isOwnField(left.name) && this.isOwnField(right.name)) right = this.nameAsField(right);
      else left = this.nameAsField(left);
    }
    if (left?.kind === 'name' && right !== undefined) left = this.resolveName(left, right);
    if (right?.kind === 'name' && left !== undefined) right = this.resolveName(right, left);
    if (left === undefined || right === undefined || left.kind === 'name' || right.kind === 'name') return undefined;
    const checked = this.compatible(left, right, op, opSpan);
    if (checked === undefined) return undefined;
    return [operandOf(checked[0]), operandOf(checked[1])];
  }

  private inList(itemSyntax: OperandSyntax, valueSyntaxes: readonly OperandSyntax[]): RuleExpr {
    let item = this.classify(itemSyntax);
    const values = valueSyntaxes.map((value) => this.classify(value));
    if (item?.kind === 'name') {
      const context = values.find((value) => value !== undefined && value.kind !== 'name');
      item = context === undefined ? this.nameAsField(item) : this.resolveName(item, context);
    }
    const operands: RuleOperand[] = [];
    let itemOperand: RuleOperand = NOTHING;
    for (let value of values) {
      if (item === undefined || item.kind === 'name') break;
      if (value?.kind === 'name') value = this.resolveName(value, item);
      if (value === undefined || value.kind === 'name') continue;
      const checked = this.compatible(item, value, 'eq', value.span);
      if (checked === undefined) continue;
      itemOperand = operandOf(checked[0]);
      operands.push(operandOf(checked[1]));
    }
    return { kind: 'in', item: itemOperand, values: operands };
  }

  /** An operand alone is a condition only when it is a Boolean: `isPrivate`, `auth.email_verified`. */
  private test(syntax: OperandSyntax): RuleExpr {
    let operand = this.classify(syntax);
    if (operand?.kind === 'name') operand = this.nameAsField(operand);
    if (operand === undefined || operand.kind === 'name') return NOTHING_EXPR;
    const isBoolean = (operand.kind === 'field' && operand.type.kind === 'scalar' && operand.type.scalar === 'Boolean') || (operand.kind === 'auth' && operand.member === 'claim');
    if (!isBoolean) {
      this.report(operand.span, 'RULE_TYPE_MISMATCH', `${this.describe(operand)} is not a condition: compare it with something, as in ${this.text(operand)} == …`);
      return NOTHING_EXPR;
    }
    return { kind: 'compare', op: 'eq', left: operandOf(operand), right: { kind: 'value', value: true } };
  }

  private classify(syntax: OperandSyntax): Resolved | undefined {
    if (syntax.kind === 'literal') return { kind: 'literal', value: syntax.value, span: syntax.span };
    const [head] = syntax.names;
    if (head === 'auth') return this.auth(syntax);
    if (syntax.names.length === 1 && head !== undefined) return { kind: 'name', name: head, span: syntax.span };
    return this.field(syntax.names, syntax.spans);
  }

  private auth(syntax: Extract<OperandSyntax, { kind: 'path' }>): Resolved | undefined {
    const [, member, ...rest] = syntax.names;
    if (member === undefined) {
      this.report(syntax.span, 'RULE_BAD_PATH', '"auth" is the principal: name one of its members, auth.id, auth.role or a claim such as auth.email.');
      return undefined;
    }
    const path = syntax.names.slice(1);
    if (member !== 'id' && member !== 'role') return { kind: 'auth', path, member: 'claim', span: syntax.span };
    if (rest.length > 0) {
      this.report(syntax.spans[2] ?? syntax.span, 'RULE_BAD_PATH', `auth.${member} is a single value; it has no member "${rest.join('.')}".`);
      return undefined;
    }
    if (member === 'role' && this.scope.roles.set === undefined) {
      // A broken @roles is reported where it is written; only a missing one is reported here.
      if (!this.scope.roles.marked) {
        this.report(syntax.span, 'RULE_NO_ROLES', 'auth.role needs a role enum: mark one with @roles, as in enum Role @roles(admin: "ADMIN").');
      }
      return undefined;
    }
    return { kind: 'auth', path, member, span: syntax.span };
  }

  /** A field path from the rule's type, through to-one relations only. */
  private field(names: readonly string[], spans: readonly Span[]): Resolved | undefined {
    let typeName = this.scope.owner;
    const path: string[] = [];
    const whole: Span = { start: spans[0]?.start ?? 0, end: spans[spans.length - 1]?.end ?? 0 };
    for (let index = 0; index < names.length; index++) {
      const name = names[index] as string;
      const span = spans[index] ?? whole;
      const type = this.scope.types.get(typeName);
      if (type === undefined) return undefined;
      const field = type.fields.get(name);
      const last = index === names.length - 1;
      if (field === undefined) {
        if (!type.declared.has(name)) {
          this.report(span, 'RULE_UNKNOWN_FIELD', `"${name}" is not a field of ${typeName}.`, suggest(name, type.fields.keys()));
        }
        return undefined;
      }
      const written = [...path, name].join('.');
      if (!last) {
        if (field.kind === 'toOne') {
          path.push(name);
          typeName = field.target;
          continue;
        }
        if (field.kind === 'toMany' || field.kind === 'manyToMany') {
          this.report(span, 'RULE_BAD_PATH', listMessage(written, field.target));
        } else {
          this.report(spans[index + 1] ?? span, 'RULE_BAD_PATH', `"${written}" is not a relation, so it has no field "${names[index + 1] ?? ''}".`);
        }
        return undefined;
      }
      // `author.id` is `author`: a to-one relation compares by the id it holds.
      if (name === 'id' && path.length > 0) return { kind: 'field', path, type: { kind: 'ref', target: typeName }, span: whole };
      const valueType = this.fieldType(field, written, span);
      if (valueType === undefined) return undefined;
      return { kind: 'field', path: [...path, name], type: valueType, span: whole };
    }
    return undefined;
  }

  private fieldType(field: Field, written: string, span: Span): FieldType | undefined {
    switch (field.kind) {
      case 'toOne':
        return { kind: 'ref', target: field.target };
      case 'toMany':
      case 'manyToMany':
        this.report(span, 'RULE_BAD_PATH', listMessage(written, field.target));
        return undefined;
      case 'file':
        this.report(span, 'RULE_BAD_PATH', `"${written}" is a file, which rules cannot compare.`);
        return undefined;
      case 'scalar':
        if (field.list) {
          this.report(span, 'RULE_BAD_PATH', `"${written}" is a list: a list cannot be compared.`);
          return undefined;
        }
        if (field.scalar === 'JSON') {
          this.report(span, 'RULE_BAD_PATH', `"${written}" is JSON, which rules cannot compare.`);
          return undefined;
        }
        return field.enum === undefined ? { kind: 'scalar', scalar: field.scalar } : { kind: 'enum', name: field.enum };
    }
  }

  private isOwnField(name: string): boolean {
    const owner = this.scope.types.get(this.scope.owner);
    return owner?.fields.has(name) === true || owner?.declared.has(name) === true;
  }

  private nameAsField(name: Extract<Resolved, { kind: 'name' }>): Resolved | undefined {
    return this.field([name.name], [name.span]);
  }

  /** A bare name: a value of the other side's enum, else a field of the type. */
  private resolveName(name: Extract<Resolved, { kind: 'name' }>, other: Resolved): Resolved | undefined {
    const enumName = this.enumOf(other);
    const values = enumName === undefined ? undefined : (this.scope.enums.get(enumName) ?? []);
    if (values?.includes(name.name) === true) return { kind: 'enumValue', value: name.name, span: name.span };
    const owner = this.scope.types.get(this.scope.owner);
    if (owner?.fields.has(name.name) === true) return this.nameAsField(name);
    if (owner?.declared.has(name.name) === true) return undefined;
    if (enumName !== undefined && values !== undefined) {
      this.report(
        name.span,
        'RULE_TYPE_MISMATCH',
        `${name.name} is not a value of enum ${enumName} (${values.join(', ')}), which ${this.text(other)} holds.`,
        suggest(name.name, values),
      );
      return undefined;
    }
    const enumsWithIt = [...this.scope.enums].filter(([, enumValues]) => enumValues.includes(name.name)).map(([holder]) => holder);
    if (enumsWithIt.length > 0 && other.kind === 'auth' && other.member === 'claim') return { kind: 'enumValue', value: name.name, span: name.span };
    if (enumsWithIt.length > 0) {
      this.report(name.span, 'RULE_TYPE_MISMATCH', `${name.name} is a value of enum ${enumsWithIt.join(', ')}; ${this.describe(other)} cannot be compared with it.`);
      return undefined;
    }
    // Against text, a bare word was probably meant as a string.
    const otherDomain = this.domainOf(other);
    const quoted = ['String', 'DateTime', 'any'].includes(otherDomain) || (other.kind === 'literal' && typeof other.value === 'string');
    this.report(
      name.span,
      'RULE_UNKNOWN_FIELD',
      `"${name.name}" is not a field of ${this.scope.owner}${quoted ? ' (a string is written in double quotes)' : ''}.`,
      suggest(name.name, owner?.fields.keys() ?? []),
    );
    return undefined;
  }

  private enumOf(operand: Resolved): string | undefined {
    if (operand.kind === 'field' && operand.type.kind === 'enum') return operand.type.name;
    if (operand.kind === 'auth' && operand.member === 'role') return this.scope.roles.set?.enum;
    return undefined;
  }

  /**
   * Whether the two sides can be compared by `op`; returns them, a DateTime
   * literal normalized to the form the column stores, or undefined once the
   * reason is reported.
   */
  private compatible(left: Resolved, right: Resolved, op: CompareOp, opSpan: Span): [Resolved, Resolved] | undefined {
    if (left.kind === 'field' && right.kind === 'field') {
      this.report(
        right.span,
        'RULE_FIELD_COMPARISON',
        `A rule cannot compare two fields of the record ("${left.path.join('.')}" and "${right.path.join('.')}"): compare a field with auth.… or a value.`,
      );
      return undefined;
    }
    if (ORDERING.has(op)) {
      for (const side of [left, right]) {
        if (this.orderable(side)) continue;
        this.report(opSpan, 'RULE_TYPE_MISMATCH', `"${OP_TEXT[op]}" orders numbers, strings and dates; ${this.describe(side)} has no order.`);
        return undefined;
      }
    }
    // The side whose type is known from the model decides what the other may be.
    const [typed, other] = this.rank(left) >= this.rank(right) ? [left, right] : [right, left];
    const fitted = this.fit(typed, other);
    if (fitted === undefined) {
      const enumName = this.enumOf(typed);
      const quotedValue = enumName !== undefined && other.kind === 'literal' && typeof other.value === 'string' ? other.value : undefined;
      const hint = quotedValue === undefined ? '' : ' (enum values are written without quotes)';
      const known = quotedValue !== undefined && (this.scope.enums.get(enumName ?? '')?.includes(quotedValue) ?? false);
      this.report(other.span, 'RULE_TYPE_MISMATCH', `${this.describe(other)} cannot be compared with ${this.describe(typed)}${hint}.`, known ? quotedValue : undefined);
      return undefined;
    }
    return typed === left ? [left, fitted] : [fitted, right];
  }

  /** How much a side's type says: a field's most, then auth's, then a value's. */
  private rank(operand: Resolved): number {
    if (operand.kind === 'field') return 3;
    if (operand.kind === 'auth') return operand.member === 'claim' ? 1 : 2;
    return 0;
  }

  /** `other` as it may be compared with `typed`, or undefined when it does not fit. */
  private fit(typed: Resolved, other: Resolved): Resolved | undefined {
    const domain = this.domainOf(typed);
    if (domain === 'any' || (other.kind === 'literal' && other.value === null)) return other;
    if (other.kind === 'literal') return this.fitLiteral(domain, other);
    if (other.kind === 'enumValue') {
      const values = domain.startsWith('enum:') ? this.scope.enums.get(domain.slice('enum:'.length)) : undefined;
      return domain === 'literal' || values?.includes(other.value) === true ? other : undefined;
    }
    const otherDomain = this.domainOf(other);
    if (otherDomain === 'any' || domain === 'literal') return other;
    const same = domain === otherDomain || (isIdLike(domain) && isIdLike(otherDomain)) || (isNumeric(domain) && isNumeric(otherDomain));
    return same ? other : undefined;
  }

  private fitLiteral(domain: string, literal: Extract<Resolved, { kind: 'literal' }>): Resolved | undefined {
    const { value } = literal;
    switch (domain) {
      case 'literal':
        return literal;
      case 'String':
      case 'ID':
        return typeof value === 'string' ? literal : undefined;
      case 'Boolean':
        return typeof value === 'boolean' ? literal : undefined;
      case 'Float':
        return typeof value === 'number' ? literal : undefined;
      case 'Int':
        return typeof value === 'number' && Number.isInteger(value) && value >= INT_MIN && value <= INT_MAX ? literal : undefined;
      case 'DateTime': {
        if (typeof value !== 'string') return undefined;
        const coerced = coerceDefault({ kind: Kind.STRING, value }, { scalar: 'DateTime', enumValues: undefined, enumName: undefined, list: false, itemNullable: false });
        return coerced.ok ? { ...literal, value: coerced.value as string } : undefined;
      }
      default:
        // A ref or auth.id takes an id literal; an enum takes only its bare values.
        return domain.startsWith('ref:') && typeof value === 'string' ? literal : undefined;
    }
  }

  /** The set of values a side ranges over: a scalar's name, `enum:E`, `ref:T`, `any` (a claim) or `literal`. */
  private domainOf(operand: Resolved): string {
    switch (operand.kind) {
      case 'field':
        if (operand.type.kind === 'scalar') return operand.type.scalar;
        return operand.type.kind === 'enum' ? `enum:${operand.type.name}` : `ref:${operand.type.target}`;
      case 'auth':
        if (operand.member === 'claim') return 'any';
        return operand.member === 'id' ? 'ref:' : `enum:${this.scope.roles.set?.enum ?? ''}`;
      default:
        return 'literal';
    }
  }

  private orderable(operand: Resolved): boolean {
    switch (operand.kind) {
      case 'field':
        return operand.type.kind === 'scalar' && ['Int', 'Float', 'String', 'DateTime'].includes(operand.type.scalar);
      case 'auth':
        return operand.member === 'claim';
      case 'literal':
        return typeof operand.value === 'number' || typeof operand.value === 'string';
      default:
        return false;
    }
  }

  private text(operand: Resolved): string {
    switch (operand.kind) {
      case 'field':
        return operand.path.join('.');
      case 'auth':
        return `auth.${operand.path.join('.')}`;
      case 'literal':
        return JSON.stringify(operand.value);
      case 'enumValue':
        return operand.value;
      case 'name':
        return operand.name;
    }
  }

  private describe(operand: Resolved): string {
    switch (operand.kind) {
      case 'field': {
        const type = operand.type;
        const what = type.kind === 'scalar' ? type.scalar : type.kind === 'enum' ? `enum ${type.name}` : `a ${type.target}`;
        return `"${operand.path.join('.')}" (${what})`;
      }
      case 'auth':
        if (operand.member === 'id') return 'auth.id (a record id)';
        if (operand.member === 'role') return `auth.role (enum ${this.scope.roles.set?.enum ?? 'of roles'})`;
        return this.text(operand);
      case 'literal':
        if (operand.value === null) return 'null';
        if (typeof operand.value === 'string') return `the string ${JSON.stringify(operand.value)}`;
        if (typeof operand.value === 'number') return `the number ${String(operand.value)}`;
        return String(operand.value);
      case 'enumValue':
        return `the enum value ${operand.value}`;
      case 'name':
        return operand.name;
    }
  }
}

/** Stands in for an operand whose problem is reported: the rule is dropped, so it is never read. */
const NOTHING: RuleOperand = { kind: 'value', value: null };
const NOTHING_EXPR: RuleExpr = { kind: 'const', value: false };

function listMessage(written: string, target: string): string {
  return `"${written}" is a list of ${target}: a list cannot be compared, and rules follow to-one relations only.`;
}

function isIdLike(domain: string): boolean {
  return domain === 'ID' || domain === 'String' || domain.startsWith('ref:');
}

function isNumeric(domain: string): boolean {
  return domain === 'Int' || domain === 'Float';
}

function operandOf(resolved: Resolved): RuleOperand {
  switch (resolved.kind) {
    case 'field':
      return { kind: 'field', path: resolved.path };
    case 'auth':
      return { kind: 'auth', path: resolved.path };
    case 'literal':
      return { kind: 'value', value: resolved.value };
    case 'enumValue':
    case 'name':
      return { kind: 'value', value: resolved.kind === 'name' ? resolved.name : resolved.value };
  }
}
