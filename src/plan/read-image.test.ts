import { beforeAll, describe, expect, it } from 'vitest';
import { loadExampleModel } from '../../test/support/start-server.js';
import type { Model } from '../schema/model.js';
import { planReadList, type FieldRequest } from './build-read.js';
import { DEFAULT_LIMITS } from './limits.js';
import { ANONYMOUS, type Principal } from './principal.js';
import { imageReadProblem, readImage } from './read-image.js';
import type { ReadPlan } from './read-plan.js';

const AUTHOR: Principal = Object.freeze({ id: 'u1', role: 'MEMBER', claims: Object.freeze({}), admin: false, via: 'jwt' });

/** An event's image of a post: the REST representation, as the admin reads it. */
const DRAFT = { id: 'p1', title: 'Draft', body: 'text', author: 'u1', status: 'DRAFT', publishedAt: null, tags: ['a'], cover: '/files/abc', createdAt: '2026-11-26T00:00:00.000Z', updatedAt: '2026-11-26T00:00:00.000Z' };
const PUBLISHED = { ...DRAFT, id: 'p2', title: 'Out', status: 'PUBLISHED' };

describe('readImage: a list plan answered from a record image', () => {
  let model: Model;
  const plan = (principal: Principal, select: FieldRequest[], filter?: Record<string, unknown>): ReadPlan =>
    planReadList(model, 'Post', { filter, first: 1 }, select, { limits: DEFAULT_LIMITS, fromText: false, principal, withhold: true });
  /** The related reads asked for, answered with a fixed user. */
  const asked: ReadPlan[] = [];
  const readOne = (related: ReadPlan): Promise<string | null> => {
    asked.push(related);
    return Promise.resolve('{"name":"Ada"}');
  };

  beforeAll(async () => {
    model = await loadExampleModel();
  });

  it('applies the row rule to the image: an anonymous reader gets the published post, not the draft; its author gets both', async () => {
    const select: FieldRequest[] = [{ key: 'title', field: 'title' }];
    expect((await readImage(plan(ANONYMOUS, select), DRAFT, readOne)).json).toBe('[]');
    expect((await readImage(plan(ANONYMOUS, select), PUBLISHED, readOne)).json).toBe('[{"title":"Out"}]');
    expect((await readImage(plan(AUTHOR, select), DRAFT, readOne)).json).toBe('[{"title":"Draft"}]');
  });

  it('applies the filter to the image, and renders aliases, __typename, an image size and a to-one relation read through readOne', async () => {
    const select: FieldRequest[] = [
      { key: 'name', field: 'title' },
      { key: '__typename', typename: true },
      { key: 'thumb', field: 'cover', size: 320 },
      { key: 'author', field: 'author', select: [{ key: 'name', field: 'name' }] },
    ];
    asked.length = 0;
    expect((await readImage(plan(ANONYMOUS, select, { title: { startsWith: 'No' } }), PUBLISHED, readOne)).json).toBe('[]');
    const shown = await readImage(plan(ANONYMOUS, select, { title: { startsWith: 'O' } }), PUBLISHED, readOne);
    expect(JSON.parse(shown.json)).toEqual([{ name: 'Out', __typename: 'Post', thumb: '/files/abc/320', author: { name: 'Ada' } }]);
    // The related read is the author's, by the image's id, with the reader's rules for users.
    expect(asked).toHaveLength(1);
    expect((asked[0] as ReadPlan).params.at(-1)).toBe('u1');
  });

  it('finds what an image cannot answer: a list of the record, a count, a rule through a relation', () => {
    const lists = planReadList(model, 'User', { first: 1 }, [{ key: 'posts', field: 'posts', select: [{ key: 'title', field: 'title' }] }], {
      limits: DEFAULT_LIMITS,
      fromText: false,
      principal: ANONYMOUS,
    });
    expect(imageReadProblem(lists)).toMatch(/User\.posts/);
    const items = planReadList(model, 'OrderItem', { first: 1 }, [{ key: 'id', field: 'id' }], { limits: DEFAULT_LIMITS, fromText: false, principal: AUTHOR });
    expect(imageReadProblem(items)).toMatch(/relation/);
    expect(imageReadProblem(plan(ANONYMOUS, [{ key: 'title', field: 'title' }]))).toBeUndefined();
  });
});
