import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  typeFromAST,
  type FieldNode,
  type FragmentDefinitionNode,
  type FragmentSpreadNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type InlineFragmentNode,
  type SelectionSetNode,
} from 'graphql';

/** What field collection needs from the operation being run. */
export interface OperationScope {
  readonly schema: GraphQLSchema;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  /** Coerced variable values. */
  readonly variables: Readonly<Record<string, unknown>>;
}

/**
 * The spec's CollectFields (§6.3.2): the fields of `sets` for an object of
 * `type`, grouped by response key in the order they first appear, with
 * fragments and inline fragments expanded and `@skip` / `@include` applied.
 * Fields sharing a response key are merged (validation guarantees they ask
 * for the same thing); each fragment is expanded once per collection.
 */
export function collectFields(scope: OperationScope, type: GraphQLObjectType, sets: readonly SelectionSetNode[]): Map<string, FieldNode[]> {
  const fields = new Map<string, FieldNode[]>();
  const visited = new Set<string>();
  for (const set of sets) collectInto(scope, type, set, fields, visited);
  return fields;
}

function collectInto(scope: OperationScope, type: GraphQLObjectType, set: SelectionSetNode, fields: Map<string, FieldNode[]>, visited: Set<string>): void {
  for (const selection of set.selections) {
    if (!isIncluded(scope, selection)) continue;
    switch (selection.kind) {
      case Kind.FIELD: {
        const key = selection.alias?.value ?? selection.name.value;
        const nodes = fields.get(key);
        if (nodes === undefined) fields.set(key, [selection]);
        else nodes.push(selection);
        break;
      }
      case Kind.INLINE_FRAGMENT:
        if (!appliesTo(scope, selection, type)) continue;
        collectInto(scope, type, selection.selectionSet, fields, visited);
        break;
      case Kind.FRAGMENT_SPREAD: {
        const name = selection.name.value;
        if (visited.has(name)) continue;
        visited.add(name);
        const fragment = scope.fragments.get(name);
        if (fragment === undefined || !appliesTo(scope, fragment, type)) continue;
        collectInto(scope, type, fragment.selectionSet, fields, visited);
        break;
      }
    }
  }
}

function isIncluded(scope: OperationScope, node: FieldNode | FragmentSpreadNode | InlineFragmentNode): boolean {
  if (getDirectiveValues(GraphQLSkipDirective, node, scope.variables)?.['if'] === true) return false;
  return getDirectiveValues(GraphQLIncludeDirective, node, scope.variables)?.['if'] !== false;
}

/** The schema has no interfaces or unions: a type condition applies when it names this very type. */
function appliesTo(scope: OperationScope, fragment: InlineFragmentNode | FragmentDefinitionNode, type: GraphQLObjectType): boolean {
  if (fragment.typeCondition === undefined) return true;
  return typeFromAST(scope.schema, fragment.typeCondition) === type;
}
