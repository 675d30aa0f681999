import type { ASTNode, ConstValueNode, NameNode, StringValueNode } from 'graphql';
import type { DirectiveUse } from './read-directives.js';
import type { CacheHint, DeprecationDates, FileField, ScalarField, SourceLocation } from './model.js';

/** What every field kind has (model.ts's FieldBase, which it does not export). */
export type FieldCommon = Pick<ScalarField, 'name' | 'description' | 'deprecated' | 'deprecatedDates' | 'cache' | 'location' | 'rules'>;

/** One rule of an `@allow`, as written; parsed and checked once every type's fields are known. */
export interface RuleDraft {
  readonly operation: 'read' | 'create' | 'update' | 'delete' | 'write';
  /** The string literal: its value is the rule, its position locates the rule's problems. */
  readonly node: StringValueNode;
}

/**
 * A relation field before pairing: its kind (to-many or many-to-many) and
 * inverse are only known once every type's fields are known.
 */
export interface RelationDraft {
  readonly common: FieldCommon;
  readonly owner: string;
  readonly ownerTable: string;
  readonly target: string;
  readonly list: boolean;
  readonly nullable: boolean;
  readonly readonly: boolean;
  readonly immutable: boolean;
  /** The to-one column (`author_id`); unused for lists. */
  readonly column: string;
  readonly nameNode: NameNode;
  /** `@relation(inverse: "...")`, with the literal for problems. */
  readonly inverseHint: { readonly name: string; readonly node: ConstValueNode } | undefined;
  /** Declaration order across all files: the first of a many-to-many pair owns the join table. */
  readonly order: number;
  /** `@default(fromAuth:)` on a to-one relation. */
  readonly defaultFromAuth: readonly string[] | undefined;
}

export type FieldDraft =
  | { readonly kind: 'stored'; readonly field: ScalarField | FileField; readonly nameNode: NameNode; readonly rules: readonly RuleDraft[] }
  | { readonly kind: 'relation'; readonly draft: RelationDraft; readonly rules: readonly RuleDraft[] };

export interface TypeDraft {
  readonly name: string;
  readonly nameNode: NameNode;
  readonly description: string | undefined;
  readonly plural: string;
  readonly path: string;
  readonly table: string;
  readonly cache: CacheHint | undefined;
  readonly deprecated: string | undefined;
  readonly deprecatedDates?: DeprecationDates | undefined;
  readonly location: SourceLocation;
  /** In declaration order, `id` first. */
  readonly fields: readonly FieldDraft[];
  /** `@index(fields: […])` on the type: field names, checked once relations are paired. */
  readonly indexes: readonly IndexDraft[];
  /** `@allow` on the type. */
  readonly rules: readonly RuleDraft[];
  /** `@account` on the type, checked once every type is built (read-account.ts). */
  readonly account: DirectiveUse | undefined;
  /** Every field name declared, built or not: a rule naming a field that failed to build is not reported again. */
  readonly declaredFields: ReadonlySet<string>;
}

export interface IndexDraft {
  readonly fields: readonly string[];
  /** Where problems with one of the names point: the `fields` argument. */
  readonly node: ASTNode;
}
