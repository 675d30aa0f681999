import {
  Kind,
  OperationTypeNode,
  type DirectiveNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type TypeNode,
  type ValueNode,
} from 'graphql';
import type { RootRole } from '../schema/roles.js';

/**
 * A variable whose value can be bound into a remembered plan instead of
 * compiling the operation again: it is the record id of one `one` root
 * field and nothing else, so it decides exactly one plan param and nothing
 * about the plan's shape, its cost or any other field.
 */
export interface SlotVariable {
  readonly name: string;
  /** The root field whose `id` it is: the step holding this node owns the plan to bind into. */
  readonly field: FieldNode;
}

/**
 * The slot variables of a query: declared `ID` or `ID!`, referenced exactly
 * once in the whole operation (fragments included, each spread counted), and
 * that one reference is the whole `id` argument of a root field written
 * directly in the operation whose role is `one`. Anything less clear-cut is
 * left out: a variable that is not a slot becomes part of the template key,
 * which is always correct, only less shared.
 */
export function findSlotVariables(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  roots: ReadonlyMap<string, RootRole>,
): readonly SlotVariable[] {
  if (operation.operation !== OperationTypeNode.QUERY) return [];
  const candidates = new Set((operation.variableDefinitions ?? []).filter((definition) => isIdType(definition.type)).map((definition) => definition.variable.name.value));
  if (candidates.size === 0) return [];
  const uses = new UseCounter(fragments).ofOperation(operation);
  const slots: SlotVariable[] = [];
  for (const selection of operation.selectionSet.selections) {
    if (selection.kind !== Kind.FIELD || roots.get(selection.name.value)?.kind !== 'one') continue;
    const value = selection.arguments?.find((argument) => argument.name.value === 'id')?.value;
    if (value?.kind !== Kind.VARIABLE) continue;
    const name = value.name.value;
    if (candidates.has(name) && uses.get(name) === 1) slots.push({ name, field: selection });
  }
  return slots;
}

/** `ID` or `ID!`; a list of ids is a different coercion and never a slot. */
function isIdType(type: TypeNode): boolean {
  const named = type.kind === Kind.NON_NULL_TYPE ? type.type : type;
  return named.kind === Kind.NAMED_TYPE && named.name.value === 'ID';
}

/** Uses are only compared with 1, so counts stop at 2 (a fragment spread many times cannot blow them up). */
type Uses = Map<string, number>;
const MANY = 2;

/**
 * Counts variable references, each fragment worked out once and added at
 * every spread of it. Validation has ruled out fragment cycles; the guard
 * only keeps a broken document from recursing forever.
 */
class UseCounter {
  private readonly byFragment = new Map<string, Uses>();
  private readonly inProgress = new Set<string>();

  constructor(private readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>) {}

  ofOperation(operation: OperationDefinitionNode): Uses {
    const uses: Uses = new Map();
    this.directives(operation.directives, uses);
    this.selectionSet(operation.selectionSet, uses);
    return uses;
  }

  private ofFragment(name: string): Uses {
    const known = this.byFragment.get(name);
    if (known !== undefined) return known;
    const uses: Uses = new Map();
    const fragment = this.fragments.get(name);
    if (fragment === undefined || this.inProgress.has(name)) return uses;
    this.inProgress.add(name);
    this.directives(fragment.directives, uses);
    this.selectionSet(fragment.selectionSet, uses);
    this.inProgress.delete(name);
    this.byFragment.set(name, uses);
    return uses;
  }

  private selectionSet(set: SelectionSetNode | undefined, uses: Uses): void {
    for (const selection of set?.selections ?? []) {
      this.directives(selection.directives, uses);
      switch (selection.kind) {
        case Kind.FIELD:
          for (const argument of selection.arguments ?? []) value(argument.value, uses);
          this.selectionSet(selection.selectionSet, uses);
          break;
        case Kind.INLINE_FRAGMENT:
          this.selectionSet(selection.selectionSet, uses);
          break;
        case Kind.FRAGMENT_SPREAD:
          for (const [name, count] of this.ofFragment(selection.name.value)) add(uses, name, count);
          break;
      }
    }
  }

  private directives(directives: readonly DirectiveNode[] | undefined, uses: Uses): void {
    for (const directive of directives ?? []) {
      for (const argument of directive.arguments ?? []) value(argument.value, uses);
    }
  }
}

function value(node: ValueNode, uses: Uses): void {
  switch (node.kind) {
    case Kind.VARIABLE:
      add(uses, node.name.value, 1);
      break;
    case Kind.LIST:
      for (const item of node.values) value(item, uses);
      break;
    case Kind.OBJECT:
      for (const field of node.fields) value(field.value, uses);
      break;
    default:
      break;
  }
}

function add(uses: Uses, name: string, count: number): void {
  uses.set(name, Math.min(MANY, (uses.get(name) ?? 0) + count));
}
