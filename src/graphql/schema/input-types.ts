import { GraphQLID, GraphQLInputObjectType, GraphQLNonNull, type GraphQLInputFieldConfigMap } from 'graphql';
import { takesInput, type ResourceType } from '../../schema/model.js';
import { renamedReason } from '../../schema/renamed.js';
import { scalarInputType } from './object-types.js';
import { UploadScalar } from './scalars.js';
import type { SchemaContext } from './schema-context.js';

/**
 * `Create<T>Input` and `Update<T>Input`: the writable fields, as REST's
 * body accepts them. Server-managed fields (`id`, `@readonly`, timestamps)
 * are absent; to-one relations are set by id; list relations change through
 * their own mutations. A file field takes an `Upload` (the multipart request
 * spec), or null to remove the file.
 *
 * Returns undefined when the type has no writable field (an input object
 * with no fields is not valid GraphQL).
 */
export function mutationInputType(ctx: SchemaContext, type: ResourceType, mode: 'create' | 'update'): GraphQLInputObjectType | undefined {
  const fields: GraphQLInputFieldConfigMap = {};
  for (const field of type.fields) {
    if (field.kind === 'scalar' && takesInput(field)) {
      // A field taken from the caller (`@default(fromAuth:)`) may be left out; a renamed one may come under its old name instead (validateInput requires one).
      const required = mode === 'create' && !field.optionalOnCreate && field.defaultFromAuth === undefined && field.renamedFrom === undefined;
      fields[field.name] = {
        type: scalarInputType(ctx, field, required),
        description: withImmutableNote(field.description, field.immutable, mode),
        // graphql-js refuses deprecation on required input fields.
        deprecationReason: required ? undefined : field.deprecated,
      };
    } else if (field.kind === 'toOne' && takesInput(field)) {
      const required = mode === 'create' && !field.nullable && field.defaultFromAuth === undefined && field.renamedFrom === undefined;
      fields[field.name] = {
        type: required ? new GraphQLNonNull(GraphQLID) : GraphQLID,
        description: withImmutableNote(field.description ?? `The id of a ${field.target}.`, field.immutable, mode),
        deprecationReason: required ? undefined : field.deprecated,
      };
    } else if (field.kind === 'file') {
      fields[field.name] = {
        type: UploadScalar,
        description: [field.description, 'An uploaded image (JPEG, PNG, WebP, AVIF or GIF); null removes it.'].filter(Boolean).join('\n\n'),
        deprecationReason: field.deprecated,
      };
    }
  }
  // The old name of a renamed field (`@renamed`) is taken too, deprecated: the same input under either name (both, and different, is refused).
  for (const field of type.fields) {
    const given = fields[field.name];
    if (field.renamedFrom !== undefined && given !== undefined) fields[field.renamedFrom] = { ...given, deprecationReason: renamedReason(field.name) };
  }
  if (Object.keys(fields).length === 0) return undefined;
  return new GraphQLInputObjectType({
    name: mode === 'create' ? `Create${type.name}Input` : `Update${type.name}Input`,
    description:
      mode === 'create'
        ? `A new ${type.name}. Fields left out take their default (or null).`
        : `Changes to a ${type.name}: only the fields given change; null clears a nullable field.`,
    fields,
  });
}

/**
 * `@immutable` in the update input: kept (an update may repeat the value it
 * holds, as REST's PATCH may), and said in its description.
 */
function withImmutableNote(description: string | undefined, immutable: boolean, mode: 'create' | 'update'): string | undefined {
  if (!immutable || mode === 'create') return description;
  const note = 'Set once, when the record is created: another value is refused with INPUT_IMMUTABLE_FIELD.';
  return description === undefined ? note : `${description}\n\n${note}`;
}
