import { describe, expect, it } from 'vitest';
import { loadSchema } from '../../schema/load-schema.js';
import type { ApiStyle, ChangeClass } from './contract-change.js';
import { diffContract, type ContractSchema } from './diff-contract.js';

/**
 * The catalogue: one schema change per row, and what a client of each style
 * that worked before it would experience, decided from the client's side:
 * a request that used to work now fails (breaking), a response may now hold
 * what the client has not seen (dangerous), or nothing it did changes
 * (safe); `none` when the style shows no change at all.
 */
const BASE = `enum Status { DRAFT PUBLISHED ARCHIVED }

type User @allow(read: "true", create: "true", update: "id == auth.id", delete: "id == auth.id") {
  id: ID!
  name: String!
  email: String! @unique
  bio: String
  nickname: String
  age: Int
  score: Float
  rating: Int @readonly
  avatar(size: Int): String @image(sizes: [64, 128, 256])
  posts: [Post!]!
}

type Post @allow(read: "true", create: "auth.id != null", update: "author == auth.id", delete: "author == auth.id") {
  id: ID!
  title: String!
  body: String
  status: Status! @default(value: DRAFT)
  views: Int! @default(value: 0)
  slug: String @unique
  author: User!
  tags: [Tag!]!
}

type Tag @allow(read: "true") {
  id: ID!
  label: String!
  posts: [Post!]!
}
`;

type Expected = ChangeClass | 'none';

interface Case {
  readonly name: string;
  /** Edits applied in order to the base schema; each must match. */
  readonly edit: readonly (readonly [string | RegExp, string])[];
  readonly graphql: Expected;
  readonly rest: Expected;
  /** `safe` expected, and no change seen at all is as good. */
  readonly orNone?: boolean;
}

const CATALOGUE: readonly Case[] = [
  { name: 'optional field added', edit: [['  body: String\n', '  body: String\n  subtitle: String\n']], graphql: 'safe', rest: 'safe' },
  { name: 'required field without default added (creates must send it)', edit: [['  body: String\n', '  body: String\n  summary: String!\n']], graphql: 'breaking', rest: 'breaking' },
  { name: 'required field with a default added', edit: [['  body: String\n', '  body: String\n  rank: Int! @default(value: 1)\n']], graphql: 'safe', rest: 'safe' },
  { name: 'field removed', edit: [['  bio: String\n', '']], graphql: 'breaking', rest: 'breaking' },
  { name: 'type narrowed: Float to Int', edit: [['score: Float', 'score: Int']], graphql: 'breaking', rest: 'breaking' },
  { name: 'type changed: Int to String', edit: [['age: Int', 'age: String']], graphql: 'breaking', rest: 'breaking' },
  { name: 'nullable made required (creates must send it, updates cannot clear it)', edit: [['  body: String\n', '  body: String!\n']], graphql: 'breaking', rest: 'breaking' },
  { name: 'nullable made required with a default (updates cannot clear it)', edit: [['  nickname: String\n', '  nickname: String! @default(value: "")\n']], graphql: 'breaking', rest: 'breaking' },
  // Typed GraphQL clients hold the field as non-null: a null breaks them. A REST client reads JSON and may cope.
  { name: 'required made nullable (responses may hold null)', edit: [['  title: String!\n', '  title: String\n']], graphql: 'breaking', rest: 'dangerous' },
  { name: 'enum value added (responses may hold a value clients do not know)', edit: [['ARCHIVED }', 'ARCHIVED SCHEDULED }']], graphql: 'dangerous', rest: 'dangerous' },
  { name: 'enum value removed', edit: [[' ARCHIVED }', ' }']], graphql: 'breaking', rest: 'breaking' },
  // Whether the generated schemas mark an enum value deprecated or not yet, nothing a client does fails.
  { name: 'enum value deprecated', edit: [['ARCHIVED }', 'ARCHIVED @deprecated(reason: "use DRAFT") }']], graphql: 'safe', rest: 'safe', orNone: true },
  { name: 'type removed (its routes and root fields gone)', edit: [[/\ntype Tag[^}]*}\n/, '\n'], ['  tags: [Tag!]!\n', '']], graphql: 'breaking', rest: 'breaking' },
  { name: 'type added', edit: [[/$/, '\ntype Comment {\n  id: ID!\n  text: String!\n}\n']], graphql: 'safe', rest: 'safe' },
  { name: 'optional to-one relation added', edit: [['  tags: [Tag!]!\n', '  tags: [Tag!]!\n  editor: User\n'], ['  posts: [Post!]!\n}\n\ntype Post', '  posts: [Post!]! @relation(inverse: "author")\n  edited: [Post!]! @relation(inverse: "editor")\n}\n\ntype Post']], graphql: 'safe', rest: 'safe' },
  { name: 'required to-one relation added (creates must send it)', edit: [['  tags: [Tag!]!\n', '  tags: [Tag!]!\n  category: Category!\n'], [/$/, '\ntype Category {\n  id: ID!\n  name: String!\n  posts: [Post!]!\n}\n']], graphql: 'breaking', rest: 'breaking' },
  { name: 'to-many relation removed', edit: [['  tags: [Tag!]!\n', ''], ['  label: String!\n  posts: [Post!]!\n', '  label: String!\n']], graphql: 'breaking', rest: 'breaking' },
  { name: 'to-one relation made optional (responses may hold null)', edit: [['  author: User!\n', '  author: User\n']], graphql: 'breaking', rest: 'dangerous' },
  { name: '@unique added (writes repeating a value are refused)', edit: [['  nickname: String\n', '  nickname: String @unique\n']], graphql: 'dangerous', rest: 'dangerous' },
  { name: '@unique removed', edit: [['  slug: String @unique\n', '  slug: String\n']], graphql: 'none', rest: 'none' },
  { name: '@readonly added (writes may not send it)', edit: [['  nickname: String\n', '  nickname: String @readonly\n']], graphql: 'breaking', rest: 'breaking' },
  { name: '@readonly removed (writes may send it)', edit: [['  rating: Int @readonly\n', '  rating: Int\n']], graphql: 'safe', rest: 'safe' },
  { name: '@immutable added (updates may not send it)', edit: [['  nickname: String\n', '  nickname: String @immutable\n']], graphql: 'breaking', rest: 'breaking' },
  { name: '@allow read tightened', edit: [['type Post @allow(read: "true"', 'type Post @allow(read: "status == PUBLISHED"']], graphql: 'dangerous', rest: 'dangerous' },
  { name: '@allow create tightened', edit: [['create: "auth.id != null"', 'create: "false"']], graphql: 'dangerous', rest: 'dangerous' },
  { name: '@allow update opened to everyone', edit: [['update: "author == auth.id"', 'update: "true"']], graphql: 'safe', rest: 'safe' },
  { name: '@allow on a field added (reads of it restricted)', edit: [['  bio: String\n', '  bio: String @allow(read: "id == auth.id")\n']], graphql: 'dangerous', rest: 'dangerous' },
  { name: 'image sizes shrunk (URLs of that width stop working)', edit: [['sizes: [64, 128, 256]', 'sizes: [64, 128]']], graphql: 'breaking', rest: 'breaking' },
  { name: 'image sizes grown', edit: [['sizes: [64, 128, 256]', 'sizes: [64, 128, 256, 512]']], graphql: 'safe', rest: 'safe' },
  { name: 'default changed (creates that leave it out get another value)', edit: [['@default(value: 0)', '@default(value: 10)']], graphql: 'dangerous', rest: 'dangerous' },
  { name: 'enum default changed', edit: [['@default(value: DRAFT)', '@default(value: PUBLISHED)']], graphql: 'dangerous', rest: 'dangerous' },
  { name: 'default added to a nullable field', edit: [['  bio: String\n', '  bio: String @default(value: "")\n']], graphql: 'dangerous', rest: 'dangerous' },
  { name: 'default removed from a required field (creates must send it)', edit: [['views: Int! @default(value: 0)', 'views: Int!']], graphql: 'breaking', rest: 'breaking' },
  { name: 'field deprecated', edit: [['  bio: String\n', '  bio: String @deprecated(reason: "use about")\n']], graphql: 'safe', rest: 'safe' },
  { name: 'type deprecated', edit: [['type Tag @allow', 'type Tag @deprecated(reason: "use labels") @allow']], graphql: 'safe', rest: 'safe' },
  // The old name keeps answering (deprecated) in both styles while the directive stays.
  { name: 'field renamed with @renamed', edit: [['  bio: String\n', '  about: String @renamed(from: "bio")\n']], graphql: 'safe', rest: 'safe' },
  { name: 'required field renamed with @renamed (creates may send either name)', edit: [['  title: String!\n', '  headline: String! @renamed(from: "title")\n']], graphql: 'safe', rest: 'safe' },
  // Old paths, parameters, root fields, link mutations and change-event names keep answering, deprecated.
  { name: 'many-to-many list renamed with @renamed (its old sub-paths, embeds and link mutations kept)', edit: [['  tags: [Tag!]!\n', '  labels: [Tag!]! @renamed(from: "tags")\n']], graphql: 'safe', rest: 'safe' },
  { name: 'to-many list renamed with @renamed', edit: [['  posts: [Post!]!\n}\n\ntype Post', '  articles: [Post!]! @renamed(from: "posts")\n}\n\ntype Post']], graphql: 'safe', rest: 'safe' },
  // The rules name the field by its new name now and by its old one before: the same rule, so the rename's own class alone.
  { name: 'field a rule names renamed with @renamed, the rule following it', edit: [['  author: User!\n', '  writer: User! @renamed(from: "author")\n'], [/author == auth\.id/g, 'writer == auth.id']], graphql: 'safe', rest: 'safe' },
  { name: 'field a rule names renamed with @renamed, the rule changed too', edit: [['  author: User!\n', '  writer: User! @renamed(from: "author")\n'], ['update: "author == auth.id"', 'update: "writer != auth.id"'], [/author == auth\.id/g, 'writer == auth.id']], graphql: 'dangerous', rest: 'dangerous' },
  // REST keeps every old path; a GraphQL client's `... on Tag` or `__typename` check cannot be kept (docs/schema.md).
  { name: 'type renamed with @renamed (old paths, root fields, mutations and events kept; the GraphQL type name changes)', edit: [[/\bTag\b/g, 'Label'], ['type Label @allow', 'type Label @renamed(from: "Tag") @allow']], graphql: 'breaking', rest: 'safe' },
  { name: 'field renamed without @renamed (old name gone)', edit: [['  bio: String\n', '  about: String\n']], graphql: 'breaking', rest: 'breaking' },
  { name: 'type renamed without @renamed (routes gone)', edit: [[/\bTag\b/g, 'Label']], graphql: 'breaking', rest: 'breaking' },
  { name: 'description added', edit: [['  bio: String\n', '  "What the user says about themself."\n  bio: String\n']], graphql: 'safe', rest: 'none' },
  { name: 'index added (no contract change)', edit: [['  age: Int\n', '  age: Int @index\n']], graphql: 'none', rest: 'none' },
  { name: 'field moved within its type (no contract change)', edit: [['  bio: String\n  nickname: String\n', '  nickname: String\n  bio: String\n']], graphql: 'none', rest: 'none' },
  { name: 'nothing changed', edit: [], graphql: 'none', rest: 'none' },
  { name: 'optional enum field of a new enum added', edit: [['  bio: String\n', '  bio: String\n  mood: Mood\n'], [/$/, '\nenum Mood { HAPPY SAD }\n']], graphql: 'safe', rest: 'safe' },
  { name: 'to-many relation to a new type added (new list arguments, all optional)', edit: [['  posts: [Post!]!\n}\n\ntype Post', '  posts: [Post!]!\n  notes: [Note!]!\n}\n\ntype Post'], [/$/, '\ntype Note {\n  id: ID!\n  text: String!\n  owner: User!\n}\n']], graphql: 'safe', rest: 'safe' },
];

function schema(text: string): ContractSchema {
  const result = loadSchema([{ file: 'schema.graphql', text }]);
  if (!result.ok) throw new Error(result.problems.map((p) => `${p.line}:${p.column} ${p.message}`).join('\n'));
  return { model: result.model, sources: [{ file: 'schema.graphql', text }] };
}

function edited(edits: Case['edit']): string {
  return edits.reduce((text, [from, to]) => {
    const next = text.replace(from, to);
    if (next === text) throw new Error(`edit ${String(from)} matched nothing`);
    return next;
  }, BASE);
}

function worst(classes: readonly ChangeClass[]): Expected {
  for (const kind of ['breaking', 'dangerous', 'safe'] as const) if (classes.includes(kind)) return kind;
  return 'none';
}

describe('diffContract catalogue', () => {
  it('holds at least 40 changes', () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(40);
  });

  for (const entry of CATALOGUE) {
    it(entry.name, async () => {
      const changes = await diffContract(schema(BASE), schema(edited(entry.edit)));
      const of = (style: ApiStyle): Expected => {
        const found = worst(changes.filter((change) => change.styles.includes(style)).map((change) => change.class));
        return found === 'none' && entry.orNone === true ? 'safe' : found;
      };
      expect({ graphql: of('graphql'), rest: of('rest') }, changes.map((c) => `${c.class} ${c.styles.join()} ${c.message}`).join('\n')).toEqual({
        graphql: entry.graphql,
        rest: entry.rest,
      });
    });
  }
});

describe('diffContract locations', () => {
  const lineOf = (text: string, needle: string): { line: number; column: number } => {
    const lines = text.split('\n');
    const line = lines.findIndex((candidate) => candidate.includes(needle));
    return { line: line + 1, column: (lines[line] ?? '').indexOf(needle) + 1 };
  };

  it('puts a removal at its line in the old schema and an addition at its line in the new one', async () => {
    const next = BASE.replace('  bio: String\n', '').replace('  body: String\n', '  body: String\n  subtitle: String\n');
    const changes = await diffContract(schema(BASE), schema(next));
    const removed = changes.filter((change) => change.class === 'breaking' && /bio/.test(change.message));
    expect(removed.length).toBeGreaterThan(0);
    for (const change of removed) expect(change.location).toEqual({ file: 'schema.graphql', ...lineOf(BASE, 'bio: String') });
    const added = changes.filter((change) => /subtitle/.test(change.message) && change.class === 'safe');
    expect(added.map((change) => change.styles).flat().sort()).toEqual(expect.arrayContaining(['graphql', 'rest']));
    for (const change of added) expect(change.location).toEqual({ file: 'schema.graphql', ...lineOf(next, 'subtitle: String') });
  });

  it('puts a removed enum value at the value, and a removed route at its type', async () => {
    const next = BASE.replace(' ARCHIVED }', ' }').replace(/\ntype Tag[^}]*}\n/, '\n').replace('  tags: [Tag!]!\n', '');
    const changes = await diffContract(schema(BASE), schema(next));
    const value = changes.find((change) => change.styles.includes('rest') && /ARCHIVED/.test(change.message));
    expect(value?.location).toEqual({ file: 'schema.graphql', ...lineOf(BASE, 'ARCHIVED') });
    const route = changes.find((change) => change.message === 'Route GET /tags was removed');
    expect(route?.location).toEqual({ file: 'schema.graphql', ...lineOf(BASE, 'Tag @allow') });
  });
});
