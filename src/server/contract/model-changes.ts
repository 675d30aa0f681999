import type { Rule, RuleExpr, RuleOperand } from '../../schema/rules.js';
import type { Field, Model, ResourceType } from '../../schema/model.js';
import { resolveField } from '../../schema/renamed.js';
import type { ChangeClass, ContractChange } from './contract-change.js';
import type { ContractSide } from './contract-side.js';

/**
 * Changes neither generated document shows but clients feel: who may read
 * or write (`@allow`), a value that must now be unique, and (for GraphQL,
 * whose inputs do not publish defaults) what a left-out field becomes.
 */
export function modelChanges(from: ContractSide, to: ContractSide): ContractChange[] {
  const changes: ContractChange[] = [];
  const add = (change: Omit<ContractChange, 'location'>, coordinate: string): void => {
    changes.push({ ...change, location: to.locator.locate(coordinate) });
  };
  for (const type of to.model.types) {
    // A type or field renamed with `@renamed` is compared with what it was.
    const before = from.model.typesByName.get(type.name) ?? (type.renamedFrom === undefined ? undefined : from.model.typesByName.get(type.renamedFrom));
    if (before === undefined) continue;
    for (const operation of ['read', 'create', 'update', 'delete'] as const) {
      const change = ruleChange(from.model, before.rules[operation], to.model, type.rules[operation], type);
      if (change !== undefined) add({ class: opened(type.rules[operation]), styles: ['graphql', 'rest'], message: `Who may ${operation} ${type.name} records changed (${change})` }, type.name);
    }
    for (const field of type.fields) {
      const old = before.fieldsByName.get(field.name) ?? (field.renamedFrom === undefined ? undefined : before.fieldsByName.get(field.renamedFrom));
      if (old === undefined) continue;
      const coordinate = `${type.name}.${field.name}`;
      for (const operation of ['read', 'write'] as const) {
        const change = ruleChange(from.model, old.rules[operation], to.model, field.rules[operation], type);
        if (change !== undefined) add({ class: opened(field.rules[operation]), styles: ['graphql', 'rest'], message: `Who may ${operation} ${coordinate} changed (${change})` }, coordinate);
      }
      if (isUnique(field) && !isUnique(old)) {
        add({ class: 'dangerous', styles: ['graphql', 'rest'], message: `${coordinate} must now be unique: writes repeating a value are refused (409)` }, coordinate);
      }
      if (isImmutable(field) && !isImmutable(old)) {
        // Both generated update shapes keep the field (it may be sent unchanged), so only the engine's refusal shows it.
        add({ class: 'breaking', styles: ['graphql', 'rest'], message: `${coordinate} is now @immutable: updates that change it are refused` }, coordinate);
      }
      if (becameRequired(old, field)) {
        // The generated update input keeps the field optional (left out: unchanged), so only the engine's refusal shows it.
        add({ class: 'breaking', styles: ['graphql'], message: `${coordinate} is now required: updates that set it to null are refused` }, coordinate);
      }
      imageChanges(old, field, coordinate, add);
      const oldDefault = defaultOf(old);
      const newDefault = defaultOf(field);
      if (oldDefault !== newDefault && newDefault !== undefined) {
        add({ class: 'dangerous', styles: ['graphql'], message: `${coordinate}: a create that leaves it out now gets ${newDefault} (was ${oldDefault ?? 'null'})` }, coordinate);
      }
    }
  }
  return changes;
}

/** A nullable field a client may write, made non-null. */
function becameRequired(old: Field, field: Field): boolean {
  if (field.kind !== 'scalar' && field.kind !== 'file' && field.kind !== 'toOne') return false;
  if (old.kind !== field.kind || !('nullable' in old) || !old.nullable || field.nullable) return false;
  return !(field.kind !== 'file' && field.readonly);
}

/**
 * An image width dropped: URLs of that width handed out before stop being
 * served (404) and `size:` asks round to another width; REST sees the same in
 * the files route's width parameter.
 */
function imageChanges(old: Field, field: Field, coordinate: string, add: (change: Omit<ContractChange, 'location'>, coordinate: string) => void): void {
  if (old.kind !== 'file' || field.kind !== 'file') return;
  const removed = old.image.sizes.filter((size) => !field.image.sizes.includes(size));
  const added = field.image.sizes.filter((size) => !old.image.sizes.includes(size));
  if (removed.length > 0) add({ class: 'breaking', styles: ['graphql'], message: `${coordinate} is no longer served at width ${removed.join(', ')}: URLs of that width stop working and size: asks round to another width` }, coordinate);
  if (added.length > 0) add({ class: 'safe', styles: ['graphql'], message: `${coordinate} is also served at width ${added.join(', ')}` }, coordinate);
}

/**
 * How a rule changed, in words, or undefined when it did not. Without a rule, a schema with rules lets only admins; one without lets everyone.
 * Both rules are compared in the new schema's names (`type` is the rule's type there), so one that only follows a `@renamed` field is unchanged.
 */
function ruleChange(fromModel: Model, from: Rule | undefined, toModel: Model, to: Rule | undefined, type: ResourceType): string | undefined {
  const describe = (model: Model, rule: Rule | undefined): string => rule?.source ?? (model.hasRules ? 'admins only' : 'anyone');
  const before = describe(fromModel, from);
  const after = describe(toModel, to);
  if (before === after) return undefined;
  if (from !== undefined && to !== undefined && sameRule(toModel, type, from.expr, to.expr)) return undefined;
  return `was ${JSON.stringify(before)}, now ${JSON.stringify(after)}`;
}

function sameRule(model: Model, type: ResourceType, from: RuleExpr, to: RuleExpr): boolean {
  return JSON.stringify(currentNames(model, type, from)) === JSON.stringify(currentNames(model, type, to));
}

/** The rule with every field path spelled in the model's current names, an old name `@renamed` keeps mapped to the field it now is. */
function currentNames(model: Model, type: ResourceType, expr: RuleExpr): RuleExpr {
  const operand = (item: RuleOperand): RuleOperand => (item.kind === 'field' ? { kind: 'field', path: currentPath(model, type, item.path) } : item);
  switch (expr.kind) {
    case 'const':
      return expr;
    case 'and':
    case 'or':
      return { kind: expr.kind, items: expr.items.map((item) => currentNames(model, type, item)) };
    case 'not':
      return { kind: 'not', item: currentNames(model, type, expr.item) };
    case 'compare':
      return { ...expr, left: operand(expr.left), right: operand(expr.right) };
    case 'in':
      return { ...expr, item: operand(expr.item), values: expr.values.map(operand) };
  }
}

/** A path of to-one hops and a last field, each name resolved on the type the previous hop leads to; a name no longer known stays as written. */
function currentPath(model: Model, type: ResourceType, path: readonly string[]): string[] {
  const names: string[] = [];
  let at: ResourceType | undefined = type;
  for (const name of path) {
    const field: Field | undefined = at === undefined ? undefined : resolveField(at, name)?.field;
    names.push(field?.name ?? name);
    at = field?.kind === 'toOne' ? model.typesByName.get(field.target) : undefined;
  }
  return names;
}

/** A rule changed to `true` lets everyone: nobody is refused what they had. Any other change may refuse someone, and which it does depends on data. */
function opened(rule: Rule | undefined): ChangeClass {
  return rule?.expr.kind === 'const' && rule.expr.value ? 'safe' : 'dangerous';
}

function isImmutable(field: Field): boolean {
  return (field.kind === 'scalar' || field.kind === 'toOne') && field.immutable;
}

function isUnique(field: Field): boolean {
  return field.kind === 'scalar' && field.unique;
}

function defaultOf(field: Field): string | undefined {
  return field.kind === 'scalar' && field.default !== undefined ? JSON.stringify(field.default.value) : undefined;
}
