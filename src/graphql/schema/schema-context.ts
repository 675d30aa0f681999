import type { GraphQLEnumType, GraphQLInputObjectType, GraphQLObjectType } from 'graphql';
import type { Deprecation, Model, ResourceType } from '../../schema/model.js';

/**
 * The generated types of one schema build, each made once on first use
 * (object types refer to each other, so they are built lazily by name).
 */
export interface SchemaContext {
  readonly model: Model;
  enumType(name: string): GraphQLEnumType;
  objectType(name: string): GraphQLObjectType;
  filterType(name: string): GraphQLInputObjectType;
  orderType(name: string): GraphQLInputObjectType;
  /** Shared operator inputs: `StringFilter`, `IntFilter`, `RoleFilter`, … */
  operatorFilter(name: string): GraphQLInputObjectType;
}

export function memo<V>(make: (key: string) => V): (key: string) => V {
  const made = new Map<string, V>();
  return (key) => {
    const hit = made.get(key);
    if (hit !== undefined) return hit;
    const value = make(key);
    made.set(key, value);
    return value;
  };
}

export function resourceType(model: Model, name: string): ResourceType {
  const type = model.typesByName.get(name);
  if (type === undefined) throw new Error(`The model has no type ${name}`);
  return type;
}

/** A description with a type-level deprecation folded in (GraphQL cannot deprecate types), its sunset too. */
export function describe(description: string | undefined, deprecation: Deprecation | undefined): string | undefined {
  if (deprecation === undefined) return description;
  const note = `Deprecated: ${deprecation.reason}${deprecation.sunset === undefined ? '' : ` (sunset ${deprecation.sunset})`}`;
  return description === undefined ? note : `${description}\n\n${note}`;
}
