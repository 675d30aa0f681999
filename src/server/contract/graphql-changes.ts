import { ChangeType, CriticalityLevel, diff, type Change } from '@graphql-inspector/core';
import { getNamedType, isEnumType, isInterfaceType, isObjectType, type GraphQLSchema } from 'graphql';
import { buildGraphqlSchema } from '../../graphql/schema/build-schema.js';
import type { Model } from '../../schema/model.js';
import type { ChangeClass, ContractChange } from './contract-change.js';
import type { ContractSide } from './contract-side.js';
import { modelCoordinate } from './model-coordinate.js';

const CLASS_OF: Readonly<Record<CriticalityLevel, ChangeClass>> = {
  [CriticalityLevel.Breaking]: 'breaking',
  [CriticalityLevel.Dangerous]: 'dangerous',
  [CriticalityLevel.NonBreaking]: 'safe',
};

/** Change types that remove something: located in the old schema. */
const REMOVAL = /_REMOVED$/;

/**
 * The GraphQL side of the contract: the schemas Diglot generates from each
 * model (what clients introspect and query, not the raw SDL), compared by
 * GraphQL Inspector, each change located in the SDL that caused it.
 */
export async function graphqlChanges(from: ContractSide, to: ContractSide): Promise<ContractChange[]> {
  const next = buildGraphqlSchema(to.model).schema;
  const changes = await diff(buildGraphqlSchema(from.model).schema, next);
  const outputEnums = enumsInOutput(next);
  return changes.map((change: Change) => {
    const side = REMOVAL.test(String(change.type)) ? from : to;
    // The inspector cannot tell where an enum is used; a value added to one only requests take (orderBy's fields) reaches no reader.
    const inputOnly = change.type === ChangeType.EnumValueAdded && change.path !== undefined && !outputEnums.has(change.path.split('.')[0] ?? '');
    return {
      class: inputOnly ? 'safe' : CLASS_OF[change.criticality.level],
      styles: ['graphql'],
      message: change.message,
      location: side.locator.locate(change.path === undefined ? '' : graphqlCoordinate(side.model, change.path)),
    };
  });
}

/** A generated schema coordinate (`CreatePostInput.title`, `Query.posts.first`) → the model coordinate behind it (`Post.title`, `Post`). */
function graphqlCoordinate(model: Model, path: string): string {
  const [typeName = '', member, ...rest] = path.split('.');
  if (typeName === 'Query' || typeName === 'Subscription' || typeName === 'Mutation') {
    const type = model.types.find((candidate) => rootFieldType(candidate.name, candidate.plural, member ?? ''));
    return type?.name ?? path;
  }
  const derived = /^(?:Create|Update)(\w+)Input$|^(\w+?)(?:Filter|OrderField|Order)$/.exec(typeName);
  const base = derived === null ? typeName : (derived[1] ?? derived[2] ?? typeName);
  return modelCoordinate(model, [base, member, ...rest].filter((part): part is string => part !== undefined));
}

function rootFieldType(name: string, plural: string, field: string): boolean {
  const one = name.charAt(0).toLowerCase() + name.slice(1);
  return (
    field === one ||
    field === plural ||
    field === `${plural}Count` ||
    new RegExp(`^${one}(?:Created|Updated|Deleted)$`).test(field) ||
    new RegExp(`^(?:create|update|delete|add|remove)${name}(?:\\w*)$`).test(field)
  );
}

/** Enums some object field returns: a value added to one may reach a reader that does not know it. */
function enumsInOutput(schema: GraphQLSchema): Set<string> {
  const names = new Set<string>();
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) && !isInterfaceType(type)) continue;
    for (const field of Object.values(type.getFields())) {
      const named = getNamedType(field.type);
      if (isEnumType(named)) names.add(named.name);
    }
  }
  return names;
}
