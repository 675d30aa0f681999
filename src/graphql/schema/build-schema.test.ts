import { readFileSync } from 'node:fs';
import { assertValidSchema, type GraphQLEnumType, type GraphQLInputObjectType, type GraphQLObjectType } from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadSchema } from '../../schema/load-schema.js';
import type { Model } from '../../schema/model.js';
import { buildGraphqlSchema } from './build-schema.js';

function exampleModel(): Model {
  const file = new URL('../../../examples/social/schema.graphql', import.meta.url);
  const result = loadSchema([{ file: 'schema.graphql', text: readFileSync(file, 'utf8') }]);
  if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
  return result.model;
}

describe('buildGraphqlSchema', () => {
  const generated = buildGraphqlSchema(exampleModel());
  const { schema } = generated;

  it('builds a valid schema', () => {
    expect(() => { assertValidSchema(schema); }).not.toThrow();
  });

  it('gives object types every field, relations with list arguments, counts and _cursor', () => {
    const user = schema.getType('User') as GraphQLObjectType;
    const fields = signatures(user);
    expect(fields).toContain('profilePicture(size: Int): String');
    expect(fields).toContain('posts(filter: PostFilter, orderBy: [PostOrder!], first: Int, after: String, last: Int, before: String): [Post!]!');
    expect(fields).toContain('postsCount(filter: PostFilter): Int!');
    expect(fields).toContain('followersCount(filter: UserFilter): Int!');
    expect(fields).toContain('role: Role!');
    expect(fields).toContain('interests: [String!]');
    expect(fields).toContain('preferences: JSON');
    expect(fields).toContain('createdAt: DateTime!');
    expect(fields.at(-1)).toBe('_cursor: String');
    expect(user.getFields()['handle']?.deprecationReason).toBe('Use username.');
    expect(signatures(schema.getType('Post') as GraphQLObjectType)).toContain('author: User!');
    expect(user.description).toContain('Someone with an account');
  });

  it('has the root fields of the brief', () => {
    const query = schema.getQueryType()?.getFields() ?? {};
    expect(Object.keys(query)).toEqual(expect.arrayContaining(['user', 'users', 'usersCount', 'orderItem', 'orderItems', 'orderItemsCount']));
    const mutation = schema.getMutationType()?.getFields() ?? {};
    expect(Object.keys(mutation)).toEqual(
      expect.arrayContaining(['createUser', 'updateUser', 'deleteUser', 'addUserFollowing', 'removeUserFollowing', 'addUserFollowers', 'createPost']),
    );
    expect(String(mutation['createUser']?.type)).toBe('User!');
    expect(String(mutation['deleteUser']?.type)).toBe('User');
    expect(generated.mutation.get('addUserFollowing')).toMatchObject({ kind: 'connect' });
  });

  it('puts only writable fields in inputs, required ones non-null on create', () => {
    const create = (schema.getType('CreateUserInput') as GraphQLInputObjectType).getFields();
    expect(String(create['name']?.type)).toBe('String!');
    expect(String(create['role']?.type)).toBe('Role');
    expect(create['id']).toBeUndefined();
    // @readonly with a write rule (moderators): input for those the rule allows.
    expect(String(create['suspendedReason']?.type)).toBe('String');
    expect(create['createdAt']).toBeUndefined();
    expect(create['posts']).toBeUndefined();
    const post = (schema.getType('CreatePostInput') as GraphQLInputObjectType).getFields();
    // Taken from the caller when left out (@default(fromAuth: "id")); the title has no default.
    expect(String(post['author']?.type)).toBe('ID');
    expect(String(post['title']?.type)).toBe('String!');
    const update = (schema.getType('UpdateUserInput') as GraphQLInputObjectType).getFields();
    expect(String(update['name']?.type)).toBe('String');
  });

  it('offers each scalar the operators the planner accepts', () => {
    const ops = (name: string): string[] => Object.keys((schema.getType(name) as GraphQLInputObjectType).getFields());
    expect(ops('StringFilter')).toEqual(['eq', 'ne', 'lt', 'lte', 'gt', 'gte', 'in', 'contains', 'startsWith', 'isNull']);
    expect(ops('BooleanFilter')).toEqual(['eq', 'ne', 'in', 'isNull']);
    expect(ops('RoleFilter')).toEqual(['eq', 'ne', 'in', 'isNull']);
    const userFilter = (schema.getType('UserFilter') as GraphQLInputObjectType).getFields();
    expect(String(userFilter['and']?.type)).toBe('[UserFilter!]');
    expect(userFilter['preferences']).toBeUndefined();
    expect(userFilter['posts']).toBeUndefined();
    expect(String((schema.getType('PostFilter') as GraphQLInputObjectType).getFields()['author']?.type)).toBe('IDFilter');
    const orderFields = (schema.getType('UserOrderField') as GraphQLEnumType).getValues().map((v) => v.name);
    expect(orderFields).toContain('createdAt');
    expect(orderFields).not.toContain('interests');
  });
});

function signatures(type: GraphQLObjectType): string[] {
  return Object.values(type.getFields()).map((field) => {
    const args = field.args.length === 0 ? '' : `(${field.args.map((arg) => `${arg.name}: ${String(arg.type)}`).join(', ')})`;
    return `${field.name}${args}: ${String(field.type)}`;
  });
}

describe('type-level facts', () => {
  it('folds a type deprecation into its description and prints as SDL', async () => {
    const result = loadSchema([{ file: 'w.graphql', text: '"A gadget." type Widget @deprecated(reason: "Use Gadget.") { id: ID! name: String }' }]);
    if (!result.ok) throw new Error(result.problems.map((p) => p.message).join('\n'));
    const widget = buildGraphqlSchema(result.model).schema.getType('Widget');
    expect(widget?.description).toBe('A gadget.\n\nDeprecated: Use Gadget.');
    const { printGraphqlSchema } = await import('../graphql-api.js');
    const sdl = printGraphqlSchema(result.model);
    expect(sdl).toContain('type Widget {');
    expect(sdl).toContain('widgetsCount(filter: WidgetFilter): Int!');
  });
});
