import type { ReadNode, ReadPlan } from '../plan/read-plan.js';
import { isPersonal, type Principal } from '../plan/principal.js';
import type { CacheHint, Model } from '../schema/model.js';

/**
 * The `Cache-Control` a response may carry, from the schema's `@cache` hints
 * on every type and field the plans read: the smallest maxAge wins, and one
 * PRIVATE part makes the whole response private. With no hint a response is
 * storable but must be revalidated every time (`no-cache`): the validators
 * then guarantee that no cache ever shows data older than the last write.
 */
export interface CachePolicy {
  readonly maxAge: number;
  readonly scope: 'PUBLIC' | 'PRIVATE';
  /** Under permission rules the answer depends on the credentials: `Vary: Authorization` (RFC 9110 §12.5.5). */
  readonly varyAuthorization?: boolean;
}

/**
 * The policy for one asker. With rules, an answer depends on who asks: a
 * signed-in caller's is private, and every answer varies by Authorization
 * so that no shared cache hands one caller's answer to another (an
 * anonymous answer is the same for every anonymous caller and may stay
 * public).
 */
export function personalPolicy(model: Model, policy: CachePolicy, principal: Principal): CachePolicy {
  if (!isPersonal(model)) return policy;
  return { ...policy, scope: principal.via === 'anonymous' ? policy.scope : 'PRIVATE', varyAuthorization: true };
}

const policies = new WeakMap<ReadPlan['root'], CachePolicy>();

export function cachePolicyOf(model: Model, plans: readonly ReadPlan[]): CachePolicy {
  if (plans.length === 1) {
    const root = (plans[0] as ReadPlan).root;
    const known = policies.get(root);
    if (known !== undefined) return known;
    const policy = computePolicy(model, plans);
    policies.set(root, policy);
    return policy;
  }
  return computePolicy(model, plans);
}

function computePolicy(model: Model, plans: readonly ReadPlan[]): CachePolicy {
  const state = { maxAge: Number.POSITIVE_INFINITY, hinted: false, isPrivate: false };
  const apply = (hint: CacheHint | undefined): void => {
    if (hint === undefined) {
      state.maxAge = 0;
      return;
    }
    state.hinted = true;
    state.maxAge = Math.min(state.maxAge, hint.maxAge);
    if (hint.scope === 'PRIVATE') state.isPrivate = true;
  };
  const visit = (node: ReadNode): void => {
    const type = model.typesByName.get(node.type);
    if (type === undefined) return;
    apply(type.cache);
    for (const selection of node.select) {
      if (selection.kind === 'constant' || selection.kind === 'cursor') continue;
      const field = type.fieldsByName.get(selection.field);
      if (field?.cache !== undefined) apply(field.cache);
      if (selection.kind === 'toOne' || selection.kind === 'toMany') visit(selection.node);
    }
  };
  for (const plan of plans) visit(plan.root.node);
  return { maxAge: state.hinted && Number.isFinite(state.maxAge) ? state.maxAge : 0, scope: state.isPrivate ? 'PRIVATE' : 'PUBLIC' };
}

export function cacheControlHeader(policy: CachePolicy): string {
  const scope = policy.scope === 'PRIVATE' ? 'private' : 'public';
  // no-cache: caches may store it but must revalidate before each use (RFC 9111 §5.2.2.4).
  if (policy.maxAge <= 0) return `${scope}, no-cache`;
  return `${scope}, max-age=${policy.maxAge}, must-revalidate`;
}
