import { getArgumentValues, GraphQLError, OperationTypeNode, type FieldNode, type GraphQLObjectType, type OperationDefinitionNode } from 'graphql';
import type { FieldRequest, ListArgs } from '../../plan/build-read.js';
import type { FilterInput } from '../../plan/build-filter.js';
import type { RootRole } from '../schema/roles.js';
import { buildSelection, filterOf, listArgsOf, type SelectionContext } from './build-selection.js';
import { collectFields } from './collect-fields.js';

/**
 * One root field of an operation, ready to plan: each becomes one plan (one
 * SQL statement) or, for mutations, one write and one read. Root fields that
 * are not data (`__typename`, introspection) are answered by graphql-js.
 */
export type RootStep =
  | { readonly kind: 'typename'; readonly key: string; readonly value: string }
  | { readonly kind: 'introspection'; readonly key: string; readonly nodes: readonly FieldNode[] }
  | {
      readonly kind: 'data';
      readonly key: string;
      readonly nodes: readonly FieldNode[];
      readonly role: RootRole;
      readonly nullable: boolean;
      readonly args: Readonly<Record<string, unknown>>;
      readonly select: readonly FieldRequest[];
      /** Root lists only. */
      readonly list: ListArgs | undefined;
      readonly filter: FilterInput | undefined;
    }
  /** The field's arguments or selection could not be made sense of. */
  | { readonly kind: 'failed'; readonly key: string; readonly nodes: readonly FieldNode[]; readonly nullable: boolean; readonly error: unknown };

export interface CompiledOperation {
  readonly steps: readonly RootStep[];
}

export function compileOperation(ctx: SelectionContext, operation: OperationDefinitionNode): CompiledOperation {
  const isMutation = operation.operation === OperationTypeNode.MUTATION;
  // A subscription's root fields are the query's (a live query), on the Subscription type.
  const rootType = (
    isMutation ? ctx.schema.getMutationType() : operation.operation === OperationTypeNode.SUBSCRIPTION ? ctx.schema.getSubscriptionType() : ctx.schema.getQueryType()
  ) as GraphQLObjectType;
  const roles = isMutation ? ctx.generated.mutation : ctx.generated.query;
  const steps: RootStep[] = [];
  for (const [key, nodes] of collectFields(ctx, rootType, [operation.selectionSet])) {
    const node = nodes[0] as FieldNode;
    const name = node.name.value;
    if (name === '__typename') {
      steps.push({ kind: 'typename', key, value: rootType.name });
      continue;
    }
    if (name === '__schema' || name === '__type') {
      steps.push({ kind: 'introspection', key, nodes });
      continue;
    }
    const role = roles.get(name);
    const definition = rootType.getFields()[name];
    if (role === undefined || definition === undefined) throw new Error(`Validated root field ${rootType.name}.${name} has no role`);
    const nullable = role.kind === 'one' || role.kind === 'delete';
    try {
      const args = getArgumentValues(definition, node, ctx.variables);
      const select = role.kind === 'count' ? [] : buildSelection(ctx, role.type.name, nodes);
      const list = role.kind === 'list' ? listArgsOf(args) : undefined;
      steps.push({ kind: 'data', key, nodes, role, nullable, args, select, list, filter: filterOf(args['filter']) });
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      steps.push({ kind: 'failed', key, nodes, nullable, error });
    }
  }
  return { steps };
}
