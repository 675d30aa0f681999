import type { ReadPlan } from './read-plan.js';

/**
 * Plan templates: a front-end that sees the same question again with other
 * values (`GET /users/42`, then `GET /users/7`) reuses the plan it built the
 * first time and swaps the values in. The root object is shared, so the
 * engine finds the compiled statement by identity, without even a shape key.
 */
export function bindParams(template: ReadPlan, values: ReadonlyMap<number, unknown>): ReadPlan {
  const params = [...template.params];
  for (const [index, value] of values) params[index] = value;
  return { kind: 'read', root: template.root, params, deprecations: template.deprecations };
}

/** The param slot holding the record id (`one`) or the parent id (sub-collections), if the plan has one. */
export function idParam(plan: ReadPlan): number | undefined {
  const { root } = plan;
  if (root.kind === 'one') return root.id.param;
  return root.parent?.id.param;
}
