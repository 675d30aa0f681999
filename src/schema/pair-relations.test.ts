import { describe, expect, it } from 'vitest';
import { formatProblems, loadSchema } from './load-schema.js';
import type { Model } from './model.js';

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

function field(model: Model, type: string, name: string) {
  return model.typesByName.get(type)?.fieldsByName.get(name);
}

describe('pairing relations', () => {
  it('pairs a list with the one to-one pointing back', () => {
    const model = modelOf('type User { id: ID! posts: [Post!]! } type Post { id: ID! writer: User }');
    expect(field(model, 'User', 'posts')).toMatchObject({ kind: 'toMany', inverse: 'writer', foreignKey: 'writer_id' });
    expect(field(model, 'Post', 'writer')).toMatchObject({ kind: 'toOne', inverse: 'posts', nullable: true });
    expect(model.joinTables).toEqual([]);
  });

  it('leaves a to-one without a list as a plain to-one', () => {
    const model = modelOf('type User { id: ID! } type Post { id: ID! author: User! }');
    expect(field(model, 'Post', 'author')).toMatchObject({ kind: 'toOne', inverse: undefined });
  });

  it('pairs two lists of different types through one join table owned by the first declared', () => {
    const model = modelOf('type Post { id: ID! tags: [Tag!]! } type Tag { id: ID! posts: [Post!]! }');
    expect(field(model, 'Post', 'tags')).toMatchObject({
      kind: 'manyToMany',
      inverse: 'posts',
      joinTable: 'posts_tags',
      ownColumn: 'source_id',
      otherColumn: 'target_id',
    });
    expect(field(model, 'Tag', 'posts')).toMatchObject({
      kind: 'manyToMany',
      inverse: 'tags',
      joinTable: 'posts_tags',
      ownColumn: 'target_id',
      otherColumn: 'source_id',
    });
    expect(model.joinTables).toEqual([
      { name: 'posts_tags', sourceColumn: 'source_id', sourceType: 'Post', targetColumn: 'target_id', targetType: 'Tag' },
    ]);
  });

  it('gives a list with no partner its own join table', () => {
    const model = modelOf('type User { id: ID! blocked: [User!]! } type Post { id: ID! tags: [Tag!]! } type Tag { id: ID! }');
    expect(field(model, 'User', 'blocked')).toMatchObject({ kind: 'manyToMany', inverse: undefined, joinTable: 'users_blocked', ownColumn: 'source_id' });
    expect(field(model, 'Post', 'tags')).toMatchObject({ kind: 'manyToMany', inverse: undefined, joinTable: 'posts_tags' });
    expect(model.joinTables.map((table) => [table.name, table.sourceType, table.targetType])).toEqual([
      ['users_blocked', 'User', 'User'],
      ['posts_tags', 'Post', 'Tag'],
    ]);
  });

  it('reports two to-one candidates as ambiguous, and @relation settles it', () => {
    const ambiguous = 'type User {\n  id: ID!\n  posts: [Post!]!\n}\ntype Post { id: ID! author: User! editor: User }';
    const problems = problemsOf(ambiguous);
    expect(problems).toMatchObject([{ code: 'SCHEMA_AMBIGUOUS_RELATION', line: 3, column: 3 }]);
    expect(problems[0]?.message).toBe(
      '"User.posts" could be the inverse of "Post.author" or "Post.editor"; say which with @relation(inverse: "...").',
    );

    const model = modelOf(ambiguous.replace('posts: [Post!]!', 'posts: [Post!]! @relation(inverse: "author")'));
    expect(field(model, 'User', 'posts')).toMatchObject({ kind: 'toMany', inverse: 'author', foreignKey: 'author_id' });
    expect(field(model, 'Post', 'author')).toMatchObject({ inverse: 'posts' });
    expect(field(model, 'Post', 'editor')).toMatchObject({ inverse: undefined });
  });

  it('accepts @relation on the to-one side too', () => {
    const model = modelOf(
      'type User { id: ID! posts: [Post!]! edited: [Post!]! } type Post { id: ID! author: User! @relation(inverse: "posts") editor: User @relation(inverse: "edited") }',
    );
    expect(field(model, 'User', 'posts')).toMatchObject({ kind: 'toMany', foreignKey: 'author_id' });
    expect(field(model, 'User', 'edited')).toMatchObject({ kind: 'toMany', foreignKey: 'editor_id' });
  });

  it('reports three self-relation lists as ambiguous', () => {
    const problems = problemsOf('type User { id: ID! followers: [User!]! following: [User!]! blocked: [User!]! }');
    expect(problems.map((p) => p.code)).toEqual(['SCHEMA_AMBIGUOUS_RELATION', 'SCHEMA_AMBIGUOUS_RELATION', 'SCHEMA_AMBIGUOUS_RELATION']);
    const fixed = modelOf('type User { id: ID! followers: [User!]! @relation(inverse: "following") following: [User!]! blocked: [User!]! }');
    expect(field(fixed, 'User', 'followers')).toMatchObject({ kind: 'manyToMany', inverse: 'following', ownColumn: 'source_id' });
    expect(field(fixed, 'User', 'following')).toMatchObject({ kind: 'manyToMany', inverse: 'followers', ownColumn: 'target_id' });
    expect(field(fixed, 'User', 'blocked')).toMatchObject({ kind: 'manyToMany', inverse: undefined, joinTable: 'users_blocked' });
  });

  it('reports two lists claiming one to-one', () => {
    const problems = problemsOf(
      'type User {\n  id: ID!\n  posts: [Post!]!\n  likedPosts: [Post!]!\n}\ntype Post { id: ID! author: User! likedBy: [User!]! }',
    );
    expect(problems).toMatchObject([{ code: 'SCHEMA_AMBIGUOUS_RELATION', line: 4, column: 3 }]);
    expect(problems[0]?.message).toContain('"User.likedPosts" and "User.posts" both pair with "Post.author"');

    const model = modelOf(
      'type User { id: ID! posts: [Post!]! likedPosts: [Post!]! @relation(inverse: "likedBy") } type Post { id: ID! author: User! likedBy: [User!]! }',
    );
    expect(field(model, 'User', 'posts')).toMatchObject({ kind: 'toMany', inverse: 'author' });
    expect(field(model, 'User', 'likedPosts')).toMatchObject({ kind: 'manyToMany', inverse: 'likedBy', joinTable: 'users_liked_posts', ownColumn: 'source_id' });
    expect(field(model, 'Post', 'likedBy')).toMatchObject({ kind: 'manyToMany', inverse: 'likedPosts', joinTable: 'users_liked_posts', ownColumn: 'target_id' });
  });

  it('reports @relation naming a missing, unrelated or conflicting field', () => {
    const base = 'type User { id: ID! posts: [Post!]! @relation(inverse: "%") } type Post { id: ID! author: User! title: String other: Post }';
    expect(problemsOf(base.replace('%', 'autor'))).toMatchObject([{ code: 'SCHEMA_BAD_RELATION', column: 56, suggestion: 'author' }]);
    expect(problemsOf(base.replace('%', 'title'))[0]?.message).toBe('@relation on "User.posts" names "Post.title", which is not a relation field.');
    expect(problemsOf(base.replace('%', 'other'))[0]?.message).toBe(
      '"Post.other" points at Post, not at User, so it cannot be the inverse of "User.posts".',
    );
    expect(problemsOf('type User { id: ID! friends: [User!]! @relation(inverse: "friends") }')[0]?.message).toBe(
      '"User.friends" cannot be its own inverse.',
    );
    expect(problemsOf('type User { id: ID! best: Post @relation(inverse: "author") } type Post { id: ID! author: User }')[0]?.code).toBe(
      'SCHEMA_BAD_RELATION',
    );
    expect(
      problemsOf(
        'type User { id: ID! posts: [Post!]! @relation(inverse: "author") } type Post { id: ID! author: User! @relation(inverse: "drafts") } extend type User { drafts: [Post!]! }',
      ).map((p) => p.message),
    ).toEqual(['"User.posts" names "Post.author" as its inverse, but "Post.author" names "drafts".']);
  });

  it('requires relation lists to be [Type!]!', () => {
    const problems = problemsOf('type User {\n  id: ID!\n  posts: [Post]\n}\ntype Post { id: ID! author: User! }');
    expect(problems).toMatchObject([{ code: 'SCHEMA_BAD_RELATION_LIST', line: 3, column: 10 }]);
    expect(problems[0]?.message).toBe('Relation list "User.posts" must be written [Post!]! (a list, possibly empty, never null).');
    expect(problemsOf('type User { id: ID! posts: [Post!] } type Post { id: ID! }').map((p) => p.code)).toEqual(['SCHEMA_BAD_RELATION_LIST']);
  });
});

describe('what deleting a relation target does (@relation(onDelete:))', () => {
  it('is RESTRICT unless the schema says CASCADE or SET_NULL, with or without an inverse', () => {
    const model = modelOf(
      'type User { id: ID! } type Post { id: ID! author: User! @relation(onDelete: CASCADE) editor: User @relation(onDelete: SET_NULL) reviewer: User @relation(inverse: "reviewed") checker: User }\nextend type User { reviewed: [Post!]! }',
    );
    expect(field(model, 'Post', 'author')).toMatchObject({ kind: 'toOne', onDelete: 'CASCADE' });
    expect(field(model, 'Post', 'editor')).toMatchObject({ kind: 'toOne', onDelete: 'SET_NULL' });
    expect(field(model, 'Post', 'reviewer')).toMatchObject({ kind: 'toOne', onDelete: 'RESTRICT', inverse: 'reviewed' });
    expect(field(model, 'Post', 'checker')).toMatchObject({ kind: 'toOne', onDelete: 'RESTRICT' });
  });

  it('refuses SET_NULL on a required to-one and onDelete on a list, located at the argument', () => {
    const problems = problemsOf('type User {\n  id: ID!\n  posts: [Post!]! @relation(onDelete: CASCADE)\n}\ntype Post {\n  id: ID!\n  author: User! @relation(onDelete: SET_NULL)\n}');
    expect(problems.map((p) => [p.code, p.line, p.column])).toEqual([
      ['SCHEMA_MISPLACED_DIRECTIVE', 3, 39],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 7, 37],
    ]);
    expect(problems[0]?.message).toContain('set it on the field of the type the list "User.posts" pairs with');
    expect(problems[1]?.message).toBe('"Post.author" is required, so deleting its target cannot leave it null: make it nullable, or choose CASCADE or RESTRICT.');
    expect(problemsOf('type User { id: ID! } type Post { id: ID! author: User! @relation(onDelete: DROP) }').map((p) => p.code)).toEqual(['SCHEMA_BAD_DIRECTIVE_ARGUMENT']);
    expect(problemsOf('type User { id: ID! mode: OnDelete }').map((p) => p.code)).toEqual(['SCHEMA_UNSUPPORTED_TYPE']);
  });
});
