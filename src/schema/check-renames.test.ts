import { describe, expect, it } from 'vitest';
import { formatProblems, loadSchema } from './load-schema.js';
import { resolveField, resolveType } from './renamed.js';

function problemsOf(text: string): string {
  const result = loadSchema([{ file: 'schema.graphql', text }]);
  if (result.ok) expect.fail('expected problems, the schema loaded');
  return formatProblems(result.problems);
}

describe('@renamed(from:) in the schema', () => {
  it('maps an old field name and an old type name to what they became', () => {
    const result = loadSchema([
      { file: 'schema.graphql', text: 'type Person @renamed(from: "Member") { id: ID!\n headline: String @renamed(from: "title")\n name: String }' },
    ]);
    if (!result.ok) expect.fail(formatProblems(result.problems));
    const type = result.model.typesByName.get('Person');
    expect(type?.renamedFrom).toBe('Member');
    expect(type?.fieldsByName.get('headline')?.renamedFrom).toBe('title');
    expect(type === undefined ? undefined : resolveField(type, 'title')).toEqual({ field: type?.fieldsByName.get('headline'), alias: 'title' });
    expect(type === undefined ? undefined : resolveField(type, 'name')?.alias).toBeUndefined();
    expect(type === undefined ? undefined : resolveField(type, 'nope')).toBeUndefined();
    expect(resolveType(result.model, 'Member')).toEqual({ type, alias: 'Member' });
    expect(resolveType(result.model, 'Person')).toEqual({ type, alias: undefined });
  });

  it('refuses an old name another field still has, one claimed twice, or the field’s own, at the argument', () => {
    const text = [
      'type Post {',
      '  id: ID!',
      '  title: String',
      '  headline: String @renamed(from: "title")',
      '  subtitle: String @renamed(from: "caption")',
      '  teaser: String @renamed(from: "caption")',
      '  body: String @renamed(from: "body")',
      '}',
    ].join('\n');
    const problems = problemsOf(text);
    expect(problems).toContain('schema.graphql:4:35 SCHEMA_NAME_COLLISION "Post.headline" is @renamed from "title", but Post still has a field "title"');
    expect(problems).toContain('schema.graphql:6:33 SCHEMA_NAME_COLLISION "Post.teaser" and "Post.subtitle" are both @renamed from "caption"');
    expect(problems).toContain('schema.graphql:7:31 SCHEMA_BAD_DIRECTIVE_ARGUMENT "Post.body" is @renamed from its own name');
  });

  it('refuses a type’s old name that another type still maps to, and a name GraphQL cannot serve', () => {
    const problems = problemsOf('type Post { id: ID! }\ntype Article @renamed(from: "Post") { id: ID! }\ntype Note { id: ID!\n x: String @renamed(from: "2x") }');
    expect(problems).toMatch(/schema\.graphql:2:29 SCHEMA_NAME_COLLISION Type "Article" is @renamed from "Post", but type "Post" already maps to the GraphQL field "post"/);
    expect(problems).toMatch(/schema\.graphql:4:27 SCHEMA_BAD_DIRECTIVE_ARGUMENT @renamed\(from: "2x"\) must name/);
  });
});
