import { getArgumentValues, GraphQLError, isNonNullType, OperationTypeNode, type FieldNode, type GraphQLObjectType, type OperationDefinitionNode } from 'graphql';
import type { FieldRequest, ListArgs } from '../../plan/build-read.js';
import type { FilterInput } from '../../plan/build-filter.js';
import type { AdminRootRole, ModelRootRole } from '../schema/roles.js';
import { buildSelection, filterOf, listArgsOf, type SelectionContext } from './build-selection.js';
import { collectFields } from './collect-fields.js';
import { SESSION_TYPE } from '../schema/account-fields.js';

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
      readonly role: ModelRootRole;
      readonly nullable: boolean;
      readonly args: Readonly<Record<string, unknown>>;
      readonly select: readonly FieldRequest[];
      /** Root lists only. */
      readonly list: ListArgs | undefined;
      readonly filter: FilterInput | undefined;
      /** An `AuthSession` answer's fields by response key (`select` is then its `account`'s selection). */
      readonly session?: readonly SessionKey[] | undefined;
    }
  /** An admin API field: answered by the admin service, its selection by graphql-js (execute/run-admin.ts). */
  | {
      readonly kind: 'admin';
      readonly key: string;
      readonly nodes: readonly FieldNode[];
      readonly role: AdminRootRole;
      readonly nullable: boolean;
      readonly args: Readonly<Record<string, unknown>>;
    }
  /** The field's arguments or selection could not be made sense of. */
  | { readonly kind: 'failed'; readonly key: string; readonly nodes: readonly FieldNode[]; readonly nullable: boolean; readonly error: unknown };

/** One field of an `AuthSession` selection: a member of the session, `account`, or `__typename`. */
export interface SessionKey {
  readonly key: string;
  readonly field: string;
}

export interface CompiledOperation {
  readonly steps: readonly RootStep[];
}

export function compileOperation(ctx: SelectionContext, operation: OperationDefinitionNode): CompiledOperation {
  const isMutation = operation.operation === OperationTypeNode.MUTATION;
  // A subscription's root fields are the query's (a live query), on the Subscription type.
  const rootType = (
    isMutation ? ctx.schema.getMutationType() : operation.operation === OperationTypeNode.SUBSCRIPTION ? ctx.schema.getSubscriptionType() : ctx.schema.getQueryType()
  ) as GraphQLObjectType;
  const roles = isMutation ? ctx.generated.mutation : operation.operation === OperationTypeNode.SUBSCRIPTION ? ctx.generated.subscription : ctx.generated.query;
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
    try {
      const args = getArgumentValues(definition, node, ctx.variables);
      if (role.kind === 'admin') {
        steps.push({ kind: 'admin', key, nodes, role, nullable: !isNonNullType(definition.type), args });
        continue;
      }
      const nullable = role.kind === 'one' || role.kind === 'delete' || role.kind === 'me';
      if (role.kind === 'account') {
        steps.push({ kind: 'data', key, nodes, role, nullable, args, ...sessionSelection(ctx, role.session, nodes, role.type.name), list: undefined, filter: undefined });
        continue;
      }
      const select = role.kind === 'count' ? [] : buildSelection(ctx, role.type.name, nodes);
      const list = role.kind === 'list' ? listArgsOf(args) : undefined;
      steps.push({ kind: 'data', key, nodes, role, nullable, args, select, list, filter: filterOf(args['filter']) });
    } catch (error) {
      if (!(error instanceof GraphQLError)) throw error;
      steps.push({ kind: 'failed', key, nodes, nullable: !isNonNullType(definition.type), error });
    }
  }
  return { steps };
}

/** An `AuthSession`'s keys, and the selection of its `account` (empty when not asked for, or for a `Boolean` answer). */
function sessionSelection(
  ctx: SelectionContext,
  session: boolean,
  nodes: readonly FieldNode[],
  accountType: string,
): { readonly select: readonly FieldRequest[]; readonly session: readonly SessionKey[] | undefined } {
  if (!session) return { select: [], session: undefined };
  const type = ctx.schema.getType(SESSION_TYPE) as GraphQLObjectType;
  const keys: SessionKey[] = [];
  let select: readonly FieldRequest[] = [];
  const sets = nodes.flatMap((node) => (node.selectionSet === undefined ? [] : [node.selectionSet]));
  for (const [key, fieldNodes] of collectFields(ctx, type, sets)) {
    const field = (fieldNodes[0] as FieldNode).name.value;
    keys.push({ key, field });
    if (field === 'account') select = buildSelection(ctx, accountType, fieldNodes);
  }
  return { select, session: keys };
}
