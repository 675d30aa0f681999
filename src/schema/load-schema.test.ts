import { readFileSync } from 'node:fs';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatProblems, loadSchema, loadSchemaFiles } from './load-schema.js';
import type { Model } from './model.js';

const EXAMPLE = 'examples/social/schema.graphql';

function modelOf(text: string): Model {
  const result = loadSchema([{ file: 'schema.graphql', text }]);
  if (!result.ok) expect.fail(formatProblems(result.problems));
  return result.model;
}

function problemsOf(text: string) {
  const result = loadSchema([{ file: 'schema.graphql', text }]);
  if (result.ok) expect.fail('expected problems, the schema loaded');
  return result.problems;
}

async function loadExample(): Promise<Model> {
  const result = await loadSchemaFiles([EXAMPLE]);
  if (!result.ok) expect.fail(formatProblems(result.problems));
  return result.model;
}

describe('the example schema', () => {
  it('loads with its five resources, named for REST, GraphQL and SQL', async () => {
    const model = await loadExample();
    expect(model.types.map((type) => [type.name, type.plural, type.path, type.table])).toEqual([
      ['User', 'users', 'users', 'users'],
      ['Post', 'posts', 'posts', 'posts'],
      ['Product', 'products', 'products', 'products'],
      ['Order', 'orders', 'orders', 'orders'],
      ['OrderItem', 'orderItems', 'order-items', 'order_items'],
    ]);
    expect([...model.enums.keys()]).toEqual(['Role', 'Theme', 'PostStatus', 'OrderStatus']);
    expect(model.enums.get('OrderStatus')?.values).toContain('PENDING');
  });

  it('has a User of about thirty fields that needs only name and email to create', async () => {
    const user = (await loadExample()).typesByName.get('User');
    expect(user?.fields.length).toBeGreaterThanOrEqual(30);
    const required = user?.fields.filter((field) => field.kind === 'scalar' && !field.optionalOnCreate).map((field) => field.name);
    expect(required).toEqual(['name', 'email']);
    // Nothing else can block a create: no non-null image, no to-one relation on User.
    expect(user?.fields.some((field) => (field.kind === 'file' || field.kind === 'toOne') && !field.nullable)).toBe(false);
    expect(user?.fields[0]).toMatchObject({ name: 'id', kind: 'scalar', auto: 'id', readonly: true, column: 'id' });
  });

  it('pairs User.posts with Post.author', async () => {
    const model = await loadExample();
    expect(model.typesByName.get('User')?.fieldsByName.get('posts')).toMatchObject({
      kind: 'toMany',
      target: 'Post',
      inverse: 'author',
      foreignKey: 'author_id',
    });
    expect(model.typesByName.get('Post')?.fieldsByName.get('author')).toMatchObject({
      kind: 'toOne',
      target: 'User',
      column: 'author_id',
      inverse: 'posts',
      nullable: false,
    });
  });

  it('pairs Order.items with OrderItem.order and User.orders with Order.customer', async () => {
    const model = await loadExample();
    expect(model.typesByName.get('Order')?.fieldsByName.get('items')).toMatchObject({ kind: 'toMany', inverse: 'order', foreignKey: 'order_id' });
    expect(model.typesByName.get('OrderItem')?.fieldsByName.get('order')).toMatchObject({ kind: 'toOne', inverse: 'items', column: 'order_id' });
    expect(model.typesByName.get('User')?.fieldsByName.get('orders')).toMatchObject({ kind: 'toMany', inverse: 'customer', foreignKey: 'customer_id' });
    expect(model.typesByName.get('OrderItem')?.fieldsByName.get('product')).toMatchObject({ kind: 'toOne', inverse: undefined });
  });

  it('stores followers and following in one join table, read from opposite columns', async () => {
    const model = await loadExample();
    const user = model.typesByName.get('User');
    expect(user?.fieldsByName.get('followers')).toMatchObject({
      kind: 'manyToMany',
      target: 'User',
      inverse: 'following',
      joinTable: 'users_followers',
      ownColumn: 'source_id',
      otherColumn: 'target_id',
    });
    expect(user?.fieldsByName.get('following')).toMatchObject({
      kind: 'manyToMany',
      target: 'User',
      inverse: 'followers',
      joinTable: 'users_followers',
      ownColumn: 'target_id',
      otherColumn: 'source_id',
    });
    expect(model.joinTables).toEqual([
      { name: 'users_followers', sourceColumn: 'source_id', sourceType: 'User', targetColumn: 'target_id', targetType: 'User' },
    ]);
  });

  it('carries the image field in the seed shape', async () => {
    const model = await loadExample();
    expect(model.typesByName.get('User')?.fieldsByName.get('profilePicture')).toMatchObject({
      kind: 'file',
      column: 'profile_picture',
      nullable: true,
      image: { sizes: [32, 64, 128, 256] },
    });
  });

  it('uses every Diglot directive, and @cache with both scopes', async () => {
    const text = readFileSync(EXAMPLE, 'utf8');
    for (const directive of ['unique', 'index', 'readonly', 'createdAt', 'updatedAt', 'default', 'cache', 'image', 'deprecated', 'allow', 'roles']) {
      expect(text, `@${directive}`).toMatch(new RegExp(`@${directive}\\b`));
    }
    const model = await loadExample();
    const scopes = new Set(model.types.flatMap((type) => [type.cache, ...type.fields.map((field) => field.cache)]).map((hint) => hint?.scope));
    expect(scopes).toEqual(new Set(['PUBLIC', 'PRIVATE', undefined]));
    expect(model.typesByName.get('Product')?.fieldsByName.get('priceCents')?.deprecated).toBe('Use price.');
    expect(model.typesByName.get('Product')?.fieldsByName.get('soldCount')).toMatchObject({ readonly: true, optionalOnCreate: true, default: { value: 0 } });
    expect(model.typesByName.get('Order')?.fieldsByName.get('status')).toMatchObject({ enum: 'OrderStatus', default: { value: 'PENDING' } });
    expect(model.typesByName.get('Post')?.indexes).toEqual([['author', 'createdAt']]);
  });

  it('states who may do what, with Role as the role enum', async () => {
    const model = await loadExample();
    expect(model.hasRules).toBe(true);
    expect(model.roles).toEqual({ enum: 'Role', values: ['MEMBER', 'MODERATOR', 'ADMIN'], admin: 'ADMIN' });
    const author = { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['author'] }, right: { kind: 'auth', path: ['id'] } };
    const post = model.typesByName.get('Post');
    expect(post?.rules.read).toMatchObject({
      source: 'status == PUBLISHED || author == auth.id || auth.role in [MODERATOR, ADMIN]',
      expr: {
        kind: 'or',
        items: [
          { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['status'] }, right: { kind: 'value', value: 'PUBLISHED' } },
          author,
          { kind: 'in', item: { kind: 'auth', path: ['role'] }, values: [{ kind: 'value', value: 'MODERATOR' }, { kind: 'value', value: 'ADMIN' }] },
        ],
      },
    });
    expect(post?.rules.create?.expr).toEqual(author);
    expect(post?.rules.update?.expr).toEqual({
      kind: 'or',
      items: [author, { kind: 'compare', op: 'eq', left: { kind: 'auth', path: ['role'] }, right: { kind: 'value', value: 'MODERATOR' } }],
    });
    expect(post?.fieldsByName.get('author')).toMatchObject({ kind: 'toOne', defaultFromAuth: ['id'], nullable: false, onDelete: 'CASCADE' });
    // What deleting a user does is said in the schema: their posts go, their orders hold the delete back.
    expect(model.typesByName.get('Order')?.fieldsByName.get('customer')).toMatchObject({ kind: 'toOne', onDelete: 'RESTRICT' });
    expect(model.typesByName.get('OrderItem')?.fieldsByName.get('order')).toMatchObject({ kind: 'toOne', onDelete: 'CASCADE' });
    expect(model.typesByName.get('OrderItem')?.rules).toEqual({
      read: {
        expr: { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['order', 'customer'] }, right: { kind: 'auth', path: ['id'] } },
        source: 'order.customer == auth.id',
        location: { file: EXAMPLE, line: 196, column: 29 },
      },
    });
    // Products are read by anyone and written by admins alone: no create, update or delete rule.
    expect(Object.keys(model.typesByName.get('Product')?.rules ?? {})).toEqual(['read']);
    const user = model.typesByName.get('User');
    expect(Object.keys(user?.rules ?? {})).toEqual(['read', 'create', 'update', 'delete']);
    const self = { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['id'] }, right: { kind: 'auth', path: ['id'] } };
    for (const name of ['email', 'phone', 'birthday', 'preferences']) {
      expect(user?.fieldsByName.get(name)?.rules, name).toEqual({ read: expect.objectContaining({ expr: self }) });
    }
    const never = { kind: 'const', value: false };
    for (const name of ['role', 'isVerified', 'followers']) {
      expect(user?.fieldsByName.get(name)?.rules, name).toEqual({ write: expect.objectContaining({ expr: never }) });
    }
    expect(user?.fieldsByName.get('following')?.rules).toEqual({});
    expect(user?.fieldsByName.get('suspendedReason')).toMatchObject({ readonly: true, rules: { write: { source: 'auth.role == MODERATOR' } } });
  });

  it('keeps descriptions and locations', async () => {
    const model = await loadExample();
    const user = model.typesByName.get('User');
    expect(user?.description).toMatch(/^Someone with an account/);
    expect(user?.location).toMatchObject({ file: EXAMPLE, column: 6 });
    expect(user?.fieldsByName.get('email')?.description).toBe('Sign-in address; no two users share one.');
  });
});

describe('the model', () => {
  const SDL = 'type User { id: ID! name: String! tags: [String!] }';

  it('is deeply frozen, maps included', () => {
    const model = modelOf(SDL);
    const user = model.typesByName.get('User');
    expect(Object.isFrozen(model)).toBe(true);
    expect(Object.isFrozen(user?.fields)).toBe(true);
    expect(Object.isFrozen(user?.fields[0])).toBe(true);
    expect(Object.isFrozen(user?.fields[0]?.location)).toBe(true);
    expect(() => (model.types as unknown[]).push(1)).toThrow(TypeError);
    expect(() => (model.typesByName as Map<string, unknown>).set('X', 1)).toThrow(TypeError);
    expect(() => {
      (model.enums as Map<string, unknown>).clear();
    }).toThrow(TypeError);
    expect(() => (user?.fieldsByName as Map<string, unknown>).delete('name')).toThrow(TypeError);
    expect(model.typesByName.get('User')?.name).toBe('User');
  });

  it('hashes the normalized SDL: layout and comments do not count, content does', () => {
    const hash = modelOf(SDL).hash;
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(modelOf(`# a comment\ntype User {\n  id: ID!\n  name: String!\n  tags: [String!]\n}\n`).hash).toBe(hash);
    expect(modelOf('type User { id: ID! name: String tags: [String!] }').hash).not.toBe(hash);
  });

  it('names columns from fields', () => {
    const model = modelOf('type BlogPost { id: ID! createdAt: DateTime! @createdAt mainAuthor: Person } type Person { id: ID! }');
    const post = model.typesByName.get('BlogPost');
    expect(post).toMatchObject({ plural: 'blogPosts', path: 'blog-posts', table: 'blog_posts' });
    expect(post?.fieldsByName.get('createdAt')).toMatchObject({ column: 'created_at', auto: 'createdAt', readonly: true });
    expect(post?.fieldsByName.get('mainAuthor')).toMatchObject({ kind: 'toOne', column: 'main_author_id', nullable: true });
    expect(model.typesByName.get('Person')).toMatchObject({ plural: 'people', path: 'people', table: 'people' });
  });
});

describe('problems', () => {
  it('reports three mistakes in one run, located, with suggestions', () => {
    const sdl = [
      'type User {', //                        line 1
      '  id: ID!', //                          line 2
      '  bestFriend: Usr', //                  line 3: Usr at column 15
      '  email: String! @uniqe', //            line 4: @uniqe at column 18
      '  age: Int @default(value: "x")', //    line 5: "x" at column 28
      '}',
    ].join('\n');
    const problems = problemsOf(sdl);
    expect(problems).toEqual([
      { file: 'schema.graphql', line: 3, column: 15, code: 'SCHEMA_UNKNOWN_TYPE', message: 'Unknown type "Usr".', suggestion: 'User' },
      { file: 'schema.graphql', line: 4, column: 18, code: 'SCHEMA_UNKNOWN_DIRECTIVE', message: 'Unknown directive "@uniqe".', suggestion: '@unique' },
      {
        file: 'schema.graphql',
        line: 5,
        column: 28,
        code: 'SCHEMA_BAD_DEFAULT',
        message: '@default value "x" does not fit field "User.age" of type Int: expected a 32-bit integer.',
      },
    ]);
    expect(formatProblems(problems).split('\n')).toEqual([
      'schema.graphql:3:15 SCHEMA_UNKNOWN_TYPE Unknown type "Usr". (did you mean User?)',
      'schema.graphql:4:18 SCHEMA_UNKNOWN_DIRECTIVE Unknown directive "@uniqe". (did you mean @unique?)',
      'schema.graphql:5:28 SCHEMA_BAD_DEFAULT @default value "x" does not fit field "User.age" of type Int: expected a 32-bit integer.',
    ]);
  });

  it('locates syntax errors in each file that has one, and reports nothing else', () => {
    const result = loadSchema([
      { file: 'a.graphql', text: 'type A {\n  id: ID!\n  name String\n}' },
      { file: 'b.graphql', text: 'type B { id: ID! a: A }' },
      { file: 'c.graphql', text: '\n\ntype C {{ id: ID! }' },
    ]);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.problems.map((p) => [p.file, p.line, p.column, p.code])).toEqual([
      ['a.graphql', 3, 8, 'SCHEMA_SYNTAX'],
      ['c.graphql', 3, 9, 'SCHEMA_SYNTAX'],
    ]);
    expect(result.problems[0]?.message).toBe('Expected ":", found Name "String".');
  });

  it('joins several files into one schema, keeping each location in its file', () => {
    const result = loadSchema([
      { file: 'users.graphql', text: 'type User {\n  id: ID!\n  posts: [Post!]!\n}' },
      { file: 'posts.graphql', text: 'type Post {\n  id: ID!\n  author: User!\n}\nextend type User {\n  nickname: String\n}' },
      { file: 'empty.graphql', text: '# nothing here yet\n' },
    ]);
    if (!result.ok) expect.fail(formatProblems(result.problems));
    const user = result.model.typesByName.get('User');
    expect(user?.fields.map((field) => field.name)).toEqual(['id', 'posts', 'nickname']);
    expect(user?.fieldsByName.get('posts')).toMatchObject({ kind: 'toMany', inverse: 'author', location: { file: 'users.graphql', line: 3, column: 3 } });
    expect(user?.fieldsByName.get('nickname')?.location).toEqual({ file: 'posts.graphql', line: 6, column: 3 });
    expect(result.model.typesByName.get('Post')?.location).toEqual({ file: 'posts.graphql', line: 1, column: 6 });
  });

  it('sorts problems by the order of the files, then line and column', () => {
    const result = loadSchema([
      { file: 'z.graphql', text: 'type Z {\n  id: ID!\n  a: Nope\n}' },
      { file: 'a.graphql', text: 'type A {\n  name: String\n}' },
    ]);
    if (result.ok) expect.fail('expected problems');
    expect(result.problems.map((p) => `${p.file}:${p.line}:${p.column} ${p.code}`)).toEqual([
      'z.graphql:3:6 SCHEMA_UNKNOWN_TYPE',
      'a.graphql:1:6 SCHEMA_MISSING_ID',
    ]);
  });

  it('reports a missing or mistyped id', () => {
    expect(problemsOf('type User {\n  name: String\n}').map((p) => [p.code, p.line, p.column])).toEqual([['SCHEMA_MISSING_ID', 1, 6]]);
    expect(problemsOf('type User {\n  id: String!\n}').map((p) => [p.code, p.line, p.column])).toEqual([['SCHEMA_BAD_ID', 2, 7]]);
    expect(problemsOf('type User { id: ID }').map((p) => p.code)).toEqual(['SCHEMA_BAD_ID']);
    expect(problemsOf('type User { id: ID! @unique }').map((p) => p.code)).toEqual(['SCHEMA_BAD_ID']);
  });

  it('refuses root types, built-in names and unsupported definitions', () => {
    const problems = problemsOf(
      [
        'type Query { users: [User!]! }',
        'type User { id: ID! }',
        'enum JSON { A }',
        'interface Node { id: ID! }',
        'input UserInput { name: String }',
        'union Thing = User',
        'scalar Email',
        'scalar DateTime',
        'schema { query: User }',
        'directive @mine on FIELD_DEFINITION',
      ].join('\n'),
    );
    expect(problems.map((p) => [p.line, p.code])).toEqual([
      [1, 'SCHEMA_RESERVED_NAME'],
      [3, 'SCHEMA_RESERVED_NAME'],
      [4, 'SCHEMA_UNSUPPORTED_DEFINITION'],
      [5, 'SCHEMA_UNSUPPORTED_DEFINITION'],
      [6, 'SCHEMA_UNSUPPORTED_DEFINITION'],
      [7, 'SCHEMA_UNSUPPORTED_DEFINITION'],
      [9, 'SCHEMA_UNSUPPORTED_DEFINITION'],
      [10, 'SCHEMA_UNSUPPORTED_DEFINITION'],
    ]);
  });

  it('refuses the names the server takes for itself: the admin namespace, its GraphQL types, its routes, its root fields', () => {
    const problems = problemsOf(
      [
        'type AdminNote { id: ID! }',
        'enum ADMINLevel { LOW }',
        'type Upload { id: ID! }',
        'enum StringFilter { A }',
        'type File { id: ID! }',
        'type Asset { id: ID! }',
        'type Me { id: ID! }',
        'type Picture @renamed(from: "Doc") { id: ID! }',
        // Free: the admin prefix alone or as part of a word, a type owning /events (the stream moves), a rename away from nothing reserved.
        'type Admin { id: ID! }',
        'type Administrator { id: ID! }',
        'type Event { id: ID! }',
        'type Level { id: ID! }',
      ].join('\n'),
    );
    expect(problems.map((p) => [p.line, p.column, p.code, p.suggestion])).toEqual([
      [1, 6, 'SCHEMA_RESERVED_NAME', 'Note'],
      // `Level` is declared: no suggestion of a name already taken.
      [2, 6, 'SCHEMA_RESERVED_NAME', undefined],
      [3, 6, 'SCHEMA_RESERVED_NAME', undefined],
      [4, 6, 'SCHEMA_RESERVED_NAME', undefined],
      [5, 6, 'SCHEMA_RESERVED_NAME', undefined],
      [6, 6, 'SCHEMA_RESERVED_NAME', undefined],
      [7, 6, 'SCHEMA_RESERVED_NAME', undefined],
      [8, 29, 'SCHEMA_RESERVED_NAME', undefined],
    ]);
    expect(problems.map((p) => p.message)).toEqual([
      '"AdminNote" is in the admin API\'s namespace (its GraphQL types are named Admin…, its fields admin…); choose another name.',
      '"ADMINLevel" is in the admin API\'s namespace (its GraphQL types are named Admin…, its fields admin…); choose another name.',
      '"Upload" is a GraphQL type the server adds (a file sent with a mutation); choose another name.',
      '"StringFilter" is a GraphQL type the server adds (the filter of String fields); choose another name.',
      'Type "File" would be served at /files, which is the server\'s own (uploaded files); choose another name.',
      'Type "Asset" would be served at /assets, which is the server\'s own (the pages\' scripts and styles); choose another name.',
      'Type "Me" would have the GraphQL field "me", which is the server\'s own (the signed-in account); choose another name.',
      'Type "Picture" is @renamed from "Doc", whose path /docs it would keep answering, but that path is the server\'s own (the API reference); remove the directive.',
    ]);
  });

  it('does not report again a field whose type is refused', () => {
    expect(problemsOf('input Address { street: String }\ntype User { id: ID! address: Address }').map((p) => p.code)).toEqual([
      'SCHEMA_UNSUPPORTED_DEFINITION',
    ]);
  });

  it('reports duplicate types, fields and enum values', () => {
    const problems = problemsOf('type User { id: ID! name: String name: String }\ntype User { id: ID! }\nenum Role { A B A }');
    expect(problems.map((p) => [p.line, p.code])).toEqual([
      [1, 'SCHEMA_DUPLICATE_NAME'],
      [2, 'SCHEMA_DUPLICATE_NAME'],
      [3, 'SCHEMA_DUPLICATE_NAME'],
    ]);
    expect(problems[1]?.message).toContain('first declared at schema.graphql:1:6');
  });

  it('reports extensions of undeclared types, with a suggestion', () => {
    const problems = problemsOf('type User { id: ID! }\nextend type Usre { age: Int }');
    expect(problems).toMatchObject([{ code: 'SCHEMA_UNKNOWN_TYPE', line: 2, column: 13, suggestion: 'User' }]);
  });

  it('reports names that collide in storage or in URLs', () => {
    expect(problemsOf('type Post { id: ID! authorId: String author: User } type User { id: ID! }').map((p) => p.code)).toEqual([
      'SCHEMA_NAME_COLLISION',
    ]);
    expect(problemsOf('type Person { id: ID! } type People { id: ID! }').map((p) => p.code)).toContain('SCHEMA_NAME_COLLISION');
    expect(problemsOf('type user { id: ID! } type User { id: ID! }').map((p) => p.code)).toContain('SCHEMA_NAME_COLLISION');
  });

  it('reads indexes over several fields from the type, relations by name', () => {
    const model = modelOf(
      'type User { id: ID! name: String! posts: [Post!]! }\n' +
        'type Post @index(fields: ["author", "createdAt"]) @index(fields: ["title"]) { id: ID! title: String! author: User! createdAt: DateTime! @createdAt }',
    );
    expect(model.typesByName.get('Post')?.indexes).toEqual([['author', 'createdAt'], ['title']]);
    expect(model.typesByName.get('User')?.indexes).toEqual([]);
  });

  it('reports an index over fields that do not exist or have no column of their own', () => {
    const sdl =
      'type User { id: ID! name: String! posts: [Post!]! }\n' +
      'type Post @index(fields: ["autor"]) @index(fields: ["tags", "author"]) @index(fields: ["title", "title"]) @index {\n' +
      '  id: ID! title: String! tags: [String!] author: User! data: JSON @index(fields: ["title"])\n' +
      '}\n' +
      'type Tag @index(fields: ["posts"]) { id: ID! posts: [Post!]! }';
    const problems = problemsOf(sdl);
    expect(problems.map((p) => [p.code, p.line, p.message])).toEqual([
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 2, '@index names "autor", which is not a field of Post.'],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 2, expect.stringContaining('@index cannot cover "Post.tags"')],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 2, '@index names "title" twice.'],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 2, expect.stringContaining('On a type, @index needs the fields it covers')],
      ['SCHEMA_MISPLACED_DIRECTIVE', 3, expect.stringContaining('@index')],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 5, expect.stringContaining('@index cannot cover "Tag.posts"')],
    ]);
    expect(problems[0]?.suggestion).toBe('author');
  });

  it('reports an empty schema', () => {
    expect(problemsOf('enum Role { A }')).toMatchObject([{ code: 'SCHEMA_EMPTY', line: 1, column: 1 }]);
  });

  it('reports unreadable files', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'diglot-schema-'));
    const good = join(dir, 'good.graphql');
    writeFileSync(good, 'type User { id: ID! }');
    const result = await loadSchemaFiles([good, join(dir, 'missing.graphql')]);
    if (result.ok) expect.fail('expected problems');
    expect(result.problems).toMatchObject([{ file: join(dir, 'missing.graphql'), code: 'SCHEMA_FILE_UNREADABLE' }]);
    expect(result.problems[0]?.message).toContain('ENOENT');
  });
});
