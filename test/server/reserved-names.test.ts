/**
 * The names the schema check refuses (src/schema/reserved-names.ts) against
 * what the server really takes beside the resources: every first path
 * segment of its routes, every GraphQL type it adds and every root field a
 * type could also derive. A route, type or field added to the server
 * without reserving its name fails here, before a user's schema meets it
 * at start-up. The example with its rules serves every feature (accounts,
 * files, the admin API, the change stream).
 */
import { assertValidSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraphqlSchema } from '../../src/graphql/schema/build-schema.js';
import { changeStreamPath } from '../../src/rest/change-stream.js';
import { BUILT_IN_SCALARS, ROOT_TYPE_NAMES } from '../../src/schema/directives.js';
import { loadSchema } from '../../src/schema/load-schema.js';
import type { Model } from '../../src/schema/model.js';
import { isAdminName, RESERVED_PATHS, RESERVED_ROOT_FIELDS } from '../../src/schema/reserved-names.js';
import { typeNames } from '../../src/schema/renamed.js';
import { openDatabase } from '../../src/storage/open-database.js';
import { modelOf } from '../support/model-of.js';
import { parseRoutes } from '../support/routes.js';
import { startServer, type TestServer } from '../support/start-server.js';

/** Whether a schema declaring just this type loads. */
function loads(name: string): boolean {
  return loadSchema([{ file: 'one.graphql', text: `type ${name} { id: ID! }` }]).ok;
}

describe('the names the server takes for itself', () => {
  let server: TestServer;
  let model: Model;
  beforeAll(async () => {
    server = await startServer(() => openDatabase(':memory:'), { rules: true, seed: false });
    model = server.model;
  });
  afterAll(() => server.close());

  it('reserves the first segment of every route that is not a collection', () => {
    const collections = new Set(model.types.map((type) => type.path));
    const segments = new Set(parseRoutes(server.app.printRoutes({ commonPrefix: false })).map((route) => route.path.split('/')[1] ?? ''));
    // A type's path is kebab-case words: `/`, `/openapi.json` and `/.well-known/…` cannot be one. The change stream moves aside for a type that owns its path.
    const takeable = [...segments].filter((segment) => /^[a-z0-9_-]+$/.test(segment) && !collections.has(segment) && `/${segment}` !== changeStreamPath(model));
    expect(takeable.length).toBeGreaterThan(5);
    expect(takeable.filter((segment) => !RESERVED_PATHS.has(segment))).toEqual([]);
  });

  it('refuses as a type name every GraphQL type the server adds beside the resources’ own', () => {
    const { schema } = buildGraphqlSchema(model);
    const derived = new Set([
      ...BUILT_IN_SCALARS,
      ...ROOT_TYPE_NAMES,
      ...model.types.flatMap((type) => [type.name, `${type.name}Filter`, `${type.name}Order`, `${type.name}OrderField`, `Create${type.name}Input`, `Update${type.name}Input`]),
      ...[...model.enums.keys()].flatMap((name) => [name, `${name}Filter`]),
    ]);
    const added = Object.keys(schema.getTypeMap()).filter((name) => !name.startsWith('__') && !derived.has(name));
    expect(added).toEqual(expect.arrayContaining(['AdminApiKey', 'Upload', 'AuthSession', 'OrderDirection', 'StringFilter']));
    expect(added.filter(loads)).toEqual([]);
  });

  it('refuses a type whose root fields would be one the server adds', () => {
    const { schema } = buildGraphqlSchema(model);
    const own = new Set(
      model.types.flatMap((type) => {
        const { one, plural } = typeNames(type.name);
        return [one, plural, `${plural}Count`, `${one}Created`, `${one}Updated`, `${one}Deleted`];
      }),
    );
    const fields = [schema.getQueryType(), schema.getSubscriptionType()].flatMap((root) => Object.keys(root?.getFields() ?? {})).filter((field) => !own.has(field));
    // A type's Query and Subscription fields are its name (and plural) in camelCase; the admin API's are all in its namespace.
    expect(fields.filter((field) => !isAdminName(field) && !RESERVED_ROOT_FIELDS.has(field))).toEqual([]);
    for (const field of RESERVED_ROOT_FIELDS.keys()) expect(loads(field.charAt(0).toUpperCase() + field.slice(1))).toBe(false);
    // Its mutations are create…, update…, delete… and, for a many-to-many field, add… and remove…: none of the server's own may look like one.
    const ownMutations = new Set(
      model.types.flatMap((type) => [
        ...['create', 'update', 'delete'].map((verb) => `${verb}${type.name}`),
        ...type.fields.filter((field) => field.kind === 'manyToMany').flatMap((field) => ['add', 'remove'].map((verb) => `${verb}${type.name}${field.name.charAt(0).toUpperCase()}${field.name.slice(1)}`)),
      ]),
    );
    const mutations = Object.keys(schema.getMutationType()?.getFields() ?? {}).filter((field) => !ownMutations.has(field) && !isAdminName(field));
    expect(mutations.length).toBeGreaterThan(5);
    expect(mutations.filter((field) => /^(create|update|delete|add|remove)[A-Z]/.test(field))).toEqual([]);
  });

  it('lets a type be named Admin: what it derives (AdminFilter, AdminOrder…) is not the admin API’s', () => {
    const { schema } = buildGraphqlSchema(modelOf('type Admin { id: ID!\n  name: String }\ntype Administrator { id: ID! }'));
    expect(() => assertValidSchema(schema)).not.toThrow();
    expect(schema.getType('AdminFilter')).toBeDefined();
    expect(schema.getType('AdminApiKey')).toBeDefined();
  });
});
