import { ApiError } from '../errors/api-error.js';
import type { Field, Model, ResourceType } from '../schema/model.js';
import { renamedReason, resolveField, resolveType } from '../schema/renamed.js';
import type { WriteValues } from './write-plan.js';

/**
 * One deprecated thing a request used, carried on its plan so that every
 * way in (REST, GraphQL over any transport) reports the same uses: the
 * `Deprecation` header, GraphQL's `extensions.deprecations`, usage counts.
 * `coordinate` is a GraphQL schema coordinate (`Post.title`, `Member`).
 */
export interface DeprecatedUse {
  readonly kind: 'field' | 'type' | 'argument' | 'enumValue';
  readonly coordinate: string;
  readonly reason: string;
  /** The date after which the thing may be gone (`@deprecated(sunset:)`), when given. */
  readonly sunset: string | undefined;
  /** The date it was deprecated on (`@deprecated(since:)`), when given; a rename gives none. */
  readonly since: string | undefined;
}

/** The use of a field's old name, kept by `@renamed(from:)`. */
export function fieldAliasUse(type: ResourceType, alias: string, field: Field): DeprecatedUse {
  return Object.freeze({ kind: 'field', coordinate: `${type.name}.${alias}`, reason: renamedReason(field.name), sunset: undefined, since: undefined });
}

/** The use of a type's old name (its old root fields or REST path), kept by `@renamed(from:)`. */
export function typeAliasUse(type: ResourceType): DeprecatedUse {
  return Object.freeze({ kind: 'type', coordinate: type.renamedFrom ?? type.name, reason: renamedReason(type.name), sunset: undefined, since: undefined });
}

/** Uses in the order first met, each once. */
export class DeprecatedUses {
  readonly #uses = new Map<string, DeprecatedUse>();

  add = (use: DeprecatedUse): void => {
    if (!this.#uses.has(use.coordinate)) this.#uses.set(use.coordinate, use);
  };

  addAll(uses: Iterable<DeprecatedUse>): void {
    for (const use of uses) this.add(use);
  }

  /** `{ deprecations }` when there are any, else nothing: a plan without uses keeps its shape. */
  onPlan(): { readonly deprecations?: readonly DeprecatedUse[] } {
    return this.#uses.size === 0 ? {} : { deprecations: Object.freeze([...this.#uses.values()]) };
  }
}

/** A type by its name, or by its old one (`@renamed`), reported to `uses`; ROUTE_NOT_FOUND when neither. */
export function typeNamed(model: Model, name: string, uses: DeprecatedUses): ResourceType {
  const resolved = resolveType(model, name);
  if (resolved === undefined) throw new ApiError('ROUTE_NOT_FOUND', { detail: `No resource type ${name}` });
  if (resolved.alias !== undefined) uses.add(typeAliasUse(resolved.type));
  return resolved.type;
}

/** A field by its name, or by its old one (`@renamed`), reported to `uses`; undefined when neither. */
export function fieldNamed(type: ResourceType, name: string, uses: DeprecatedUses): Field | undefined {
  const resolved = resolveField(type, name);
  if (resolved?.alias !== undefined) uses.add(fieldAliasUse(type, resolved.alias, resolved.field));
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
