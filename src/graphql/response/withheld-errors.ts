import type { Model } from '../../schema/model.js';
import { fieldForbidden } from '../../plan/read-rules.js';
import type { ReadNode, ReadPlan } from '../../plan/read-plan.js';

/** A field's error at its response path (a root field's own errors are the outcome's). */
export interface PathError {
  readonly error: unknown;
  readonly path: readonly (string | number)[];
}

/**
 * FIELD_FORBIDDEN at the path of every occurrence of a `withheld` selection
 * in a root field's answer: the plan decided which fields the asker may not
 * read (plan/read-rules.ts); this only says where they are in the JSON,
 * with list indexes, as GraphQL paths do. Plans without one cost nothing.
 */
export function withheldErrors(model: Model, plan: ReadPlan, rootKey: string, json: string): PathError[] {
  if (!hasWithheld(plan.root.node)) return [];
  const errors: PathError[] = [];
  walk(model, plan.root.node, JSON.parse(json) as unknown, [rootKey], errors);
  return errors;
}

function hasWithheld(node: ReadNode): boolean {
  return node.select.some((selection) => selection.kind === 'withheld' || ((selection.kind === 'toOne' || selection.kind === 'toMany') && hasWithheld(selection.node)));
}

function walk(model: Model, node: ReadNode, value: unknown, path: readonly (string | number)[], errors: PathError[]): void {
  if (Array.isArray(value)) {
    value.forEach((item, index) => walk(model, node, item, [...path, index], errors));
    return;
  }
  if (value === null || typeof value !== 'object') return;
  const record = value as Readonly<Record<string, unknown>>;
  const type = model.typesByName.get(node.type);
  for (const selection of node.select) {
    if (selection.kind === 'withheld') {
      const field = type?.fieldsByName.get(selection.field);
      if (type !== undefined && field !== undefined) errors.push({ error: fieldForbidden(type, field), path: [...path, selection.key] });
    } else if (selection.kind === 'toOne' || selection.kind === 'toMany') {
      walk(model, selection.node, record[selection.key], [...path, selection.key], errors);
    }
  }
}
