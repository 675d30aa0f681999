import { Kind, type NamedTypeNode, type TypeNode } from 'graphql';

/** A field's type reference, unwrapped: `[Post!]!` → Post, list, not nullable, items not nullable. */
export interface FieldShape {
  readonly named: NamedTypeNode;
  readonly nullable: boolean;
  readonly list: boolean;
  readonly itemNullable: boolean;
  /** A list of lists, which no column can hold. */
  readonly nested: boolean;
}

export function shapeOf(type: TypeNode): FieldShape {
  let node = type;
  let nullable = true;
  if (node.kind === Kind.NON_NULL_TYPE) {
    nullable = false;
    node = node.type;
  }
  if (node.kind === Kind.NAMED_TYPE) {
    return { named: node, nullable, list: false, itemNullable: false, nested: false };
  }
  let item: TypeNode = node.type;
  let itemNullable = true;
  if (item.kind === Kind.NON_NULL_TYPE) {
    itemNullable = false;
    item = item.type;
  }
  let nested = false;
  while (item.kind !== Kind.NAMED_TYPE) {
    nested = true;
    item = item.type;
  }
  return { named: item, nullable, list: true, itemNullable, nested };
}
