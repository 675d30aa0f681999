import type { Declarations } from './collect-definitions.js';
import { checkRule, type RuleScope, type ScopeType } from './check-rule.js';
import type { RuleDraft, TypeDraft } from './drafts.js';
import type { Field } from './model.js';
import type { PairedRelations } from './pair-relations.js';
import { parseRule } from './parse-rule.js';
import type { Roles } from './read-roles.js';
import type { FieldRules, Rule, RuleExpr, TypeRules } from './rules.js';
import { locate, type ProblemList } from './schema-problem.js';
import { positionInString } from './string-position.js';

export interface CheckedRules {
  /** By type name. */
  readonly types: ReadonlyMap<string, TypeRules>;
  /** By `Type.field`. */
  readonly fields: ReadonlyMap<string, FieldRules>;
  /** Whether the schema has any `@allow` at all. */
  readonly any: boolean;
}

/**
 * Parses and checks every `@allow` rule once all types' fields are known
 * (a rule may follow a relation into another type), reporting each problem
 * inside the rule's string. Several rules for one operation become one rule
 * that ORs them.
 */
export function checkRules(
  drafts: readonly TypeDraft[],
  relations: PairedRelations,
  declarations: Declarations,
  roles: Roles,
  problems: ProblemList,
): CheckedRules {
  const scopeTypes = new Map<string, ScopeType>(
    drafts.map((draft) => [draft.name, { fields: new Map(draft.fields.flatMap((field) => fieldOf(field, relations))), declared: draft.declaredFields }]),
  );
  const enums = new Map([...declarations.enums.values()].map((declaration) => [declaration.name, declaration.values.map((value) => value.name.value)]));
  const types = new Map<string, TypeRules>();
  const fields = new Map<string, FieldRules>();
  let any = false;

  for (const draft of drafts) {
    const scope: RuleScope = { owner: draft.name, types: scopeTypes, enums, roles };
    any ||= draft.rules.length > 0;
    types.set(draft.name, combine(draft.rules, scope, problems));
    for (const fieldDraft of draft.fields) {
      if (fieldDraft.rules.length === 0) continue;
      any = true;
      const [entry] = fieldOf(fieldDraft, relations);
      if (entry === undefined) continue;
      const [name, field] = entry;
      checkWriteTarget(field, `${draft.name}.${name}`, fieldDraft.rules, problems);
      fields.set(`${draft.name}.${name}`, combine(fieldDraft.rules, scope, problems));
    }
  }
  return { types, fields, any };
}

function fieldOf(field: TypeDraft['fields'][number], relations: PairedRelations): [string, Field][] {
  if (field.kind === 'stored') return [[field.field.name, field.field]];
  const relation = relations.fields.get(field.draft);
  return relation === undefined ? [] : [[relation.name, relation]];
}

/** A write rule needs something a client writes: not a to-many (written from its to-one side) nor a server timestamp. */
function checkWriteTarget(field: Field, qualified: string, rules: readonly RuleDraft[], problems: ProblemList): void {
  for (const rule of rules) {
    if (rule.operation !== 'write') continue;
    if (field.kind === 'toMany') {
      problems.at(rule.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `"${qualified}" is written from its other side, "${field.target}.${field.inverse}": put the write rule there.`);
    } else if (field.kind === 'scalar' && field.auto !== undefined) {
      problems.at(rule.node, 'SCHEMA_CONFLICTING_DIRECTIVES', `"${qualified}" is set by the server (@${field.auto}); no client writes it, so a write rule does not apply.`);
    }
  }
}

/** One operation's rules, checked, OR'ed into one; an operation with a broken rule is left out (its problem is reported). */
function combine(drafts: readonly RuleDraft[], scope: RuleScope, problems: ProblemList): Record<string, Rule> {
  const byOperation = new Map<string, RuleDraft[]>();
  for (const draft of drafts) byOperation.set(draft.operation, [...(byOperation.get(draft.operation) ?? []), draft]);
  const rules: Record<string, Rule> = {};
  for (const [operation, uses] of byOperation) {
    const checked = uses.map((use) => checkOne(use, scope, problems));
    const exprs = checked.filter((expr) => expr !== undefined);
    const first = uses[0];
    if (exprs.length !== uses.length || first === undefined) continue;
    const [only] = exprs;
    rules[operation] = {
      expr: only !== undefined && exprs.length === 1 ? only : { kind: 'or', items: exprs.flatMap((expr) => (expr.kind === 'or' ? expr.items : [expr])) },
      source: uses.length === 1 ? first.node.value : uses.map((use) => `(${use.node.value})`).join(' || '),
      location: locate(first.node),
    };
  }
  return rules;
}

function checkOne(draft: RuleDraft, scope: RuleScope, problems: ProblemList): RuleExpr | undefined {
  const parsed = parseRule(draft.node.value);
  if (!parsed.ok) {
    if (parsed.empty) {
      problems.at(draft.node, 'RULE_EMPTY', `The ${draft.operation} rule is empty: write "true" to allow everyone, or "false" to leave it to the admin role.`);
    } else {
      problems.add({ ...positionInString(draft.node, parsed.offset), code: 'RULE_SYNTAX', message: parsed.message });
    }
    return undefined;
  }
  return checkRule(parsed.rule, scope, (span, code, message, suggestion) => {
    problems.add({ ...positionInString(draft.node, span.start), code, message, ...(suggestion === undefined ? {} : { suggestion }) });
  });
}
