import { describe, expect, it } from 'vitest';
import { loadSchema } from './load-schema.js';
import { deprecationOf } from './model.js';
import { isCalendarDate } from './read-deprecation.js';

const load = (text: string) => loadSchema([{ file: 'schema.graphql', text }]);

describe('@deprecated(since:, sunset:)', () => {
  it('keeps the reason and dates of fields, types, enum values and the size argument', () => {
    const result = load(`
type Pamphlet @deprecated(reason: "Use Book.", since: "2026-03-01", sunset: "2027-01-31") {
  id: ID!
  nick: String @deprecated(sunset: "2027-06-30")
  role: Role
  cover(size: Int @deprecated(reason: "Fixed size now.")): String @image(sizes: [32])
}
enum Role { A B @deprecated(reason: "Use A.", since: "2026-01-15") }
`);
    if (!result.ok) expect.fail(JSON.stringify(result.problems));
    const type = result.model.typesByName.get('Pamphlet');
    expect(type === undefined ? undefined : deprecationOf(type)).toEqual({ reason: 'Use Book.', since: '2026-03-01', sunset: '2027-01-31' });
    const nick = type?.fieldsByName.get('nick');
    expect(nick === undefined ? undefined : deprecationOf(nick)).toEqual({ reason: 'No longer supported', since: undefined, sunset: '2027-06-30' });
    const cover = type?.fieldsByName.get('cover');
    expect(cover?.kind === 'file' ? cover.sizeDeprecation : undefined).toEqual({ reason: 'Fixed size now.', since: undefined, sunset: undefined });
    expect(result.model.enums.get('Role')?.deprecatedValues?.get('B')).toEqual({ reason: 'Use A.', since: '2026-01-15', sunset: undefined });
    expect(result.model.enums.get('Role')?.deprecatedValues?.has('A')).toBe(false);
  });

  it('reports a date that is not an ISO calendar date, or a sunset before since, where it is written', () => {
    const result = load(`type T {
  id: ID!
  a: String @deprecated(sunset: "30/06/2027")
  b: String @deprecated(since: "2027-02-30")
  c: String @deprecated(since: "2027-01-02", sunset: "2027-01-01")
}
enum E { X @deprecated(sunset: "soon") }
`);
    if (result.ok) expect.fail('the schema loaded');
    expect(result.problems.map((problem) => [problem.code, problem.line, problem.column])).toEqual([
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 3, 33],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 4, 32],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 5, 54],
      ['SCHEMA_BAD_DIRECTIVE_ARGUMENT', 7, 32],
    ]);
    expect(result.problems[0]?.message).toBe('@deprecated sunset must be an ISO calendar date such as "2027-06-30"; "30/06/2027" is not one.');
  });

  it('knows which calendar dates exist', () => {
    expect(['2027-06-30', '2028-02-29'].map(isCalendarDate)).toEqual([true, true]);
    expect(['2027-02-29', '2027-13-01', '2027-6-30', '2027-06-30T00:00:00Z', ''].map(isCalendarDate)).toEqual([false, false, false, false, false]);
  });
});
