import { beforeAll, describe, expect, it } from 'vitest';
import type { Model, ResourceType } from '../schema/model.js';
import type { RuleExpr } from '../schema/rules.js';
import { loadExampleModel } from '../../test/support/start-server.js';
import { foldExpr, type FoldContext } from './fold-rule.js';
import { ANONYMOUS, type Principal } from './principal.js';

const member: Principal = { id: 'u42', role: 'MEMBER', claims: { sub: 'u42', app_metadata: { plan: 'pro' } }, admin: false, via: 'jwt' };
const moderator: Principal = { ...member, id: 'u7', role: 'MODERATOR' };

describe('rules folded for a principal', () => {
  let model: Model;
  let post: ResourceType;
  let item: ResourceType;
  beforeAll(async () => {
    model = await loadExampleModel();
    post = model.typesByName.get('Post') as ResourceType;
    item = model.typesByName.get('OrderItem') as ResourceType;
  });

  function fold(principal: Principal, type: ResourceType, expr: RuleExpr): { folded: ReturnType<typeof foldExpr>; params: unknown[] } {
    const params: unknown[] = [];
    const ctx: FoldContext = { model, principal, param: (value) => ({ param: params.push(value) - 1 }) };
    return { folded: foldExpr(ctx, type, expr), params };
  }

  const authorIsCaller: RuleExpr = { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['author'] }, right: { kind: 'auth', path: ['id'] } };
  const isModerator: RuleExpr = { kind: 'compare', op: 'eq', left: { kind: 'auth', path: ['role'] }, right: { kind: 'value', value: 'MODERATOR' } };
  const published: RuleExpr = { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['status'] }, right: { kind: 'value', value: 'PUBLISHED' } };

  it('decides comparisons of the principal alone, without SQL', () => {
    expect(fold(moderator, post, isModerator).folded).toEqual({ kind: 'always' });
    expect(fold(member, post, isModerator).folded).toEqual({ kind: 'never' });
    expect(fold(ANONYMOUS, post, { kind: 'or', items: [authorIsCaller, isModerator] }).folded).toEqual({ kind: 'never' });
    expect(fold(moderator, post, { kind: 'or', items: [authorIsCaller, isModerator] }).folded).toEqual({ kind: 'always' });
  });

  it('turns a comparison with the record into a filter with the principal’s value in a param', () => {
    const { folded, params } = fold(member, post, { kind: 'or', items: [published, authorIsCaller, isModerator] });
    expect(folded).toEqual({
      kind: 'filter',
      filter: { op: 'or', items: [{ op: 'eq', field: 'status', value: { param: 0 } }, { op: 'eq', field: 'author', value: { param: 1 } }] },
    });
    expect(params).toEqual(['PUBLISHED', 'u42']);
  });

  it('matches no record on what an anonymous caller lacks, and every record on its negation', () => {
    expect(fold(ANONYMOUS, post, authorIsCaller).folded).toEqual({ kind: 'never' });
    expect(fold(ANONYMOUS, post, { ...authorIsCaller, op: 'ne' }).folded).toEqual({ kind: 'always' });
    expect(fold(ANONYMOUS, post, { kind: 'not', item: authorIsCaller }).folded).toEqual({ kind: 'always' });
  });

  it('follows to-one relations with a related filter', () => {
    const expr: RuleExpr = { kind: 'compare', op: 'eq', left: { kind: 'auth', path: ['id'] }, right: { kind: 'field', path: ['order', 'customer'] } };
    const { folded, params } = fold(member, item, expr);
    expect(folded).toEqual({ kind: 'filter', filter: { op: 'related', field: 'order', filter: { op: 'eq', field: 'customer', value: { param: 0 } } } });
    expect(params).toEqual(['u42']);
  });

  it('reads claims by path and treats a missing claim as absent', () => {
    const pro: RuleExpr = { kind: 'compare', op: 'eq', left: { kind: 'auth', path: ['app_metadata', 'plan'] }, right: { kind: 'value', value: 'pro' } };
    expect(fold(member, post, pro).folded).toEqual({ kind: 'always' });
    expect(fold(moderator, post, { kind: 'compare', op: 'eq', left: { kind: 'auth', path: ['app_metadata', 'missing'] }, right: { kind: 'value', value: null } }).folded).toEqual({
      kind: 'always',
    });
    expect(fold(ANONYMOUS, post, pro).folded).toEqual({ kind: 'never' });
  });

  it('spells `in` as alternatives and `== null` as has-none', () => {
    const inRoles: RuleExpr = { kind: 'in', item: { kind: 'auth', path: ['role'] }, values: [{ kind: 'value', value: 'MODERATOR' }, { kind: 'value', value: 'ADMIN' }] };
    expect(fold(moderator, post, inRoles).folded).toEqual({ kind: 'always' });
    expect(fold(member, post, inRoles).folded).toEqual({ kind: 'never' });
    const noTitle: RuleExpr = { kind: 'compare', op: 'eq', left: { kind: 'field', path: ['publishedAt'] }, right: { kind: 'value', value: null } };
    expect(fold(member, post, noTitle).folded).toEqual({ kind: 'filter', filter: { op: 'isNull', field: 'publishedAt', value: true } });
  });
});
