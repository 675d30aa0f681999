/**
 * Old names kept by `@renamed(from:)`, as deprecated uses: every plan builder
 * looks types and fields up through `typeNamed` / `fieldNamed`, so an old
 * name reads, filters, sorts and writes what it became and is reported like
 * any other deprecated thing (headers, GraphQL extensions, usage counts).
 */
import { ApiError } from '../errors/api-error.js';
import type { RenamedEventType } from '../schema/event-names.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
import { renamedReason, resolveField, resolveType } from '../schema/renamed.js';
import type { DeprecatedUse, DeprecationCollector } from './deprecated-use.js';
import type { WriteValues } from './write-plan.js';

/** The use of a field's old name, kept by `@renamed(from:)`. */
export function fieldAliasUse(type: ResourceType, alias: string, field: Field): DeprecatedUse {
  return Object.freeze({ kind: 'field', coordinate: `${type.name}.${alias}`, reason: renamedReason(field.name), sunset: undefined, since: undefined });
}

/** The use of a type's old name (its old root fields or REST path), kept by `@renamed(from:)`. */
export function typeAliasUse(type: ResourceType): DeprecatedUse {
  return Object.freeze({ kind: 'type', coordinate: type.renamedFrom ?? type.name, reason: renamedReason(type.name), sunset: undefined, since: undefined });
}

/** The uses an old event type name stands for (`product.created`, `user.followers.added`): the type's old name, the list's, or both. */
export function renamedEventUses(renamed: RenamedEventType): DeprecatedUse[] {
  const { type, oldField } = renamed;
  return [...(renamed.oldType ? [typeAliasUse(type)] : []), ...(oldField?.renamedFrom === undefined ? [] : [fieldAliasUse(type, oldField.renamedFrom, oldField)])];
}

/** A type by its name, or by its old one (`@renamed`), reported to `uses`; ROUTE_NOT_FOUND when neither. */
export function typeNamed(model: Model, name: string, uses: DeprecationCollector): ResourceType {
  const resolved = resolveType(model, name);
  if (resolved === undefined) throw new ApiError('ROUTE_NOT_FOUND', { detail: `No resource type ${name}` });
  if (resolved.alias !== undefined) uses.use(typeAliasUse(resolved.type));
  return resolved.type;
}

/** A field by its name, or by its old one (`@renamed`), reported to `uses`; undefined when neither. */
export function fieldNamed(type: ResourceType, name: string, uses: DeprecationCollector): Field | undefined {
  const resolved = resolveField(type, name);
  if (resolved?.alias !== undefined) uses.use(fieldAliasUse(type, resolved.alias, resolved.field));
  return resolved?.field;
}

/**
 * Old names an input used, by the values `validateInput` made of it (keyed
 * by current names): the write plan built from those values reports them.
 * Held weakly, so values nobody plans with take nothing with them.
 */
const INPUT_USES = new WeakMap<WriteValues, readonly DeprecatedUse[]>();

export function noteInputUses(values: WriteValues, uses: readonly DeprecatedUse[]): WriteValues {
  if (uses.length > 0) INPUT_USES.set(values, uses);
  return values;
}

export function inputUsesOf(values: WriteValues): readonly DeprecatedUse[] {
  return INPUT_USES.get(values) ?? [];
}
