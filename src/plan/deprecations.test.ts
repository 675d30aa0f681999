import { describe, expect, it } from 'vitest';
import { modelOf } from '../../test/support/model-of.js';
import { DEFAULT_LIMITS, planReadList, planReadOne } from './build-read.js';
import { planCreate, planLink, planUpdate } from './build-write.js';
import { ANONYMOUS } from './principal.js';
import { validateInput } from './validate-input.js';

const model = modelOf(`
  type Person @renamed(from: "Member") {
    id: ID!
    name: String!
    fans: [Person!]! @renamed(from: "followers")
    following: [Person!]!
    articles: [Article!]!
  }
  type Article {
    id: ID!
    headline: String! @renamed(from: "title")
    author: Person! @renamed(from: "writer")
  }
`);
const options = { limits: DEFAULT_LIMITS, fromText: false, principal: ANONYMOUS };
const title = { kind: 'field', coordinate: 'Article.title', reason: 'Renamed to headline', sunset: undefined, since: undefined };
const writer = { kind: 'field', coordinate: 'Article.writer', reason: 'Renamed to author', sunset: undefined, since: undefined };
const member = { kind: 'type', coordinate: 'Member', reason: 'Renamed to Person', sunset: undefined, since: undefined };

/**
 * The contract with the deprecation machinery (headers, GraphQL
 * extensions, usage counts): a plan lists each deprecated thing it used once,
 * as `{ kind, coordinate, reason, sunset, since }`, beside the uses of
 * `@deprecated` things (plan/deprecated-use.ts); a plan that used none lists none.
 */
describe('plans report the old names they were asked by', () => {
  it('a selection, filter and order by old names read the current fields, each use listed once', () => {
    const plan = planReadList(model, 'Article', { filter: { title: { eq: 'x' } }, orderBy: [{ field: 'title', direction: 'asc' }] }, [{ key: 'title', field: 'title' }, { key: 'writer', field: 'writer' }], options);
    expect(plan.deprecations).toEqual([title, writer]);
    const node = plan.root.kind === 'list' ? plan.root.node : undefined;
    expect(node?.select).toEqual([{ kind: 'column', key: 'title', field: 'headline' }, { kind: 'column', key: 'writer', field: 'author' }]);
    expect(node?.order[0]).toEqual({ field: 'headline', direction: 'asc' });
    expect(node?.filter).toEqual({ op: 'eq', field: 'headline', value: { param: 0 } });
  });

  it('a plan by current names has no deprecations', () => {
    const plan = planReadOne(model, 'Article', 'a1', [{ key: 'headline', field: 'headline' }], options);
    expect(plan.deprecations).toEqual([]);
  });

  it('a type asked by its old name, and a relation by its old name, are the type and relation now', () => {
    const one = planReadOne(model, 'Member', 'p1', [{ key: 'name', field: 'name' }], options);
    expect(one.deprecations).toEqual([member]);
    expect(one.root.node.type).toBe('Person');
    const sub = planReadList(model, 'Member', {}, [{ key: 'id', field: 'id' }], { ...options, parent: { type: 'Member', field: 'followers', id: 'p1' } });
    expect(sub.deprecations).toEqual([member, { kind: 'field', coordinate: 'Person.followers', reason: 'Renamed to fans', sunset: undefined, since: undefined }]);
    expect(sub.root.kind === 'list' ? sub.root.parent?.field : undefined).toBe('fans');
  });

  it('a write whose input used an old name reports it, and writes the field it became', () => {
    const values = validateInput(model, model.typesByName.get('Article') ?? expect.fail('no Article'), { title: 'Hello', author: 'p1' }, 'create');
    expect(values).toEqual({ headline: 'Hello', author: 'p1' });
    const create = planCreate(model, 'Article', values, ANONYMOUS);
    expect(create.deprecations).toEqual([title]);
    const update = planUpdate(model, 'Article', 'a1', validateInput(model, model.typesByName.get('Article') ?? expect.fail('no Article'), { headline: 'Now' }, 'patch'), ANONYMOUS);
    expect(update.deprecations).toEqual([]);
    const link = planLink(model, 'connect', 'Member', 'followers', 'p1', 'p2', ANONYMOUS);
    expect(link).toMatchObject({ type: 'Person', field: 'fans', deprecations: [member, { coordinate: 'Person.followers' }] });
  });

  it('refuses both names with different values, pointing at the old one; the same value twice is one', () => {
    const article = model.typesByName.get('Article') ?? expect.fail('no Article');
    expect(() => validateInput(model, article, { title: 'A', headline: 'B', author: 'p1' }, 'create')).toThrow(
      expect.objectContaining({ code: 'INPUT_RENAMED_FIELD_CONFLICT', errors: [expect.objectContaining({ pointer: '/title' })] }),
    );
    expect(validateInput(model, article, { title: 'A', headline: 'A', author: 'p1' }, 'create')).toEqual({ headline: 'A', author: 'p1' });
    // Required: either name will do, neither will not.
    expect(() => validateInput(model, article, { author: 'p1' }, 'create')).toThrow(expect.objectContaining({ code: 'INPUT_REQUIRED_FIELD' }));
  });
});
