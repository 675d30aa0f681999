import { Kind, OperationTypeNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
import { ApiError } from '../../errors/api-error.js';
import { checkWriteRights } from '../../plan/build-write.js';
import type { Principal } from '../../plan/principal.js';
import type { Model } from '../../schema/model.js';
import type { RootRole } from '../schema/roles.js';

/**
 * Whether a multipart operation may send files at all, decided from its
 * document and the caller before the first file part is read (the GraphQL
 * multipart spec sends `operations` and `map` first): a file can only land in
 * a create or update, so at least one of the mutation's root fields must be a
 * create or update the caller may make, of a type with a file field they may
 * write. Otherwise the request is refused with the rules' own code (403
 * FORBIDDEN or FIELD_FORBIDDEN), and no file is stored or decoded. Which
 * field each file goes to is decided again, field by field, when the
 * mutation runs.
 */
export function checkUploadRights(
  model: Model,
  roles: ReadonlyMap<string, RootRole>,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  principal: Principal,
): void {
  if (operation.operation !== OperationTypeNode.MUTATION) {
    throw new ApiError('BAD_REQUEST', { detail: 'Only a mutation takes files: send a query without a multipart body' });
  }
  let refusal: Error | undefined;
  for (const name of rootFieldNames(operation.selectionSet, fragments, new Set())) {
    const role = roles.get(name);
    if (role?.kind !== 'create' && role?.kind !== 'update') continue;
    const { type, kind } = role;
    const fileFields = type.fields.filter((field) => field.kind === 'file').map((field) => field.name);
    if (fileFields.length === 0) continue;
    // Some file field of the type must be one the caller may write (the type's own rule is checked with it).
    const refusals = fileFields.map((field) => refusalOf(() => checkWriteRights(model, type.name, kind, principal, [field])));
    if (refusals.includes(undefined)) return;
    refusal ??= refusals[0];
  }
  throw refusal ?? new ApiError('BAD_REQUEST', { detail: 'This mutation takes no file: only a create or update of a type with a file field does' });
}

function refusalOf(check: () => void): Error | undefined {
  try {
    check();
    return undefined;
  } catch (error) {
    if (error instanceof Error) return error;
    throw error;
  }
}

/** The root field names a selection asks for, through fragments (each spread followed once), whatever @skip/@include say. */
function rootFieldNames(set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen: Set<string>): string[] {
  const names: string[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) names.push(selection.name.value);
    else if (selection.kind === Kind.INLINE_FRAGMENT) names.push(...rootFieldNames(selection.selectionSet, fragments, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment !== undefined) names.push(...rootFieldNames(fragment.selectionSet, fragments, seen));
    }
  }
  return names;
}
