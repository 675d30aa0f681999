import { Kind, OperationTypeNode, valueFromASTUntyped, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode, type SelectionSetNode } from 'graphql';
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
 *
 * Returns the updates that may take files when no create may: their rules
 * may depend on the stored record, which the caller checks next (one
 * statement each), still before the first file. An empty list means a
 * create may take them, and nothing more needs asking.
 */
export function checkUploadRights(
  model: Model,
  roles: ReadonlyMap<string, RootRole>,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  principal: Principal,
  variables: Readonly<Record<string, unknown>> | undefined,
): UploadTarget[] {
  if (operation.operation !== OperationTypeNode.MUTATION) {
    throw new ApiError('BAD_REQUEST', { detail: 'Only a mutation takes files: send a query without a multipart body' });
  }
  let refusal: Error | undefined;
  const updates: UploadTarget[] = [];
  for (const node of rootFields(operation.selectionSet, fragments, new Set())) {
    const role = roles.get(node.name.value);
    if (role?.kind !== 'create' && role?.kind !== 'update') continue;
    const { type, kind } = role;
    const fileFields = type.fields.filter((field) => field.kind === 'file').map((field) => field.name);
    if (fileFields.length === 0) continue;
    // Some file field of the type must be one the caller may write (the type's own rule is checked with it).
    const refusals = fileFields.map((field) => refusalOf(() => checkWriteRights(model, type.name, kind, principal, [field])));
    if (refusals.includes(undefined)) {
      if (kind === 'create') return [];
      const id = idArgument(node, variables);
      // Without a usable id the mutation fails its own validation; nothing more to ask here.
      if (id === undefined) return [];
      updates.push({ type: type.name, id });
      continue;
    }
    refusal ??= refusals[0];
  }
  if (updates.length > 0) return updates;
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

/** An update that may take a file if its stored record allows it. */
export interface UploadTarget {
  readonly type: string;
  readonly id: string;
}

/** The `id` argument of an update, a literal or a variable, if it is a string. */
function idArgument(node: FieldNode, variables: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const argument = node.arguments?.find((candidate) => candidate.name.value === 'id');
  if (argument === undefined) return undefined;
  const value: unknown = valueFromASTUntyped(argument.value, variables);
  return typeof value === 'string' ? value : undefined;
}

/** The root fields a selection asks for, through fragments (each spread followed once), whatever @skip/@include say. */
function rootFields(set: SelectionSetNode, fragments: ReadonlyMap<string, FragmentDefinitionNode>, seen: Set<string>): FieldNode[] {
  const fields: FieldNode[] = [];
  for (const selection of set.selections) {
    if (selection.kind === Kind.FIELD) fields.push(selection);
    else if (selection.kind === Kind.INLINE_FRAGMENT) fields.push(...rootFields(selection.selectionSet, fragments, seen));
    else if (!seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment = fragments.get(selection.name.value);
      if (fragment !== undefined) fields.push(...rootFields(fragment.selectionSet, fragments, seen));
    }
  }
  return fields;
}
