import { ApiError } from '../errors/api-error.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
import type { Rule } from '../schema/rules.js';
import { all, foldExpr, type FoldedRule } from './fold-rule.js';
import { DeprecationCollector, type DeprecatedUse } from './deprecated-use.js';
import type { Principal } from './principal.js';
import type { Filter, Param } from './read-plan.js';
import { fieldForbidden, NO_ROWS, rowRule, type RuleScope } from './read-rules.js';
import type { UnchangedCheck, WriteActor, WritePlan, WriteRules, WriteValues } from './write-plan.js';

/**
 * Builders of write plans, the counterpart of build-read.ts: both front-ends
 * describe a change in these terms, so what a write must carry besides its
 * values — the rules its principal must satisfy, the values preset from the
 * principal — is added here, once, for both styles. Values come validated
 * and coerced by `validateInput`.
 *
 * A rule that decides without the record (the caller's role, say) is
 * decided here, with no SQL: a create it forbids is 403 at once. One that
 * depends on the record becomes a filter the engine checks inside the
 * write's transaction: on the stored row (may the caller see it, may they
 * change it) and on the row as written (does it still satisfy the rule).
 */

export function planCreate(model: Model, typeName: string, values: WriteValues, principal: Principal): WritePlan {
  const type = resourceType(model, typeName);
  let withPresets: WriteValues | undefined;
  const rules = ruleParts(model, principal, (scope) => {
    const create = fold(scope, type, type.rules.create);
    // Refused before anything else: a caller who may not create learns nothing from the input's problems.
    if (create.kind === 'never') throw forbidden(`You may not create ${type.name} records`);
    withPresets = presetFromPrincipal(type, values, principal);
    return { check: asFilter(all([create, fieldWrites(scope, type, withPresets)])), references: referenceRules(scope, type, withPresets) };
  });
  withPresets ??= presetFromPrincipal(type, values, principal);
  return Object.freeze({ kind: 'create', type: type.name, values: withPresets, ...rules, deprecations: writeDeprecations(model, type, values), actor: actorOf(principal) });
}

/**
 * `replace` is PUT: every field absent from `values` that the caller may
 * write goes back to its default (or null); fields the caller may not write,
 * `@immutable` ones and those set from the creator stay as they are, as
 * PATCH leaves them.
 */
export function planUpdate(model: Model, typeName: string, id: string, values: WriteValues, principal: Principal, replace = false): WritePlan {
  const type = resourceType(model, typeName);
  let written: WriteValues | undefined;
  const rules = ruleParts(model, principal, (scope) => {
    // Only a field the caller may write on any record is reset: one whose rule depends on the record is left as PATCH would.
    written = replace ? withResets(type, values, (field) => fieldWrite(scope, type, field).kind === 'always') : values;
    const update = fold(scope, type, type.rules.update);
    return {
      visible: rowRule(scope, type),
      allowed: asFilter(update),
      check: asFilter(all([update, fieldWrites(scope, type, written)])),
      references: referenceRules(scope, type, written),
    };
  });
  written ??= replace ? withResets(type, values, () => true) : values;
  const unchanged = immutableCheck(type, written);
  return Object.freeze({
    kind: 'update',
    type: type.name,
    id,
    values: written,
    replace,
    ...(unchanged === undefined ? {} : { unchanged }),
    ...rules,
    // The client's own input: fields a PUT resets were not named by it.
    deprecations: writeDeprecations(model, type, values),
    actor: actorOf(principal),
  });
}

/**
 * What the rules decide from the caller alone, before the input is
 * validated or any file of it received (both front-ends call it first): a
 * create or update the caller may never make is 403 FORBIDDEN, a field they
 * may never write 403 FIELD_FORBIDDEN. No record is looked at, so the answer
 * is the same whatever the id: it tells a stranger nothing. What depends on
 * the record is checked by the engine, in the write's transaction.
 */
export function checkWriteRights(model: Model, typeName: string, kind: 'create' | 'update', principal: Principal, fields: Iterable<string> = []): void {
  if (!model.hasRules || principal.admin) return;
  const type = resourceType(model, typeName);
  // Folded only to tell never from the rest: the values it would bind are not kept.
  const scope: RuleScope = { model, principal, param: (): Param => ({ param: 0 }) };
  const checkType = (): void => {
    if (fold(scope, type, kind === 'create' ? type.rules.create : type.rules.update).kind === 'never') {
      throw forbidden(`You may not ${kind} ${type.name} records`);
    }
  };
  // The order planCreate and planUpdate refuse in, so a request gets the same code here as there.
  if (kind === 'create') checkType();
  for (const name of fields) {
    const field = type.fieldsByName.get(name);
    if (field !== undefined && fieldWrite(scope, type, field).kind === 'never') throw fieldForbidden(type, field, 'write');
  }
  if (kind === 'update') checkType();
}

/** PUT's values: `values`, plus the default (or null) of every field left out that `resettable` allows. */
function withResets(type: ResourceType, values: WriteValues, resettable: (field: Field) => boolean): WriteValues {
  const out: Record<string, unknown> = { ...values };
  for (const field of type.fields) {
    if (Object.hasOwn(values, field.name) || (field.kind !== 'scalar' && field.kind !== 'toOne')) continue;
    // Set once: from the creator (`@default(fromAuth:)`), or `@immutable`.
    if (field.readonly || field.immutable || field.defaultFromAuth !== undefined || !resettable(field)) continue;
    if (field.kind === 'scalar') out[field.name] = field.default === undefined ? null : field.default.value;
    else if (field.nullable) out[field.name] = null;
  }
  return Object.freeze(out);
}

/** The `@immutable` fields an update writes must hold these values already: a filter on the stored row, or undefined when it names none. */
function immutableCheck(type: ResourceType, values: WriteValues): UnchangedCheck | undefined {
  const params: unknown[] = [];
  const items: Filter[] = [];
  const fields: string[] = [];
  for (const [name, value] of Object.entries(values)) {
    const field = type.fieldsByName.get(name);
    if ((field?.kind !== 'scalar' && field?.kind !== 'toOne') || !field.immutable) continue;
    fields.push(name);
    items.push(value === null ? { op: 'isNull', field: name, value: true } : { op: 'eq', field: name, value: { param: params.push(value) - 1 } });
  }
  if (items.length === 0) return undefined;
  const filter: Filter = { op: 'and', items };
  return Object.freeze({ fields, params, filter });
}

/**
 * A to-one value pointing at a record the caller may not see must fail as
 * one pointing at no record does (the link's `target` rule, for references):
 * the target's read rule, for each such value.
 */
function referenceRules(scope: RuleScope, type: ResourceType, values: WriteValues): Readonly<Record<string, Filter>> | undefined {
  let out: Record<string, Filter> | undefined;
  for (const [name, value] of Object.entries(values)) {
    const field = type.fieldsByName.get(name);
    if (field?.kind !== 'toOne' || value === null) continue;
    const visible = rowRule(scope, resourceType(scope.model, field.target));
    if (visible === undefined) continue;
    out ??= {};
    out[name] = visible;
  }
  return out;
}

/** The deprecated things a write names: its type, each input field and enum value, the relation it links. */
function writeDeprecations(model: Model, type: ResourceType, input: WriteValues, relation?: Field): readonly DeprecatedUse[] {
  const collector = new DeprecationCollector();
  collector.type(type);
  if (relation !== undefined) collector.field(type, relation);
  for (const [name, value] of Object.entries(input)) {
    const field = type.fieldsByName.get(name);
    if (field === undefined) continue;
    collector.field(type, field);
    if (field.kind === 'scalar') collector.enumValues(model, field.enum, value);
  }
  return collector.list();
}

export function planDelete(model: Model, typeName: string, id: string, principal: Principal): WritePlan {
  const type = resourceType(model, typeName);
  const rules = ruleParts(model, principal, (scope) => ({ visible: rowRule(scope, type), allowed: asFilter(fold(scope, type, type.rules.delete)) }));
  return Object.freeze({ kind: 'delete', type: type.name, id, ...rules, deprecations: writeDeprecations(model, type, {}), actor: actorOf(principal) });
}

/**
 * Adds or removes one many-to-many link, seen from `typeName.field` of
 * record `id`: a change to that record's list, so its update rule and the
 * field's write rule apply.
 */
export function planLink(model: Model, kind: 'connect' | 'disconnect', typeName: string, field: string, id: string, targetId: string, principal: Principal): WritePlan {
  const type = resourceType(model, typeName);
  const relation = type.fieldsByName.get(field);
  if (relation?.kind !== 'manyToMany') {
    throw new ApiError('QUERY_UNKNOWN_RELATION', { detail: `${type.name} has no many-to-many relation "${field}"` });
  }
  const rules = ruleParts(model, principal, (scope) => {
    const write = fieldWrite(scope, type, relation);
    if (write.kind === 'never') throw fieldForbidden(type, relation, 'change');
    const target = rowRule(scope, resourceType(model, relation.target));
    return { visible: rowRule(scope, type), allowed: asFilter(all([fold(scope, type, type.rules.update), write])), target };
  });
  return Object.freeze({ kind, type: type.name, field, id, targetId, ...rules, deprecations: writeDeprecations(model, type, {}, relation), actor: actorOf(principal) });
}

/** Who caused a write, as its event names them: never a claim or a credential. */
function actorOf(principal: Principal): WriteActor {
  return Object.freeze({ id: principal.id, role: principal.role, via: principal.via });
}

/** The rules part of a plan: none in an open schema or for the admin role. */
function ruleParts(model: Model, principal: Principal, build: (scope: RuleScope) => Omit<WriteRules, 'params'>): { rules?: WriteRules } {
  if (!model.hasRules || principal.admin) return {};
  const params: unknown[] = [];
  const scope: RuleScope = { model, principal, param: (value): Param => ({ param: params.push(value) - 1 }) };
  const parts = build(scope);
  const rules: WriteRules = { params, ...definedOnly(parts) };
  return Object.keys(rules).length === 1 ? {} : { rules: Object.freeze(rules) };
}

/** Every field written must be writable by the asker: decided here where it can be, else part of the check. */
function fieldWrites(scope: RuleScope, type: ResourceType, values: WriteValues): FoldedRule {
  const parts: FoldedRule[] = [];
  for (const name of Object.keys(values)) {
    const field = type.fieldsByName.get(name);
    if (field === undefined) continue;
    const write = fieldWrite(scope, type, field);
    if (write.kind === 'never') throw fieldForbidden(type, field, 'write');
    parts.push(write);
  }
  return all(parts);
}

function fieldWrite(scope: RuleScope, type: ResourceType, field: Field): FoldedRule {
  return field.rules.write === undefined ? { kind: 'always' } : foldExpr(scope, type, field.rules.write.expr);
}

/** A type's rule for one operation; none written is the admin's alone. */
function fold(scope: RuleScope, type: ResourceType, rule: Rule | undefined): FoldedRule {
  return rule === undefined ? { kind: 'never' } : foldExpr(scope, type, rule.expr);
}

function asFilter(folded: FoldedRule): Filter | undefined {
  if (folded.kind === 'always') return undefined;
  return folded.kind === 'never' ? NO_ROWS : folded.filter;
}

/** `@default(fromAuth:)` fields the input left out take the caller's value; a required one the caller cannot give is an input error. */
function presetFromPrincipal(type: ResourceType, values: WriteValues, principal: Principal): WriteValues {
  let out: Record<string, unknown> | undefined;
  for (const field of type.fields) {
    if ((field.kind !== 'scalar' && field.kind !== 'toOne') || field.defaultFromAuth === undefined || Object.hasOwn(values, field.name)) continue;
    const value = valueOfPrincipal(principal, field.defaultFromAuth);
    if (value === null || value === undefined) {
      if (field.nullable) continue;
      throw new ApiError('INPUT_REQUIRED_FIELD', {
        detail: `${field.name} is required (it is taken from the caller when signed in)`,
        errors: [{ pointer: `/${field.name}`, code: 'INPUT_REQUIRED_FIELD', detail: `${field.name} is required` }],
      });
    }
    out ??= { ...values };
    out[field.name] = value;
  }
  return out === undefined ? values : Object.freeze(out);
}

function valueOfPrincipal(principal: Principal, path: readonly string[]): unknown {
  const [head, ...rest] = path;
  if (head === 'id' && rest.length === 0) return principal.id;
  if (head === 'role' && rest.length === 0) return principal.role;
  let value: unknown = principal.claims;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function definedOnly<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, item]) => item !== undefined)) as T;
}

function forbidden(detail: string): ApiError {
  return new ApiError('FORBIDDEN', { detail });
}

function resourceType(model: Model, name: string): ResourceType {
  const type = model.typesByName.get(name);
  if (type === undefined) throw new ApiError('ROUTE_NOT_FOUND', { detail: `No resource type ${name}` });
  return type;
}
