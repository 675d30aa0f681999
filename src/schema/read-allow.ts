import { Kind } from 'graphql';
import type { RuleDraft } from './drafts.js';
import type { DirectiveUses } from './read-directives.js';
import type { ProblemList } from './schema-problem.js';

const TYPE_OPERATIONS = ['read', 'create', 'update', 'delete'] as const;
const FIELD_OPERATIONS = ['read', 'write'] as const;

/**
 * The rules of every `@allow` on a type or a field, in order, as drafts. One
 * directive definition serves both places (graphql-js cannot give a
 * directive other arguments per location), so the operations that do not
 * apply here are refused: `write` on a type, `create`/`update`/`delete` on a
 * field.
 */
export function readAllow(uses: DirectiveUses, on: 'type' | 'field', qualified: string, problems: ProblemList): RuleDraft[] {
  const operations: readonly RuleDraft['operation'][] = on === 'type' ? TYPE_OPERATIONS : FIELD_OPERATIONS;
  const drafts: RuleDraft[] = [];
  for (const use of uses.all('allow')) {
    if (use.argumentNodes.size === 0) {
      problems.at(use.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@allow on ${qualified} gives no rule: name the operations it allows, as in ${example(on)}.`);
      continue;
    }
    for (const [name, node] of use.argumentNodes) {
      if (!(operations as readonly string[]).includes(name)) {
        const why =
          on === 'type'
            ? `On a type, @allow takes ${TYPE_OPERATIONS.join(', ')}; "write" belongs on a field (the type's own create and update rules cover all its fields).`
            : `On a field, @allow takes read and write; "${name}" belongs on the type (a field's "write" covers create and update of that field).`;
        problems.at(node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', why);
        continue;
      }
      if (node.kind !== Kind.STRING) {
        problems.at(node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `A rule is a string, such as ${example(on)}; leave "${name}" out rather than null.`);
        continue;
      }
      drafts.push({ operation: name as RuleDraft['operation'], node });
    }
  }
  return drafts;
}

function example(on: 'type' | 'field'): string {
  return on === 'type' ? '@allow(read: "true", update: "id == auth.id")' : '@allow(read: "id == auth.id")';
}
