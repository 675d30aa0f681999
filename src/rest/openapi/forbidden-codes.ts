import { isRelation, type Field, type Model, type ResourceType } from '../../schema/model.js';
import type { Rule } from '../../schema/rules.js';
import { deleteReach } from '../../schema/delete-reach.js';

/**
 * Which 403 codes the schema's permission rules (`@allow`, docs/rules.md)
 * can give an operation, so that each operation documents only its own.
 *
 * Reads hide what a caller may not see (records drop out of lists or are
 * 404; fields not asked for are left out), so a read is refused only for a
 * field asked for by name: FIELD_FORBIDDEN. Writes are refused for the
 * record (FORBIDDEN) and for a field in the body (FIELD_FORBIDDEN).
 */
export type WriteOperation = 'create' | 'update' | 'delete';

/** The 403 codes of the registry an operation can carry. */
export type ForbiddenCode = 'CROSS_SITE_REQUEST_REFUSED' | 'FORBIDDEN' | 'FIELD_FORBIDDEN' | 'RELATION_CASCADE_FORBIDDEN';

/**
 * A read of `type`'s records: FIELD_FORBIDDEN when a field it can name
 * (its own, or one of a type `include` reaches, at any depth) has a read
 * rule; `via` is the list relation a sub-collection is read through.
 */
export function readForbiddenCodes(model: Model, type: ResourceType, via?: Field): ForbiddenCode[] {
  if (!model.hasRules) return [];
  const restricted = (via !== undefined && restricts(via.rules.read)) || reachableTypes(model, type).some((reached) => reached.fields.some((field) => restricts(field.rules.read)));
  return restricted ? ['FIELD_FORBIDDEN'] : [];
}

/**
 * A write to one of `type`'s records: FORBIDDEN unless the type's rule for
 * the operation lets everyone, FIELD_FORBIDDEN when one of `fields` (those
 * the request can write) has a write rule.
 */
export function writeForbiddenCodes(model: Model, type: ResourceType, operation: WriteOperation, fields: readonly Field[]): ForbiddenCode[] {
  if (!model.hasRules) return [];
  const codes: ForbiddenCode[] = [];
  if (!passesEveryone(type.rules[operation])) codes.push('FORBIDDEN');
  if (fields.some((field) => restricts(field.rules.write))) codes.push('FIELD_FORBIDDEN');
  if (operation === 'delete' && cascadeRestricted(model, type)) codes.push('RELATION_CASCADE_FORBIDDEN');
  return codes;
}

/** Whether a delete of `type` can cascade to records some caller may not see or delete. */
function cascadeRestricted(model: Model, type: ResourceType): boolean {
  return [...deleteReach(model, type).values()].some((edges) =>
    edges.some(({ type: referrer, field }) => field.onDelete === 'CASCADE' && !(passesEveryone(referrer.rules.delete) && !restricts(referrer.rules.read))),
  );
}

/** The fields a create, replace or update body can hold: not lists of related records, which are linked by their own routes. */
export function bodyFields(type: ResourceType): Field[] {
  return type.fields.filter((field) => field.kind === 'scalar' || field.kind === 'toOne' || field.kind === 'file');
}

/**
 * Whether only the admin role may do `operation` (no rule for it in a schema
 * with rules, or `"false"`): then no request without a credential succeeds.
 */
export function onlyAdmins(model: Model, type: ResourceType, operation: WriteOperation): boolean {
  if (!model.hasRules) return false;
  const rule = type.rules[operation];
  return rule === undefined || (rule.expr.kind === 'const' && !rule.expr.value);
}

/** `"true"`: everyone passes, the anonymous caller included. */
function passesEveryone(rule: Rule | undefined): boolean {
  return rule !== undefined && rule.expr.kind === 'const' && rule.expr.value;
}

/** A field rule is on top of its type's: only one that is not `"true"` can refuse anyone. */
function restricts(rule: Rule | undefined): boolean {
  return rule !== undefined && !passesEveryone(rule);
}

function reachableTypes(model: Model, start: ResourceType): ResourceType[] {
  const seen = new Map<string, ResourceType>([[start.name, start]]);
  const pending = [start];
  for (let type = pending.pop(); type !== undefined; type = pending.pop()) {
    for (const relation of type.fields.filter(isRelation)) {
      const target = model.typesByName.get(relation.target);
      if (target === undefined || seen.has(target.name)) continue;
      seen.set(target.name, target);
      pending.push(target);
    }
  }
  return [...seen.values()];
}
