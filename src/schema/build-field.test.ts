import { describe, expect, it } from 'vitest';
import { formatProblems, loadSchema } from './load-schema.js';
import type { Field, Model } from './model.js';

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

/** One field declared on `type T { id: ID! <declaration> }`. */
function fieldOf(declaration: string, extra = ''): Field | undefined {
  return modelOf(`type T { id: ID! ${declaration} } ${extra}`).typesByName.get('T')?.fields[1];
}

function problemsOfField(declaration: string, extra = '') {
  return problemsOf(`type T { id: ID! ${declaration} } ${extra}`);
}

describe('scalar fields', () => {
  it('maps scalars, enums and lists to columns', () => {
    expect(fieldOf('score: Float')).toMatchObject({ kind: 'scalar', scalar: 'Float', nullable: true, list: false, column: 'score', optionalOnCreate: true });
    expect(fieldOf('title: String!')).toMatchObject({ scalar: 'String', nullable: false, optionalOnCreate: false, readonly: false, auto: undefined });
    expect(fieldOf('role: Role!', 'enum Role { A B }')).toMatchObject({ scalar: 'String', enum: 'Role' });
    expect(fieldOf('tags: [String!]!')).toMatchObject({ scalar: 'String', list: true, nullable: false, optionalOnCreate: false });
    expect(fieldOf('data: JSON')).toMatchObject({ scalar: 'JSON' });
    expect(fieldOf('externalId: ID')).toMatchObject({ scalar: 'ID', auto: undefined, readonly: false });
  });

  it('reads @unique, @index, @readonly, @createdAt, @updatedAt', () => {
    expect(fieldOf('email: String! @unique @index')).toMatchObject({ unique: true, indexed: true });
    expect(fieldOf('note: String @readonly')).toMatchObject({ readonly: true, optionalOnCreate: true });
    expect(fieldOf('at: DateTime! @createdAt')).toMatchObject({ auto: 'createdAt', readonly: true, optionalOnCreate: true });
    expect(fieldOf('at: DateTime @updatedAt')).toMatchObject({ auto: 'updatedAt', readonly: true });
  });

  it('reads @cache and @deprecated', () => {
    expect(fieldOf('a: Int @cache(maxAge: 30)')).toMatchObject({ cache: { maxAge: 30, scope: 'PUBLIC' } });
    expect(fieldOf('a: Int @cache(maxAge: 30, scope: PRIVATE)')).toMatchObject({ cache: { maxAge: 30, scope: 'PRIVATE' } });
    expect(fieldOf('a: Int @deprecated')).toMatchObject({ deprecated: 'No longer supported' });
    expect(fieldOf('a: Int @deprecated(reason: "Use b.")')).toMatchObject({ deprecated: 'Use b.' });
    const type = modelOf('type T @cache(maxAge: 5, scope: PRIVATE) @deprecated(reason: "Gone soon.") { id: ID! }').typesByName.get('T');
    expect(type).toMatchObject({ cache: { maxAge: 5, scope: 'PRIVATE' }, deprecated: 'Gone soon.' });
  });

  it('refuses directives on fields they do not fit', () => {
    expect(problemsOfField('tags: [String!] @unique').map((p) => p.code)).toEqual(['SCHEMA_MISPLACED_DIRECTIVE']);
    expect(problemsOfField('data: JSON @index').map((p) => p.code)).toEqual(['SCHEMA_MISPLACED_DIRECTIVE']);
    expect(problemsOfField('at: String @createdAt')[0]?.message).toBe('@createdAt applies only to DateTime fields; "T.at" is String.');
    expect(problemsOfField('at: DateTime @createdAt @updatedAt').map((p) => p.code)).toEqual(['SCHEMA_CONFLICTING_DIRECTIVES']);
    expect(problemsOfField('at: DateTime @createdAt @default(value: "2026-01-01")').map((p) => p.code)).toEqual(['SCHEMA_CONFLICTING_DIRECTIVES']);
    expect(problemsOfField('a: Int @relation(inverse: "x")').map((p) => p.code)).toEqual(['SCHEMA_MISPLACED_DIRECTIVE']);
    expect(problemsOfField('a: Int @unique @unique').map((p) => p.code)).toEqual(['SCHEMA_DUPLICATE_DIRECTIVE']);
    expect(problemsOf('type T @unique { id: ID! }')).toMatchObject([
      { code: 'SCHEMA_MISPLACED_DIRECTIVE', message: 'Directive "@unique" may not be used on an object type.' },
    ]);
  });

  it('refuses a non-null @readonly field without a default (it could never be created)', () => {
    expect(problemsOfField('code: String! @readonly').map((p) => p.code)).toEqual(['SCHEMA_CONFLICTING_DIRECTIVES']);
    expect(fieldOf('count: Int! @readonly @default(value: 0)')).toMatchObject({ readonly: true, optionalOnCreate: true });
  });

  it('checks directive arguments against the prelude', () => {
    expect(problemsOfField('a: Int @cache(maxAgee: 5)')).toMatchObject([
      { code: 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', column: 25, message: 'Directive "@cache" needs argument "maxAge" of type Int!.' },
      { code: 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', column: 32, message: 'Unknown argument "maxAgee" on directive "@cache".', suggestion: 'maxAge' },
    ]);
    expect(problemsOfField('a: Int @cache(maxAge: "5")')[0]?.message).toBe('Argument "maxAge" of "@cache" expects Int!, got "5".');
    expect(problemsOfField('a: Int @cache(maxAge: 5, scope: SHARED)').map((p) => p.code)).toEqual(['SCHEMA_BAD_DIRECTIVE_ARGUMENT']);
    expect(problemsOfField('a: Int @cache(maxAge: -1)').map((p) => p.code)).toEqual(['SCHEMA_BAD_DIRECTIVE_ARGUMENT']);
    expect(problemsOfField('a: Int @indx')).toMatchObject([{ code: 'SCHEMA_UNKNOWN_DIRECTIVE', suggestion: '@index' }]);
  });

  it('refuses arguments on fields that are not images', () => {
    expect(problemsOfField('name(lang: String): String')).toMatchObject([{ code: 'SCHEMA_FIELD_ARGUMENTS', column: 23 }]);
  });

  it('refuses lists of lists and CacheScope as a field type', () => {
    expect(problemsOfField('grid: [[Int!]!]').map((p) => p.code)).toEqual(['SCHEMA_UNSUPPORTED_TYPE']);
    expect(problemsOfField('scope: CacheScope').map((p) => p.code)).toEqual(['SCHEMA_UNSUPPORTED_TYPE']);
  });
});

describe('@default', () => {
  it('coerces the value to the field type', () => {
    expect(fieldOf('a: Int! @default(value: 3)')).toMatchObject({ default: { value: 3 }, optionalOnCreate: true });
    expect(fieldOf('a: Float @default(value: 3)')).toMatchObject({ default: { value: 3 } });
    expect(fieldOf('a: Float @default(value: 2.5)')).toMatchObject({ default: { value: 2.5 } });
    expect(fieldOf('a: String @default(value: "x")')).toMatchObject({ default: { value: 'x' } });
    expect(fieldOf('a: Boolean! @default(value: false)')).toMatchObject({ default: { value: false } });
    expect(fieldOf('a: ID @default(value: 7)')).toMatchObject({ default: { value: '7' } });
    expect(fieldOf('a: DateTime @default(value: "2026-01-31T12:00:00+01:00")')).toMatchObject({ default: { value: '2026-01-31T11:00:00.000Z' } });
    expect(fieldOf('a: JSON @default(value: {theme: "dark", sizes: [1, 2]})')).toMatchObject({ default: { value: { theme: 'dark', sizes: [1, 2] } } });
    expect(fieldOf('a: [String!]! @default(value: [])')).toMatchObject({ default: { value: [] } });
    expect(fieldOf('a: [Int!] @default(value: 1)')).toMatchObject({ default: { value: [1] } });
    expect(fieldOf('a: [Role!] @default(value: [A, B])', 'enum Role { A B }')).toMatchObject({ default: { value: ['A', 'B'] } });
    expect(fieldOf('a: Role! @default(value: B)', 'enum Role { A B }')).toMatchObject({ default: { value: 'B' } });
  });

  it('reports a value that does not fit, at the value', () => {
    const cases: [string, string][] = [
      ['a: Int @default(value: "x")', 'a 32-bit integer'],
      ['a: Int @default(value: 1.5)', 'a 32-bit integer'],
      ['a: Int @default(value: 3000000000)', 'a 32-bit integer'],
      ['a: Boolean @default(value: "true")', 'true or false'],
      ['a: String @default(value: 1)', 'a string'],
      ['a: DateTime @default(value: "yesterday")', 'an ISO 8601 date-time string such as "2026-01-31T12:00:00Z"'],
      ['a: String @default(value: ["x"])', 'a single a string, not a list'],
      ['a: [Int!] @default(value: [1, "2"])', 'a 32-bit integer'],
      ['a: [Int!] @default(value: [1, null])', 'a 32-bit integer'],
    ];
    for (const [declaration, expected] of cases) {
      const problems = problemsOfField(declaration);
      expect(problems.map((p) => p.code), declaration).toEqual(['SCHEMA_BAD_DEFAULT']);
      expect(problems[0]?.message, declaration).toMatch(new RegExp(`expected ${expected.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.$`));
    }
    expect(problemsOfField('a: Int @default(value: null)').map((p) => p.code)).toEqual(['SCHEMA_BAD_DIRECTIVE_ARGUMENT']);
  });

  it('suggests enum values', () => {
    const enumRole = 'enum Role { MEMBER ADMIN }';
    expect(problemsOfField('role: Role @default(value: MEMBR)', enumRole)).toMatchObject([
      { code: 'SCHEMA_BAD_DEFAULT', column: 45, suggestion: 'MEMBER', message: '@default value MEMBR does not fit field "T.role" of type Role: expected a value of enum Role (MEMBER, ADMIN).' },
    ]);
    expect(problemsOfField('role: Role @default(value: "ADMIN")', enumRole)[0]).toMatchObject({
      suggestion: 'ADMIN',
      message: '@default value "ADMIN" does not fit field "T.role" of type Role: expected a value of enum Role (MEMBER, ADMIN) (enum values are written without quotes).',
    });
  });
});

describe('@image fields', () => {
  it('become file fields with sorted, unique sizes', () => {
    expect(fieldOf('avatar(size: Int): String @image(sizes: [256, 32, 64, 32])')).toMatchObject({
      kind: 'file',
      column: 'avatar',
      nullable: true,
      image: { sizes: [32, 64, 256] },
    });
    expect(fieldOf('avatar(size: Int): String! @image(sizes: [64]) @deprecated')).toMatchObject({ kind: 'file', nullable: false, deprecated: 'No longer supported' });
  });

  it('must be String fields taking exactly (size: Int)', () => {
    expect(problemsOfField('avatar(size: Int): Int @image(sizes: [64])').map((p) => p.code)).toEqual(['SCHEMA_MISPLACED_DIRECTIVE']);
    expect(problemsOfField('avatar: String @image(sizes: [64])').map((p) => p.code)).toEqual(['SCHEMA_FIELD_ARGUMENTS']);
    expect(problemsOfField('avatar(width: Int): String @image(sizes: [64])').map((p) => p.code)).toEqual(['SCHEMA_FIELD_ARGUMENTS']);
    expect(problemsOfField('avatar(size: Int!): String @image(sizes: [64])').map((p) => p.code)).toEqual(['SCHEMA_FIELD_ARGUMENTS']);
    expect(problemsOfField('avatar(size: Int, dpr: Int): String @image(sizes: [64])').map((p) => p.code)).toEqual(['SCHEMA_FIELD_ARGUMENTS']);
  });

  it('need sizes from 1 to 4096', () => {
    expect(problemsOfField('a(size: Int): String @image(sizes: [])')[0]).toMatchObject({ code: 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', column: 53 });
    expect(problemsOfField('a(size: Int): String @image(sizes: [0, 64, 5000])')[0]?.message).toBe(
      '@image sizes must be widths from 1 to 4096 pixels; 0, 5000 are not.',
    );
    expect(problemsOfField('a(size: Int): String @image').map((p) => p.code)).toEqual(['SCHEMA_BAD_DIRECTIVE_ARGUMENT']);
  });

  it('take no column directives', () => {
    expect(problemsOfField('a(size: Int): String @image(sizes: [64]) @unique @default(value: "x")').map((p) => p.code)).toEqual([
      'SCHEMA_MISPLACED_DIRECTIVE',
      'SCHEMA_MISPLACED_DIRECTIVE',
    ]);
  });
});

describe('relation fields', () => {
  it('take @readonly on to-one only, and no column directives', () => {
    const user = 'type User { id: ID! }';
    expect(fieldOf('owner: User @readonly', user)).toMatchObject({ kind: 'toOne', readonly: true });
    expect(problemsOfField('owner: User! @readonly', user).map((p) => p.code)).toEqual(['SCHEMA_CONFLICTING_DIRECTIVES']);
    expect(problemsOfField('owner: User @unique', user)[0]?.message).toBe('@unique does not apply to the relation "T.owner".');
    expect(problemsOfField('owners: [User!]! @readonly', user).map((p) => p.code)).toEqual(['SCHEMA_MISPLACED_DIRECTIVE']);
    expect(problemsOfField('owner: User @default(value: "1")', user).map((p) => p.code)).toEqual(['SCHEMA_MISPLACED_DIRECTIVE']);
  });
});
