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
  return { kind: 'read', root: template.root, params };
}

/** A small LRU of templates by a front-end's key (its route and query text). */
export class PlanTemplates {
  private readonly entries = new Map<string, ReadPlan>();

  constructor(private readonly limit = 1000) {}

  get(key: string, build: () => ReadPlan): ReadPlan {
    const hit = this.entries.get(key);
    if (hit !== undefined) {
      this.entries.delete(key);
      this.entries.set(key, hit);
      return hit;
    }
    const plan = build();
    if (this.entries.size >= this.limit) {
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
    this.entries.set(key, plan);
    return plan;
  }
}
