import { DirectiveLocation, type FieldDefinitionNode, Kind, print, type ConstValueNode } from 'graphql';
import { toSnakeCase } from '../util/naming.js';
import { suggest } from '../util/suggest.js';
import type { Declarations } from './collect-definitions.js';
import { coerceDefault } from './coerce-default.js';
import { BUILT_IN_SCALARS } from './directives.js';
import type { FieldCommon, FieldDraft, RuleDraft } from './drafts.js';
import { type FieldShape, shapeOf } from './field-shape.js';
import type { CacheHint, CacheScope, FileField, ScalarField, ScalarName } from './model.js';
import { readAllow } from './read-allow.js';
import { deprecationMembers, readDeprecation } from './read-deprecation.js';
import { type DirectiveUse, readDirectives } from './read-directives.js';
import type { Roles } from './read-roles.js';
import { locate, type ProblemList } from './schema-problem.js';

/** What the loader knows while building one type's fields. */
export interface FieldContext {
  readonly declarations: Declarations;
  readonly problems: ProblemList;
  readonly owner: string;
  readonly ownerTable: string;
  /** Next declaration number, shared by every type (join-table ownership). */
  readonly nextOrder: () => number;
  /** The role enum, for `@default(fromAuth: "role")`. */
  readonly roles: Roles;
}

const MAX_IMAGE_SIZE = 4096;

type Category = 'scalar' | 'enum' | 'object';

/**
 * One field definition → a stored field (scalar, enum, scalar list, image)
 * or a relation draft. Returns undefined when the field cannot be built;
 * the reason has been reported. `id` is handled by `buildIdField`.
 */
export function buildField(node: FieldDefinitionNode, context: FieldContext): FieldDraft | undefined {
  const { problems } = context;
  const qualified = `${context.owner}.${node.name.value}`;
  const directives = readDirectives(node.directives, DirectiveLocation.FIELD_DEFINITION, problems);
  const uses = new Map(directives);
  const rules = readAllow(directives, 'field', `"${qualified}"`, problems);
  const argumentUses = new Map((node.arguments ?? []).map((argument) => [argument.name.value, readDirectives(argument.directives, DirectiveLocation.ARGUMENT_DEFINITION, problems)]));
  const shape = shapeOf(node.type);
  const category = resolveCategory(shape, context);
  if (category === undefined) return undefined;
  if (shape.nested) {
    problems.at(node.type, 'SCHEMA_UNSUPPORTED_TYPE', `Field "${qualified}" is a list of lists, which Diglot cannot store.`);
    return undefined;
  }
  const common = commonOf(node, uses, problems);
  const image = uses.get('image');

  // An @image with a bad argument is reported already; its field's `(size: Int)` is not a second mistake.
  const mentionsImage = node.directives?.some((directive) => directive.name.value === 'image') ?? false;
  if (!mentionsImage && (node.arguments?.length ?? 0) > 0) {
    problems.at(
      node.arguments?.[0] ?? node,
      'SCHEMA_FIELD_ARGUMENTS',
      `Field "${qualified}" declares arguments; only @image fields take one, "(size: Int)".`,
    );
  }

  if (category === 'object') {
    const allowed = shape.list ? ['relation'] : ['readonly', 'relation', 'default', 'immutable'];
    dropMisplaced(uses, qualified, shape.list ? 'relation list' : 'relation', allowed, problems);
    const defaultUse = uses.get('default');
    let defaultFromAuth: readonly string[] | undefined;
    const given = defaultUse === undefined ? undefined : readDefault(defaultUse, problems);
    if (defaultUse !== undefined) {
      if (given?.kind === 'value') {
        problems.at(
          defaultUse.node,
          'SCHEMA_MISPLACED_DIRECTIVE',
          `@default(value:) does not apply to the relation "${qualified}"; a relation may only default to the principal, as in @default(fromAuth: "id").`,
        );
      } else if (given?.kind === 'fromAuth') {
        defaultFromAuth = fromAuthPath(given.node, { kind: 'toOne' }, qualified, print(node.type), context);
      }
    }
    if (shape.list && (shape.nullable || shape.itemNullable)) {
      problems.at(
        node.type,
        'SCHEMA_BAD_RELATION_LIST',
        `Relation list "${qualified}" must be written [${shape.named.name.value}!]! (a list, possibly empty, never null).`,
      );
    }
    const readonly = uses.has('readonly');
    // A to-one set from the principal is created with a value: @readonly then means "set once, by the server".
    if (readonly && !shape.list && !shape.nullable && given?.kind !== 'fromAuth') {
      const readonlyUse = uses.get('readonly');
      problems.at(
        readonlyUse?.node ?? node,
        'SCHEMA_CONFLICTING_DIRECTIVES',
        `"${qualified}" is @readonly and non-null, so no record could ever be created; make it nullable.`,
      );
    }
    const inverse = uses.get('relation');
    const inverseNode = inverse?.argumentNodes.get('inverse');
    return {
      kind: 'relation',
      draft: {
        common,
        owner: context.owner,
        ownerTable: context.ownerTable,
        target: shape.named.name.value,
        list: shape.list,
        nullable: shape.list ? false : shape.nullable,
        readonly,
        immutable: uses.has('immutable'),
        column: `${toSnakeCase(node.name.value)}_id`,
        nameNode: node.name,
        inverseHint: inverse === undefined || inverseNode === undefined ? undefined : { name: String(inverse.values.inverse), node: inverseNode },
        order: context.nextOrder(),
        defaultFromAuth,
      },
      rules,
    };
  }

  const scalar: ScalarName = category === 'enum' ? 'String' : (shape.named.name.value as ScalarName);
  if (image !== undefined) {
    if (scalar === 'String' && category === 'scalar' && !shape.list) {
      const sizeUses = argumentUses.get('size');
      const sizeDeprecation = sizeUses === undefined ? undefined : readDeprecation(sizeUses, problems);
      return buildFileField(node, image, uses, { ...common, sizeDeprecation }, shape, context, rules);
    }
    problems.at(image.node, 'SCHEMA_MISPLACED_DIRECTIVE', `@image applies only to String fields; "${qualified}" is ${print(node.type)}.`);
    uses.delete('image');
  }
  return buildScalarField(node, uses, common, shape, scalar, category === 'enum', context, rules);
}

function buildScalarField(
  node: FieldDefinitionNode,
  uses: Map<string, DirectiveUse>,
  common: FieldCommon,
  shape: FieldShape,
  scalar: ScalarName,
  isEnum: boolean,
  context: FieldContext,
  rules: readonly RuleDraft[],
): FieldDraft {
  const { problems } = context;
  const qualified = `${context.owner}.${node.name.value}`;
  const single = !shape.list && scalar !== 'JSON';
  const allowed = ['readonly', 'default', 'createdAt', 'updatedAt', 'immutable', ...(single ? ['unique', 'index'] : [])];
  dropMisplaced(uses, qualified, shape.list ? 'list' : scalar === 'JSON' ? 'JSON' : scalar, allowed, problems);

  for (const auto of ['createdAt', 'updatedAt']) {
    const use = uses.get(auto);
    if (use !== undefined && (scalar !== 'DateTime' || shape.list)) {
      problems.at(use.node, 'SCHEMA_MISPLACED_DIRECTIVE', `@${auto} applies only to DateTime fields; "${qualified}" is ${print(node.type)}.`);
      uses.delete(auto);
    }
  }
  const createdAt = uses.get('createdAt');
  const updatedAt = uses.get('updatedAt');
  if (createdAt !== undefined && updatedAt !== undefined) {
    const later = (createdAt.node.loc?.start ?? 0) > (updatedAt.node.loc?.start ?? 0) ? createdAt : updatedAt;
    problems.at(later.node, 'SCHEMA_CONFLICTING_DIRECTIVES', `"${qualified}" cannot be both @createdAt and @updatedAt.`);
  }
  const auto = createdAt !== undefined ? 'createdAt' : updatedAt !== undefined ? 'updatedAt' : undefined;

  let defaultValue: { readonly value: unknown } | undefined;
  let defaultFromAuth: readonly string[] | undefined;
  const defaultUse = uses.get('default');
  const given = defaultUse === undefined ? undefined : readDefault(defaultUse, problems);
  const defaultNode = given?.kind === 'value' ? given.node : undefined;
  if (defaultUse !== undefined && auto !== undefined) {
    problems.at(defaultUse.node, 'SCHEMA_CONFLICTING_DIRECTIVES', `"${qualified}" is set by the server (@${auto}); it cannot have a @default.`);
  } else if (given?.kind === 'fromAuth') {
    const enumName = isEnum ? shape.named.name.value : undefined;
    defaultFromAuth = fromAuthPath(given.node, { kind: 'scalar', scalar, enum: enumName, list: shape.list }, qualified, print(node.type), context);
  } else if (defaultNode !== undefined) {
    const enumDeclaration = isEnum ? context.declarations.enums.get(shape.named.name.value) : undefined;
    const coerced = coerceDefault(defaultNode, {
      scalar,
      enumValues: enumDeclaration?.values.map((value) => value.name.value),
      enumName: enumDeclaration?.name,
      list: shape.list,
      itemNullable: shape.itemNullable,
    });
    if (coerced.ok) {
      defaultValue = { value: coerced.value };
    } else {
      const quoted = coerced.suggestion !== undefined && coerced.node.kind === Kind.STRING && coerced.node.value === coerced.suggestion;
      problems.at(
        coerced.node,
        'SCHEMA_BAD_DEFAULT',
        `@default value ${print(coerced.node)} does not fit field "${qualified}" of type ${print(node.type)}: expected ${coerced.expected}${quoted ? ' (enum values are written without quotes)' : ''}.`,
        coerced.suggestion,
      );
    }
  }

  const readonly = uses.has('readonly') || auto !== undefined;
  const readonlyUse = uses.get('readonly');
  if (readonlyUse !== undefined && auto === undefined && !shape.nullable && defaultUse === undefined) {
    problems.at(
      readonlyUse.node,
      'SCHEMA_CONFLICTING_DIRECTIVES',
      `"${qualified}" is @readonly and non-null without a @default, so no record could ever be created; make it nullable or add @default.`,
    );
  }

  const index = uses.get('index');
  if (index?.values['fields'] !== undefined) {
    problems.at(
      index.argumentNodes.get('fields') ?? index.node,
      'SCHEMA_BAD_DIRECTIVE_ARGUMENT',
      `On a field, @index takes no fields: "${qualified}" itself is indexed. An index over several fields goes on the type.`,
    );
  }
  const field: ScalarField = {
    kind: 'scalar',
    ...common,
    scalar,
    enum: isEnum ? shape.named.name.value : undefined,
    list: shape.list,
    nullable: shape.nullable,
    column: toSnakeCase(node.name.value),
    unique: uses.has('unique'),
    indexed: uses.has('index'),
    readonly,
    auto,
    default: defaultValue,
    defaultFromAuth,
    immutable: uses.has('immutable'),
    optionalOnCreate: shape.nullable || (defaultUse !== undefined && given?.kind !== 'fromAuth') || auto !== undefined,
  };
  return { kind: 'stored', field, nameNode: node.name, rules };
}

function buildFileField(
  node: FieldDefinitionNode,
  image: DirectiveUse,
  uses: Map<string, DirectiveUse>,
  common: FieldCommon & Pick<FileField, 'sizeDeprecation'>,
  shape: FieldShape,
  context: FieldContext,
  rules: readonly RuleDraft[],
): FieldDraft {
  const { problems } = context;
  const qualified = `${context.owner}.${node.name.value}`;
  dropMisplaced(uses, qualified, 'image', ['image'], problems);

  const args = node.arguments ?? [];
  const sizeArg = args[0];
  const sizeArgOk =
    args.length === 1 &&
    sizeArg !== undefined &&
    sizeArg.name.value === 'size' &&
    sizeArg.type.kind === Kind.NAMED_TYPE &&
    sizeArg.type.name.value === 'Int' &&
    sizeArg.defaultValue === undefined;
  if (!sizeArgOk) {
    problems.at(
      args[0] ?? node.name,
      'SCHEMA_FIELD_ARGUMENTS',
      `@image field "${qualified}" must take exactly one argument, "(size: Int)": write ${node.name.value}(size: Int): ${print(node.type)}.`,
    );
  }

  const sizesNode = image.argumentNodes.get('sizes') ?? image.node;
  const requested = Array.isArray(image.values.sizes) ? (image.values.sizes as number[]) : [];
  const bad = requested.filter((size) => size < 1 || size > MAX_IMAGE_SIZE);
  if (requested.length === 0) {
    problems.at(sizesNode, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@image on "${qualified}" needs at least one size.`);
  } else if (bad.length > 0) {
    problems.at(
      sizesNode,
      'SCHEMA_BAD_DIRECTIVE_ARGUMENT',
      `@image sizes must be widths from 1 to ${MAX_IMAGE_SIZE} pixels; ${bad.join(', ')} ${bad.length === 1 ? 'is' : 'are'} not.`,
    );
  }
  const sizes = [...new Set(requested)].sort((a, b) => a - b);

  const field: FileField = {
    kind: 'file',
    ...common,
    nullable: shape.nullable,
    column: toSnakeCase(node.name.value),
    image: { sizes },
  };
  return { kind: 'stored', field, nameNode: node.name, rules };
}

function resolveCategory(shape: FieldShape, context: FieldContext): Category | undefined {
  const name = shape.named.name.value;
  const { declarations, problems } = context;
  if ((BUILT_IN_SCALARS as readonly string[]).includes(name)) return 'scalar';
  if (declarations.enums.has(name)) return 'enum';
  if (declarations.objects.has(name)) return 'object';
  // Declared with an unsupported kind: reported at the declaration already.
  if (declarations.refused.has(name)) return undefined;
  if (name === 'CacheScope') {
    problems.at(shape.named, 'SCHEMA_UNSUPPORTED_TYPE', 'CacheScope belongs to @cache and cannot be a field type.');
    return undefined;
  }
  const known = [...BUILT_IN_SCALARS, ...declarations.enums.keys(), ...declarations.objects.keys()];
  problems.at(shape.named, 'SCHEMA_UNKNOWN_TYPE', `Unknown type "${name}".`, suggest(name, known));
  return undefined;
}

/** The parts every field kind shares, read from its description and @cache/@deprecated. */
export function commonOf(node: FieldDefinitionNode, uses: ReadonlyMap<string, DirectiveUse>, problems: ProblemList): FieldCommon {
  return {
    name: node.name.value,
    description: node.description?.value,
    ...deprecationMembers(uses, problems),
    cache: cacheHintOf(uses, problems),
    location: locate(node.name),
    // Filled in by loadSchema once every type is known and the field's @allow rules are checked.
    rules: {},
  };
}

export function cacheHintOf(uses: ReadonlyMap<string, DirectiveUse>, problems: ProblemList): CacheHint | undefined {
  const use = uses.get('cache');
  if (use === undefined) return undefined;
  const maxAge = use.values.maxAge as number;
  if (maxAge < 0) {
    problems.at(use.argumentNodes.get('maxAge') ?? use.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@cache maxAge is in seconds and cannot be negative (${maxAge}).`);
    return undefined;
  }
  return { maxAge, scope: use.values.scope as CacheScope };
}

/** Directives every field may carry, whatever its kind. */
const ANY_FIELD = new Set(['cache', 'deprecated', 'allow']);

/**
 * Reports and removes the directives that do not apply to this kind of
 * field (`@unique` on a relation, `@default` on an image…).
 */
function dropMisplaced(
  uses: Map<string, DirectiveUse>,
  qualified: string,
  kind: string,
  allowed: readonly string[],
  problems: ProblemList,
): void {
  for (const [name, use] of uses) {
    if (ANY_FIELD.has(name) || allowed.includes(name)) continue;
    problems.at(use.node, 'SCHEMA_MISPLACED_DIRECTIVE', `@${name} does not apply to ${describeKind(kind)} "${qualified}".`);
    uses.delete(name);
  }
}

function describeKind(kind: string): string {
  switch (kind) {
    case 'relation':
      return 'the relation';
    case 'relation list':
      return 'the relation list';
    case 'list':
      return 'the list field';
    case 'image':
      return 'the @image field';
    default:
      return `the ${kind} field`;
  }
}

type GivenDefault = { readonly kind: 'value'; readonly node: ConstValueNode } | { readonly kind: 'fromAuth'; readonly node: ConstValueNode };

/** Which of `@default`'s two arguments is given: exactly one must be, and `value` not as null. */
function readDefault(use: DirectiveUse, problems: ProblemList): GivenDefault | undefined {
  const value = use.argumentNodes.get('value');
  const fromAuth = use.argumentNodes.get('fromAuth');
  if (value !== undefined && fromAuth !== undefined) {
    problems.at(use.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', '@default takes either value: (a constant) or fromAuth: (a member of the principal), not both.');
    return undefined;
  }
  if (value !== undefined) {
    if (value.kind !== Kind.NULL) return { kind: 'value', node: value };
    problems.at(value, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', '@default(value:) needs a value; null is what a nullable field holds without a @default.');
    return undefined;
  }
  if (fromAuth !== undefined && fromAuth.kind === Kind.STRING) return { kind: 'fromAuth', node: fromAuth };
  problems.at(use.node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', '@default needs value: (a constant) or fromAuth: (a member of the principal, such as "id").');
  return undefined;
}

const CLAIM_PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

type FromAuthTarget =
  | { readonly kind: 'toOne' }
  | { readonly kind: 'scalar'; readonly scalar: ScalarName; readonly enum: string | undefined; readonly list: boolean };

/**
 * `@default(fromAuth: "id")`: the member of the principal a new record
 * takes (`auth.id`, `auth.role`, or a claim by its dotted path), checked
 * against the field as a rule's `author == auth.id` would be.
 */
function fromAuthPath(node: ConstValueNode, target: FromAuthTarget, qualified: string, typeText: string, context: FieldContext): readonly string[] | undefined {
  const { problems, roles } = context;
  const text = node.kind === Kind.STRING ? node.value : '';
  if (!CLAIM_PATH.test(text)) {
    problems.at(node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@default(fromAuth:) names a member of the principal by its dotted path, such as "id", "role" or "org.id"; "${text}" is not one.`);
    return undefined;
  }
  const path = text.split('.');
  const [head, ...rest] = path;
  if (head === 'auth' && rest.length > 0) {
    problems.at(node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `@default(fromAuth:) names the member without "auth.".`, rest.join('.'));
    return undefined;
  }
  if ((head === 'id' || head === 'role') && rest.length > 0) {
    problems.at(node, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `auth.${head} is a single value; it has no member "${rest.join('.')}".`);
    return undefined;
  }
  if (head === 'id') {
    const fits = target.kind === 'toOne' || (!target.list && target.enum === undefined && (target.scalar === 'ID' || target.scalar === 'String'));
    if (fits) return path;
    problems.at(node, 'SCHEMA_BAD_DEFAULT', `auth.id is a record id: it fits a to-one relation or an ID or String field, not "${qualified}" of type ${typeText}.`);
    return undefined;
  }
  if (head === 'role') {
    if (roles.set === undefined) {
      if (!roles.marked) problems.at(node, 'RULE_NO_ROLES', 'auth.role needs a role enum: mark one with @roles, as in enum Role @roles(admin: "ADMIN").');
      return undefined;
    }
    const fits = target.kind === 'scalar' && !target.list && (target.enum === roles.set.enum || (target.enum === undefined && target.scalar === 'String'));
    if (fits) return path;
    problems.at(node, 'SCHEMA_BAD_DEFAULT', `auth.role is a value of enum ${roles.set.enum}: it fits a ${roles.set.enum} or String field, not "${qualified}" of type ${typeText}.`);
    return undefined;
  }
  return path;
}
