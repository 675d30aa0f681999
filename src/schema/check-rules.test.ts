import { describe, expect, it } from 'vitest';
import { formatProblem, loadSchema } from './load-schema.js';
import type { Model } from './model.js';

/**
 * Lines 1–4 of every schema here. Each rule then sits on a line of its own,
 * `extend type Post @allow(read: "…")`, whose string opens at column 31:
 * a problem at offset k of the rule is at column 32 + k.
 */
const PREAMBLE = [
  'enum Role @roles(admin: "ADMIN") { MEMBER MODERATOR ADMIN }',
  'enum Status { DRAFT PUBLISHED }',
  'type User { id: ID! name: String! age: Int role: Role! posts: [Post!]! @relation(inverse: "author") avatar(size: Int): String @image(sizes: [64]) data: JSON tags: [String!] }',
  'type Post { id: ID! title: String! status: Status! views: Int author: User! editor: User at: DateTime published: Boolean! }',
];

function problemLines(lines: readonly string[]): string[] {
  const result = loadSchema([{ file: 'schema.graphql', text: lines.join('\n') }]);
  if (result.ok) expect.fail('expected problems, the schema loaded');
  return result.problems.map(formatProblem);
}

function modelOf(lines: readonly string[]): Model {
  const result = loadSchema([{ file: 'schema.graphql', text: lines.join('\n') }]);
  if (!result.ok) expect.fail(result.problems.map(formatProblem).join('\n'));
  return result.model;
}

const readRule = (rule: string): string => `extend type Post @allow(read: "${rule}")`;

describe('rule checks', () => {
  it('reports every problem of every rule, inside the string, at the offending token', () => {
    const rules = [
      'stauts == PUBLISHED',
      'author.posts.title == \\"x\\"',
      'author == editor',
      'status == PUBLISHD',
      'views == \\"10\\"',
      'published < true',
      'status > DRAFT',
      'auth.role == \\"ADMIN\\"',
      'author == 3',
      'at > \\"yesterday\\"',
      'author.name.first == \\"x\\"',
      'author.avatar == \\"x\\"',
      'author.data == 1',
      'author.tags == \\"x\\"',
      'auth == 1',
      'auth.id.x == 1',
      'views',
      'title == PUBLISHED',
      'title == nope',
      'auth.role == auth.id',
      'auth.role in [MODERATOR, OWNER]',
      'stauts == 1 || views == \\"x\\"',
    ];
    expect(problemLines([...PREAMBLE, ...rules.map(readRule)])).toEqual([
      'schema.graphql:5:32 RULE_UNKNOWN_FIELD "stauts" is not a field of Post. (did you mean status?)',
      'schema.graphql:6:39 RULE_BAD_PATH "author.posts" is a list of Post: a list cannot be compared, and rules follow to-one relations only.',
      'schema.graphql:7:42 RULE_FIELD_COMPARISON A rule cannot compare two fields of the record ("author" and "editor"): compare a field with auth.… or a value.',
      'schema.graphql:8:42 RULE_TYPE_MISMATCH PUBLISHD is not a value of enum Status (DRAFT, PUBLISHED), which status holds. (did you mean PUBLISHED?)',
      'schema.graphql:9:41 RULE_TYPE_MISMATCH the string "10" cannot be compared with "views" (Int).',
      'schema.graphql:10:42 RULE_TYPE_MISMATCH "<" orders numbers, strings and dates; "published" (Boolean) has no order.',
      'schema.graphql:11:39 RULE_TYPE_MISMATCH ">" orders numbers, strings and dates; "status" (enum Status) has no order.',
      'schema.graphql:12:45 RULE_TYPE_MISMATCH the string "ADMIN" cannot be compared with auth.role (enum Role) (enum values are written without quotes). (did you mean ADMIN?)',
      'schema.graphql:13:42 RULE_TYPE_MISMATCH the number 3 cannot be compared with "author" (a User).',
      'schema.graphql:14:37 RULE_TYPE_MISMATCH the string "yesterday" cannot be compared with "at" (DateTime).',
      'schema.graphql:15:44 RULE_BAD_PATH "author.name" is not a relation, so it has no field "first".',
      'schema.graphql:16:39 RULE_BAD_PATH "author.avatar" is a file, which rules cannot compare.',
      'schema.graphql:17:39 RULE_BAD_PATH "author.data" is JSON, which rules cannot compare.',
      'schema.graphql:18:39 RULE_BAD_PATH "author.tags" is a list: a list cannot be compared.',
      'schema.graphql:19:32 RULE_BAD_PATH "auth" is the principal: name one of its members, auth.id, auth.role or a claim such as auth.email.',
      'schema.graphql:20:40 RULE_BAD_PATH auth.id is a single value; it has no member "x".',
      'schema.graphql:21:32 RULE_TYPE_MISMATCH "views" (Int) is not a condition: compare it with something, as in views == …',
      'schema.graphql:22:41 RULE_TYPE_MISMATCH PUBLISHED is a value of enum Status; "title" (String) cannot be compared with it.',
      'schema.graphql:23:41 RULE_UNKNOWN_FIELD "nope" is not a field of Post (a string is written in double quotes).',
      'schema.graphql:24:45 RULE_TYPE_MISMATCH auth.id (a record id) cannot be compared with auth.role (enum Role).',
      'schema.graphql:25:57 RULE_TYPE_MISMATCH OWNER is not a value of enum Role (MEMBER, MODERATOR, ADMIN), which auth.role holds.',
      'schema.graphql:26:32 RULE_UNKNOWN_FIELD "stauts" is not a field of Post. (did you mean status?)',
      'schema.graphql:26:56 RULE_TYPE_MISMATCH the string "x" cannot be compared with "views" (Int).',
    ]);
  });

  it('reports syntax errors with the token it expected, and empty rules', () => {
    const lines = [
      ...PREAMBLE,
      readRule('status == '),
      readRule('status == PUBLISHED author == auth.id'),
      readRule('a = 1'),
      'extend type Post @allow(read: "", update: "   ")',
    ];
    expect(problemLines(lines)).toEqual([
      'schema.graphql:5:42 RULE_SYNTAX Expected a value to compare with after "==", found the end of the rule.',
      'schema.graphql:6:52 RULE_SYNTAX Expected "&&", "||" or the end of the rule, found "author".',
      'schema.graphql:7:34 RULE_SYNTAX Unexpected "=": compare with "==".',
      'schema.graphql:8:31 RULE_EMPTY The read rule is empty: write "true" to allow everyone, or "false" to leave it to the admin role.',
      'schema.graphql:8:43 RULE_EMPTY The update rule is empty: write "true" to allow everyone, or "false" to leave it to the admin role.',
    ]);
  });

  it('counts columns past escapes and lines inside block strings', () => {
    const lines = [
      ...PREAMBLE,
      // Two escapes before "nope": the file has two more characters than the rule.
      readRule('title == \\"x\\" && nope == 1'),
      readRule('title == \\"\\u00e9\\" && nope == 1'),
      'extend type Post @allow(read: """',
      '  status == PUBLISHED',
      '    || nope == auth.id',
      '""")',
      'extend type Post @allow(read: """nope == 1""")',
    ];
    expect(problemLines(lines)).toEqual([
      'schema.graphql:5:50 RULE_UNKNOWN_FIELD "nope" is not a field of Post.',
      'schema.graphql:6:55 RULE_UNKNOWN_FIELD "nope" is not a field of Post.',
      'schema.graphql:9:8 RULE_UNKNOWN_FIELD "nope" is not a field of Post.',
      'schema.graphql:11:34 RULE_UNKNOWN_FIELD "nope" is not a field of Post.',
    ]);
  });

  it('needs a @roles enum for auth.role', () => {
    const lines = [
      'enum Role { MEMBER ADMIN }',
      'type User { id: ID! role: Role! }',
      'extend type User @allow(read: "id == auth.id || auth.role == ADMIN")',
      'type Note { id: ID! owner: String @default(fromAuth: "role") }',
    ];
    expect(problemLines(lines)).toEqual([
      'schema.graphql:3:49 RULE_NO_ROLES auth.role needs a role enum: mark one with @roles, as in enum Role @roles(admin: "ADMIN").',
      'schema.graphql:4:54 RULE_NO_ROLES auth.role needs a role enum: mark one with @roles, as in enum Role @roles(admin: "ADMIN").',
    ]);
  });

  it('does not report a field again when its own declaration is the problem', () => {
    const lines = ['type User { id: ID! best: Usr }', 'extend type User @allow(read: "best == auth.id")'];
    expect(problemLines(lines)).toEqual(['schema.graphql:1:27 SCHEMA_UNKNOWN_TYPE Unknown type "Usr". (did you mean User?)']);
  });
});

describe('@allow', () => {
  it('takes read, create, update, delete on a type and read, write on a field', () => {
    const lines = [
      'type User @allow(read: "true", write: "true") {',
      '  id: ID!',
      '  name: String @allow(write: "id == auth.id", delete: "true")',
      '  posts: [Post!]! @allow(read: "true", write: "true")',
      '  at: DateTime @createdAt @allow(write: "true")',
      '  other: String @allow',
      '}',
      'type Post { id: ID! author: User! }',
    ];
    expect(problemLines(lines)).toEqual([
      'schema.graphql:1:39 SCHEMA_BAD_DIRECTIVE_ARGUMENT On a type, @allow takes read, create, update, delete; "write" belongs on a field (the type\'s own create and update rules cover all its fields).',
      'schema.graphql:3:55 SCHEMA_BAD_DIRECTIVE_ARGUMENT On a field, @allow takes read and write; "delete" belongs on the type (a field\'s "write" covers create and update of that field).',
      'schema.graphql:4:47 SCHEMA_BAD_DIRECTIVE_ARGUMENT "User.posts" is written from its other side, "Post.author": put the write rule there.',
      'schema.graphql:5:41 SCHEMA_CONFLICTING_DIRECTIVES "User.at" is set by the server (@createdAt); no client writes it, so a write rule does not apply.',
      'schema.graphql:6:17 SCHEMA_BAD_DIRECTIVE_ARGUMENT @allow on "User.other" gives no rule: name the operations it allows, as in @allow(read: "id == auth.id").',
    ]);
  });

  it('ORs several uses for one operation, and puts the rules on the model', () => {
    const model = modelOf([
      'enum Role @roles(admin: "ADMIN") { MEMBER MODERATOR ADMIN }',
      'enum Status { DRAFT PUBLISHED }',
      'type User { id: ID! name: String! }',
      'type Post @allow(read: "status == PUBLISHED") @allow(read: "author == auth.id || auth.role == MODERATOR", create: "true") {',
      '  id: ID!',
      '  status: Status!',
      '  author: User!',
      '  secret: String @allow(read: "author.id == auth.id")',
      '}',
    ]);
    expect(model.hasRules).toBe(true);
    expect(model.roles).toEqual({ enum: 'Role', values: ['MEMBER', 'MODERATOR', 'ADMIN'], admin: 'ADMIN' });
    const post = model.typesByName.get('Post');
    expect(post?.rules).toEqual({
      read: {
        expr: {
          kind: 'or',
          items: [
            { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['status'] }, right: { kind: 'value', value: 'PUBLISHED' } },
            { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['author'] }, right: { kind: 'auth', path: ['id'] } },
            { kind: 'compare', op: 'eq', left: { kind: 'auth', path: ['role'] }, right: { kind: 'value', value: 'MODERATOR' } },
          ],
        },
        source: '(status == PUBLISHED) || (author == auth.id || auth.role == MODERATOR)',
        location: { file: 'schema.graphql', line: 4, column: 24 },
      },
      create: { expr: { kind: 'const', value: true }, source: 'true', location: { file: 'schema.graphql', line: 4, column: 115 } },
    });
    // `author.id` is the to-one's own column: the planner needs no join for it.
    expect(post?.fieldsByName.get('secret')?.rules.read?.expr).toEqual({
      kind: 'compare',
      op: 'eq',
      left: { kind: 'field', path: ['author'] },
      right: { kind: 'auth', path: ['id'] },
    });
    expect(post?.fieldsByName.get('status')?.rules).toEqual({});
    expect(model.typesByName.get('User')?.rules).toEqual({});
    expect(Object.isFrozen(post?.rules.read?.expr)).toBe(true);
  });

  it('reads bare names as enum values only against that enum, Boolean fields as conditions, claims as anything', () => {
    const model = modelOf([
      ...PREAMBLE,
      readRule('!published && PUBLISHED != status && views >= 10 && at < \\"2026-01-31T12:00:00+01:00\\"'),
      'extend type Post @allow(update: "auth.email_verified && auth.org.plan in [\\"pro\\", PUBLISHED] && title != null")',
    ]);
    const rules = model.typesByName.get('Post')?.rules;
    expect(rules?.read?.expr).toEqual({
      kind: 'and',
      items: [
        { kind: 'not', item: { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['published'] }, right: { kind: 'value', value: true } } },
        { kind: 'compare', op: 'ne', left: { kind: 'value', value: 'PUBLISHED' }, right: { kind: 'field', path: ['status'] } },
        { kind: 'compare', op: 'gte', left: { kind: 'field', path: ['views'] }, right: { kind: 'value', value: 10 } },
        // Normalized as stored, so the planner compares strings of one form.
        { kind: 'compare', op: 'lt', left: { kind: 'field', path: ['at'] }, right: { kind: 'value', value: '2026-01-31T11:00:00.000Z' } },
      ],
    });
    expect(rules?.update?.expr).toEqual({
      kind: 'and',
      items: [
        { kind: 'compare', op: 'eq', left: { kind: 'auth', path: ['email_verified'] }, right: { kind: 'value', value: true } },
        { kind: 'in', item: { kind: 'auth', path: ['org', 'plan'] }, values: [{ kind: 'value', value: 'pro' }, { kind: 'value', value: 'PUBLISHED' }] },
        { kind: 'compare', op: 'ne', left: { kind: 'field', path: ['title'] }, right: { kind: 'value', value: null } },
      ],
    });
  });

  it('leaves a schema without any @allow open, with no role enum', () => {
    const model = modelOf(['type User { id: ID! name: String }']);
    expect(model.hasRules).toBe(false);
    expect(model.roles).toBeUndefined();
    expect(model.typesByName.get('User')?.rules).toEqual({});
    expect(model.typesByName.get('User')?.fieldsByName.get('name')?.rules).toEqual({});
  });
});

describe('@roles', () => {
  it('marks one enum, with an admin among its values', () => {
    expect(
      problemLines([
        'enum Role @roles(admin: "ADMN") { MEMBER ADMIN }',
        'enum Other @roles(admin: "X") { X }',
        'extend enum Role @roles(admin: "ADMIN")',
        'type User { id: ID! }',
      ]),
    ).toEqual([
      'schema.graphql:1:25 SCHEMA_BAD_DIRECTIVE_ARGUMENT @roles(admin:) must name a value of enum Role (MEMBER, ADMIN); "ADMN" is not one. (did you mean ADMIN?)',
      'schema.graphql:2:12 SCHEMA_CONFLICTING_DIRECTIVES Only one enum holds the roles, once: "Role" is marked @roles already (schema.graphql:1:11).',
      'schema.graphql:3:18 SCHEMA_DUPLICATE_DIRECTIVE Only one enum holds the roles, once: "Role" is marked @roles already (schema.graphql:1:11).',
    ]);
  });
});

describe('@default(fromAuth:)', () => {
  it('puts the principal member on to-one and scalar fields', () => {
    const model = modelOf([
      'enum Role @roles(admin: "ADMIN") { MEMBER ADMIN }',
      'type User { id: ID! }',
      'type Post { id: ID! author: User! @readonly @default(fromAuth: "id") by: ID @default(fromAuth: "id") as: Role @default(fromAuth: "role") org: String! @default(fromAuth: "org.id") }',
    ]);
    const post = model.typesByName.get('Post');
    expect(post?.fieldsByName.get('author')).toMatchObject({ kind: 'toOne', defaultFromAuth: ['id'], readonly: true });
    expect(post?.fieldsByName.get('by')).toMatchObject({ kind: 'scalar', defaultFromAuth: ['id'], default: undefined });
    expect(post?.fieldsByName.get('as')).toMatchObject({ defaultFromAuth: ['role'] });
    // Nothing fills it before the planner does, so input may not leave it out yet.
    expect(post?.fieldsByName.get('org')).toMatchObject({ defaultFromAuth: ['org', 'id'], optionalOnCreate: false });
    expect(model.typesByName.get('User')?.fieldsByName.get('id')).toMatchObject({ defaultFromAuth: undefined });
  });

  it('takes exactly one of value and fromAuth, and a path that fits the field', () => {
    const lines = [
      'enum Role @roles(admin: "ADMIN") { MEMBER ADMIN }',
      'type User { id: ID! }',
      'type Post {',
      '  id: ID!',
      '  a: Int @default(value: 1, fromAuth: "id")',
      '  b: Int @default',
      '  c: Int @default(fromAuth: "id")',
      '  d: ID @default(fromAuth: "auth.id")',
      '  e: String @default(fromAuth: "id.sub")',
      '  f: Boolean @default(fromAuth: "role")',
      '  g: String @default(fromAuth: "a-b")',
      '  h: User @default(value: "1")',
      '}',
    ];
    expect(problemLines(lines)).toEqual([
      'schema.graphql:5:10 SCHEMA_BAD_DIRECTIVE_ARGUMENT @default takes either value: (a constant) or fromAuth: (a member of the principal), not both.',
      'schema.graphql:6:10 SCHEMA_BAD_DIRECTIVE_ARGUMENT @default needs value: (a constant) or fromAuth: (a member of the principal, such as "id").',
      'schema.graphql:7:29 SCHEMA_BAD_DEFAULT auth.id is a record id: it fits a to-one relation or an ID or String field, not "Post.c" of type Int.',
      'schema.graphql:8:28 SCHEMA_BAD_DIRECTIVE_ARGUMENT @default(fromAuth:) names the member without "auth.". (did you mean id?)',
      'schema.graphql:9:32 SCHEMA_BAD_DIRECTIVE_ARGUMENT auth.id is a single value; it has no member "sub".',
      'schema.graphql:10:33 SCHEMA_BAD_DEFAULT auth.role is a value of enum Role: it fits a Role or String field, not "Post.f" of type Boolean.',
      'schema.graphql:11:32 SCHEMA_BAD_DIRECTIVE_ARGUMENT @default(fromAuth:) names a member of the principal by its dotted path, such as "id", "role" or "org.id"; "a-b" is not one.',
      'schema.graphql:12:11 SCHEMA_MISPLACED_DIRECTIVE @default(value:) does not apply to the relation "Post.h"; a relation may only default to the principal, as in @default(fromAuth: "id").',
    ]);
  });
});
