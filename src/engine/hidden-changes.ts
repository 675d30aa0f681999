import type { ReadNode, ReadPlan } from '../plan/read-plan.js';
import { principalKey, type Principal } from '../plan/principal.js';
import { fieldAccess, rowRule, type RuleScope } from '../plan/read-rules.js';
import type { Model, ResourceType } from '../schema/model.js';

/**
 * Whether rules keep from this principal some rows or fields of the tables
 * the plans read. The change clocks behind `Last-Modified` and
 * `If-Modified-Since` are per table, so for such a caller they would move
 * with an edit the caller may not see (an admin's edit of a hidden order)
 * and tell a stranger it happened; the answer then carries no
 * `Last-Modified` and revalidates by ETag alone, which hashes what the
 * caller sees.
 */
export function rulesHideChanges(model: Model, plans: readonly ReadPlan[], principal: Principal): boolean {
  if (!model.hasRules || principal.admin) return false;
  return plans.some((plan) => hidesChanges(model, plan, principal));
}

const known = new WeakMap<ReadPlan['root'], Map<string, boolean>>();

function hidesChanges(model: Model, plan: ReadPlan, principal: Principal): boolean {
  let byPrincipal = known.get(plan.root);
  if (byPrincipal === undefined) {
    byPrincipal = new Map();
    known.set(plan.root, byPrincipal);
  }
  // Rules may name the principal's id, role and claims: the answer is per principal, as plan templates are.
  const key = principalKey(principal);
  let hides = byPrincipal.get(key);
  if (hides === undefined) {
    hides = computeHides(model, plan, principal);
    // A bounded memo: many principals on one template keep only their latest answers.
    if (byPrincipal.size >= 64) byPrincipal.clear();
    byPrincipal.set(key, hides);
  }
  return hides;
}

function computeHides(model: Model, plan: ReadPlan, principal: Principal): boolean {
  // Only whether a rule narrows matters here, not its values: the params it would add are thrown away.
  const scope: RuleScope = { model, principal, param: () => ({ param: -1 }) };
  const typeHides = (type: ResourceType | undefined): boolean =>
    type !== undefined && (rowRule(scope, type) !== undefined || type.fields.some((field) => fieldAccess(scope, type, field).kind !== 'open'));
  const visit = (node: ReadNode): boolean => {
    const type = model.typesByName.get(node.type);
    if (typeHides(type)) return true;
    return node.select.some((selection) => {
      if (selection.kind === 'toOne' || selection.kind === 'toMany') return visit(selection.node);
      if (selection.kind !== 'count') return false;
      const field = type?.fieldsByName.get(selection.field);
      return field !== undefined && 'target' in field && typeHides(model.typesByName.get(field.target));
    });
  };
  const { root } = plan;
  if (root.kind === 'list' && root.parent !== undefined && typeHides(model.typesByName.get(root.parent.type))) return true;
  return visit(root.node);
}
