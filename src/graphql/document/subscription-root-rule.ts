import {
  GraphQLError,
  Kind,
  OperationTypeNode,
  SingleFieldSubscriptionsRule,
  type ASTVisitor,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValidationContext,
} from 'graphql';

/**
 * graphql-js's "a subscription selects one root field" rule, preceded by the
 * rule GraphQL's current draft adds to it: no `@skip` or `@include` on the
 * subscription's root selections. Without it, a root field skipped by a
 * variable makes graphql-js 16's rule throw (it cannot read the variable)
 * instead of reporting, and a root field skipped by a literal leaves a
 * subscription with nothing to send.
 */
export function subscriptionRootRule(context: ValidationContext): ASTVisitor {
  // graphql-js 16's rule visits only operations, with a plain enter function.
  const single = SingleFieldSubscriptionsRule(context) as { readonly OperationDefinition: (node: OperationDefinitionNode) => void };
  return {
    OperationDefinition(node) {
      if (node.operation !== OperationTypeNode.SUBSCRIPTION) return undefined;
      const conditional = conditionalRoot(node.selectionSet, context, new Set());
      if (conditional !== undefined) {
        context.reportError(new GraphQLError(`A subscription's root selection cannot be conditional: remove @${conditional} from it.`, { nodes: node }));
        return undefined;
      }
      single.OperationDefinition(node);
      return undefined;
    },
  };
}

/** The first `skip` or `include` directive on a root selection, through fragments. */
function conditionalRoot(set: SelectionSetNode, context: ValidationContext, seen: Set<string>): string | undefined {
  for (const selection of set.selections) {
    const directive = selection.directives?.find((each) => each.name.value === 'skip' || each.name.value === 'include');
    if (directive !== undefined) return directive.name.value;
    if (selection.kind === Kind.INLINE_FRAGMENT) {
      const inner = conditionalRoot(selection.selectionSet, context, seen);
      if (inner !== undefined) return inner;
    } else if (selection.kind === Kind.FRAGMENT_SPREAD && !seen.has(selection.name.value)) {
      seen.add(selection.name.value);
      const fragment: FragmentDefinitionNode | null | undefined = context.getFragment(selection.name.value);
      const inner = fragment === null || fragment === undefined ? undefined : conditionalRoot(fragment.selectionSet, context, seen);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}
