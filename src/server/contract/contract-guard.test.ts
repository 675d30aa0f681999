import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/support/databases.js';
import { loadSchema } from '../../schema/load-schema.js';
import { readAppliedSchema } from '../../storage/migrate/applied-schema.js';
import { migrate } from '../../storage/migrate/migrate.js';
import { BreakingChangeError, contractGuard } from './contract-guard.js';
import type { ContractSchema } from './diff-contract.js';

const V1 = `type Note {
  id: ID!
  title: String!
  body: String
}
`;

function schema(text: string): ContractSchema {
  const result = loadSchema([{ file: 'notes.graphql', text }]);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return { model: result.model, sources: [{ file: 'notes.graphql', text }] };
}

describeEachDialect('the schema recorded in the database and the breaking-change guard', (ctx) => {
  const guarded = (next: ContractSchema, allowBreaking: boolean, warnings: string[] = []) => ({
    guard: contractGuard(next, { allowBreaking, warn: (line: string) => warnings.push(line) }),
    record: { sources: next.sources, appliedBy: 'test' },
  });

  it('records the applied schema, refuses a breaking change naming its place and the flag, and applies it with --allow-breaking', async () => {
    await ctx.reset();
    const db = await ctx.open();
    const v1 = schema(V1);
    // A fresh database has nothing to compare with.
    expect((await migrate(db, v1.model, guarded(v1, false))).recorded).toBe(true);
    const applied = await readAppliedSchema(db);
    expect(applied).toMatchObject({ version: 1, hash: v1.model.hash, sources: v1.sources, appliedBy: 'test' });

    const v2 = schema(V1.replace('  body: String\n', ''));
    const refusal = await migrate(db, v2.model, { ...guarded(v2, false), allowDestructive: true }).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(BreakingChangeError);
    const message = (refusal as Error).message;
    expect(message).toContain('notes.graphql:4:3 [GraphQL]');
    expect(message).toContain('notes.graphql:4:3 [REST]');
    expect(message).toContain('--allow-breaking');
    expect(message).toContain('--allow-destructive is separate');
    // Nothing changed: the column is there, the record still says version 1.
    expect((await db.schema.introspect(db)).tables.get('notes')?.columns.map((column) => column.name)).toContain('body');
    expect((await readAppliedSchema(db))?.version).toBe(1);

    const warnings: string[] = [];
    const applying = await migrate(db, v2.model, { ...guarded(v2, true, warnings), allowDestructive: true });
    expect(applying.applied).toBe(true);
    expect(warnings.some((line) => line.startsWith('breaking change applied (--allow-breaking): notes.graphql:4:3'))).toBe(true);
    expect(await readAppliedSchema(db)).toMatchObject({ version: 2, hash: v2.model.hash });
  });

  it('lets a dangerous change through with a warning, and a safe one silently', async () => {
    await ctx.reset();
    const db = await ctx.open();
    const v1 = schema(V1);
    await migrate(db, v1.model, guarded(v1, false));
    const warnings: string[] = [];
    const dangerous = schema(V1.replace('title: String!', 'title: String! @unique'));
    expect((await migrate(db, dangerous.model, guarded(dangerous, false, warnings))).recorded).toBe(true);
    expect(warnings).toEqual([expect.stringMatching(/^dangerous change: notes\.graphql:3:3 \[GraphQL, REST\] Note\.title must now be unique/)]);
    const safe = schema(V1.replace('title: String!', 'title: String! @unique\n  subtitle: String'));
    warnings.length = 0;
    expect((await migrate(db, safe.model, guarded(safe, false, warnings))).recorded).toBe(true);
    expect(warnings).toEqual([]);
    expect((await readAppliedSchema(db))?.version).toBe(3);
  });
});
