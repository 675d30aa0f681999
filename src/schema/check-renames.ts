import type { ConstDirectiveNode } from 'graphql';
import type { ObjectDeclaration } from './collect-definitions.js';
import type { FieldDraft } from './drafts.js';
import type { ProblemList } from './schema-problem.js';

/**
 * `@renamed(from:)` on a type's fields: an old name must be free (no current
 * field of the type has it, no other field claims it, it is not the field's
 * own name), or an old client's question would mean two things.
 */
export function checkFieldRenames(declaration: ObjectDeclaration, fields: readonly FieldDraft[], problems: ProblemList): void {
  const current = new Set(fields.map(draftName));
  const claimed = new Map<string, string>();
  for (const draft of fields) {
    const name = draftName(draft);
    const from = draftCommon(draft).renamedFrom;
    if (from === undefined) continue;
    const node = declaration.fields.find((field) => field.name.value === name)?.directives?.find(isRenamed);
    const at = node?.arguments?.find((argument) => argument.name.value === 'from')?.value ?? node ?? declaration.node.name;
    const qualified = `${declaration.name}.${name}`;
    if (from === name) {
      problems.at(at, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `"${qualified}" is @renamed from its own name; remove the directive, or name what it was called before.`);
    } else if (current.has(from)) {
      problems.at(at, 'SCHEMA_NAME_COLLISION', `"${qualified}" is @renamed from "${from}", but ${declaration.name} still has a field "${from}"; rename or remove that one first.`);
    } else if (claimed.has(from)) {
      problems.at(at, 'SCHEMA_NAME_COLLISION', `"${qualified}" and "${declaration.name}.${claimed.get(from) ?? ''}" are both @renamed from "${from}".`);
    } else {
      claimed.set(from, name);
    }
  }
}

function isRenamed(directive: ConstDirectiveNode): boolean {
  return directive.name.value === 'renamed';
}

function draftCommon(draft: FieldDraft): { readonly name: string; readonly renamedFrom: string | undefined } {
  return draft.kind === 'stored' ? draft.field : draft.draft.common;
}

function draftName(draft: FieldDraft): string {
  return draftCommon(draft).name;
}
