import type { PathError } from '../response/withheld-errors.js';
import { execute, Kind, type FieldNode, type FragmentDefinitionNode, type GraphQLSchema, type OperationDefinitionNode } from 'graphql';

/** A root field's JSON, with the errors of fields inside it (a withheld field's FIELD_FORBIDDEN), or its own error. */
export type FieldOutcome =
  | { readonly json: string; readonly errors?: readonly PathError[] }
  | { readonly error: unknown; readonly path?: readonly (string | number)[] };

/**
 * Introspection root fields (`__schema`, `__type`) run through graphql-js
 * itself on the generated schema: the operation is cut down to just those
 * fields and executed, and each field's value is spliced into the response
 * like any other root field.
 */
export async function introspect(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  rawVariables: Readonly<Record<string, unknown>>,
  fields: readonly { readonly key: string; readonly nodes: readonly FieldNode[] }[],
): Promise<Map<string, FieldOutcome>> {
  const outcomes = new Map<string, FieldOutcome>();
  if (fields.length === 0) return outcomes;
  const result = await execute({
    schema,
    document: {
      kind: Kind.DOCUMENT,
      definitions: [{ ...operation, selectionSet: { kind: Kind.SELECTION_SET, selections: fields.flatMap((field) => field.nodes) } }, ...fragments.values()],
    },
    variableValues: rawVariables,
  });
  const data: Readonly<Record<string, unknown>> = result.data ?? {};
  for (const field of fields) outcomes.set(field.key, { json: JSON.stringify(data[field.key] ?? null) });
  for (const error of result.errors ?? []) {
    const key = error.path?.[0];
    if (typeof key === 'string') outcomes.set(key, { error, path: error.path });
  }
  return outcomes;
}
