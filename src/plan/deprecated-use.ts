import { deprecationOf, type Deprecation, type Field, type Model, type ResourceType } from '../schema/model.js';

/**
 * One deprecated thing a request used, as its plan records it: REST turns the
 * list into `Deprecation` / `Sunset` / `Link` headers, GraphQL into
 * `extensions.deprecations`, and the engine counts each use per client.
 * `coordinate` is the thing's GraphQL schema coordinate: `User.handle`,
 * `User`, `User.avatar(size:)`, `Role.GUEST`.
 */
export interface DeprecatedUse {
  readonly kind: 'field' | 'type' | 'argument' | 'enumValue';
  readonly coordinate: string;
  readonly reason: string;
  /** ISO date of the expected removal, when the schema gives one. */
  readonly sunset: string | undefined;
  /** ISO date the schema says it was deprecated on, when it gives one. */
  readonly since: string | undefined;
}

/** The list of a plan that used nothing deprecated: shared, so such plans cost nothing more. */
export const NO_DEPRECATIONS: readonly DeprecatedUse[] = Object.freeze([]);

/**
 * Collects the deprecated things a plan builder meets, each once; plans are
 * built once per question shape, so this is never on a request's path.
 */
export class DeprecationCollector {
  readonly #uses = new Map<string, DeprecatedUse>();

  type(type: ResourceType): void {
    this.#add('type', type.name, deprecationOf(type));
  }

  field(type: ResourceType, field: Field): void {
    this.#add('field', `${type.name}.${field.name}`, deprecationOf(field));
  }

  argument(type: ResourceType, field: Field, argument: string, deprecation: Deprecation | undefined): void {
    this.#add('argument', `${type.name}.${field.name}(${argument}:)`, deprecation);
  }

  /** Every deprecated value of an enum among `value` (a value, a list of them, or anything else, ignored). */
  enumValues(model: Model, enumName: string | undefined, value: unknown): void {
    if (enumName === undefined) return;
    const deprecated = model.enums.get(enumName)?.deprecatedValues;
    if (deprecated === undefined || deprecated.size === 0) return;
    for (const item of Array.isArray(value) ? (value as readonly unknown[]) : [value]) {
      if (typeof item === 'string') this.#add('enumValue', `${enumName}.${item}`, deprecated.get(item));
    }
  }

  /** What was collected, in coordinate order (so equal questions give equal lists, and equal headers), frozen. */
  list(): readonly DeprecatedUse[] {
    if (this.#uses.size === 0) return NO_DEPRECATIONS;
    return Object.freeze([...this.#uses.values()].sort((a, b) => (a.coordinate < b.coordinate ? -1 : a.coordinate > b.coordinate ? 1 : 0)).map((use) => Object.freeze(use)));
  }

  #add(kind: DeprecatedUse['kind'], coordinate: string, deprecation: Deprecation | undefined): void {
    if (deprecation === undefined || this.#uses.has(coordinate)) return;
    this.#uses.set(coordinate, { kind, coordinate, reason: deprecation.reason, sunset: deprecation.sunset, since: deprecation.since });
  }
}

/** The deprecated things of several plans (a GraphQL operation's root fields), each once, in coordinate order. */
export function mergeDeprecations(lists: readonly (readonly DeprecatedUse[])[]): readonly DeprecatedUse[] {
  const nonEmpty = lists.filter((list) => list.length > 0);
  if (nonEmpty.length === 0) return NO_DEPRECATIONS;
  if (nonEmpty.length === 1) return nonEmpty[0] as readonly DeprecatedUse[];
  const byCoordinate = new Map<string, DeprecatedUse>();
  for (const list of nonEmpty) for (const use of list) byCoordinate.set(use.coordinate, use);
  return [...byCoordinate.values()].sort((a, b) => (a.coordinate < b.coordinate ? -1 : a.coordinate > b.coordinate ? 1 : 0));
}

/** Every deprecated thing the schema declares, in coordinate order: for the docs page, `diglot deprecations` and the recorded dates. */
export function schemaDeprecations(model: Model): readonly DeprecatedUse[] {
  const collector = new DeprecationCollector();
  for (const type of model.types) {
    collector.type(type);
    for (const field of type.fields) {
      collector.field(type, field);
      if (field.kind === 'file') collector.argument(type, field, 'size', field.sizeDeprecation);
    }
  }
  for (const enumType of model.enums.values()) collector.enumValues(model, enumType.name, [...(enumType.deprecatedValues?.keys() ?? [])]);
  return collector.list();
}
