import {
  type ConstDirectiveNode,
  type DefinitionNode,
  DirectiveLocation,
  type EnumTypeDefinitionNode,
  type EnumValueDefinitionNode,
  type FieldDefinitionNode,
  Kind,
  type NameNode,
  type ObjectTypeDefinitionNode,
} from 'graphql';
import { suggest } from '../util/suggest.js';
import { DECLARABLE_SCALARS, RESERVED_TYPE_NAMES, ROOT_TYPE_NAMES } from './directives.js';
import type { Deprecation } from './model.js';
import { type DirectiveUse, readDirectives } from './read-directives.js';
import { readDeprecation } from './read-deprecation.js';
import { ADMIN_PREFIX, isAdminName, serverTypeNameProblem } from './reserved-names.js';
import { locate, type ProblemList } from './schema-problem.js';

/** An object type with its `extend type` blocks merged in. */
export interface ObjectDeclaration {
  readonly name: string;
  readonly node: ObjectTypeDefinitionNode;
  /** Fields of the definition then of each extension, duplicates removed (and reported). */
  readonly fields: readonly FieldDefinitionNode[];
  readonly directives: readonly ConstDirectiveNode[];
}

export interface EnumDeclaration {
  readonly name: string;
  readonly node: EnumTypeDefinitionNode;
  readonly values: readonly EnumValueDefinitionNode[];
  /** Valid `@roles` uses on the definition and its extensions (more than one is reported by `readRoles`). */
  readonly roles: readonly DirectiveUse[];
  /** The values marked `@deprecated`. */
  readonly deprecatedValues: ReadonlyMap<string, Deprecation>;
}

export interface Declarations {
  /** In declaration order (file order, then position). */
  readonly objects: ReadonlyMap<string, ObjectDeclaration>;
  readonly enums: ReadonlyMap<string, EnumDeclaration>;
  /**
   * Names declared with a definition Diglot does not support (interface,
   * union, input, custom scalar) or may not be declared (Query). The
   * declaration is reported; uses of the name are not reported again.
   */
  readonly refused: ReadonlySet<string>;
}

interface MutableObject {
  name: string;
  node: ObjectTypeDefinitionNode;
  fields: FieldDefinitionNode[];
  fieldNames: Set<string>;
  directives: ConstDirectiveNode[];
}

interface MutableEnum {
  name: string;
  node: EnumTypeDefinitionNode;
  values: EnumValueDefinitionNode[];
  valueNames: Set<string>;
  roles: DirectiveUse[];
  deprecatedValues: Map<string, Deprecation>;
}

/**
 * Sorts the definitions into object types and enums, merging `extend type`
 * and `extend enum` (from any file, before or after the definition) and
 * reporting duplicates, reserved names and unsupported definitions. The
 * checks of graphql-js's SDL validation that apply here (unique type,
 * field, value and argument names; extensions of known types) are made on
 * the way, with Diglot's codes.
 */
export function collectDefinitions(definitions: readonly DefinitionNode[], problems: ProblemList): Declarations {
  const objects = new Map<string, MutableObject>();
  const enums = new Map<string, MutableEnum>();
  const refused = new Set<string>();
  const firstDeclaration = new Map<string, NameNode>();

  const claimName = (name: NameNode): boolean => {
    const first = firstDeclaration.get(name.value);
    if (first !== undefined) {
      const where = locate(first);
      problems.at(
        name,
        'SCHEMA_DUPLICATE_NAME',
        `There can be only one type named "${name.value}" (first declared at ${where.file}:${where.line}:${where.column}).`,
      );
      return false;
    }
    firstDeclaration.set(name.value, name);
    return true;
  };

  const declared = new Set(definitions.flatMap((definition) => ('name' in definition && definition.name !== undefined ? [definition.name.value] : [])));
  const refuseReserved = (name: NameNode): boolean => {
    if (ROOT_TYPE_NAMES.has(name.value)) {
      problems.at(
        name,
        'SCHEMA_RESERVED_NAME',
        `Do not declare "${name.value}": Diglot generates the Query, Mutation and Subscription types from the resources.`,
      );
      return true;
    }
    if (RESERVED_TYPE_NAMES.has(name.value) || name.value.startsWith('__')) {
      problems.at(name, 'SCHEMA_RESERVED_NAME', `"${name.value}" is a built-in type name; choose another name.`);
      return true;
    }
    const serverName = serverTypeNameProblem(name.value);
    if (serverName !== undefined) {
      problems.at(name, 'SCHEMA_RESERVED_NAME', serverName, withoutAdminPrefix(name.value, declared));
      return true;
    }
    return false;
  };

  for (const definition of definitions) {
    switch (definition.kind) {
      case Kind.OBJECT_TYPE_DEFINITION: {
        if (refuseReserved(definition.name)) {
          refused.add(definition.name.value);
          break;
        }
        if (!claimName(definition.name)) break;
        const object: MutableObject = {
          name: definition.name.value,
          node: definition,
          fields: [],
          fieldNames: new Set(),
          directives: [...(definition.directives ?? [])],
        };
        addFields(object, definition.fields ?? [], problems);
        objects.set(object.name, object);
        break;
      }
      case Kind.ENUM_TYPE_DEFINITION: {
        if (refuseReserved(definition.name)) {
          refused.add(definition.name.value);
          break;
        }
        if (!claimName(definition.name)) break;
        const uses = readDirectives(definition.directives, DirectiveLocation.ENUM, problems);
        const enumeration: MutableEnum = { name: definition.name.value, node: definition, values: [], valueNames: new Set(), roles: [...uses.all('roles')], deprecatedValues: new Map() };
        addValues(enumeration, definition.values ?? [], problems);
        enums.set(enumeration.name, enumeration);
        break;
      }
      case Kind.SCALAR_TYPE_DEFINITION:
        // `scalar DateTime` is harmless (editors want it declared); the prelude owns it.
        if (DECLARABLE_SCALARS.has(definition.name.value)) break;
        if (refuseReserved(definition.name)) break;
        claimName(definition.name);
        refused.add(definition.name.value);
        problems.at(
          definition.name,
          'SCHEMA_UNSUPPORTED_DEFINITION',
          `Custom scalar "${definition.name.value}" is not supported; use String, Int, Float, Boolean, ID, DateTime or JSON.`,
        );
        break;
      case Kind.INTERFACE_TYPE_DEFINITION:
      case Kind.UNION_TYPE_DEFINITION:
      case Kind.INPUT_OBJECT_TYPE_DEFINITION: {
        if (refuseReserved(definition.name)) break;
        claimName(definition.name);
        refused.add(definition.name.value);
        const what =
          definition.kind === Kind.INTERFACE_TYPE_DEFINITION
            ? 'Interfaces'
            : definition.kind === Kind.UNION_TYPE_DEFINITION
              ? 'Unions'
              : 'Input types';
        const why =
          definition.kind === Kind.INPUT_OBJECT_TYPE_DEFINITION
            ? 'Diglot derives the input types from the object types'
            : 'every type must be an object type with its own table';
        problems.at(definition.name, 'SCHEMA_UNSUPPORTED_DEFINITION', `${what} are not supported ("${definition.name.value}"): ${why}.`);
        break;
      }
      case Kind.DIRECTIVE_DEFINITION:
        problems.at(
          definition,
          'SCHEMA_UNSUPPORTED_DEFINITION',
          `Directive "@${definition.name.value}" cannot be defined: Diglot's directives are built in.`,
        );
        break;
      case Kind.SCHEMA_DEFINITION:
      case Kind.SCHEMA_EXTENSION:
        problems.at(definition, 'SCHEMA_UNSUPPORTED_DEFINITION', 'A schema definition is not needed: Diglot generates the root types.');
        break;
      case Kind.OPERATION_DEFINITION:
      case Kind.FRAGMENT_DEFINITION:
        problems.at(definition, 'SCHEMA_UNSUPPORTED_DEFINITION', 'Operations and fragments do not belong in a schema file.');
        break;
      case Kind.OBJECT_TYPE_EXTENSION:
      case Kind.ENUM_TYPE_EXTENSION:
        // Merged below, once every definition is known: an extension may come first.
        break;
      default:
        problems.at(definition, 'SCHEMA_UNSUPPORTED_DEFINITION', `"extend ${definition.name.value}" extends a kind of type Diglot does not support.`);
    }
  }

  for (const definition of definitions) {
    if (definition.kind === Kind.OBJECT_TYPE_EXTENSION) {
      const object = objects.get(definition.name.value);
      if (object === undefined) {
        if (refused.has(definition.name.value)) continue;
        if (refuseReserved(definition.name)) continue;
        problems.at(
          definition.name,
          'SCHEMA_UNKNOWN_TYPE',
          `Cannot extend type "${definition.name.value}": no object type has that name.`,
          suggest(definition.name.value, objects.keys()),
        );
        continue;
      }
      object.directives.push(...(definition.directives ?? []));
      addFields(object, definition.fields ?? [], problems);
    } else if (definition.kind === Kind.ENUM_TYPE_EXTENSION) {
      const enumeration = enums.get(definition.name.value);
      if (enumeration === undefined) {
        if (refused.has(definition.name.value)) continue;
        problems.at(
          definition.name,
          'SCHEMA_UNKNOWN_TYPE',
          `Cannot extend enum "${definition.name.value}": no enum has that name.`,
          suggest(definition.name.value, enums.keys()),
        );
        continue;
      }
      enumeration.roles.push(...readDirectives(definition.directives, DirectiveLocation.ENUM, problems).all('roles'));
      addValues(enumeration, definition.values ?? [], problems);
    }
  }

  return {
    objects: new Map([...objects].map(([name, object]) => [name, { name, node: object.node, fields: object.fields, directives: object.directives }])),
    enums: new Map([...enums].map(([name, enumeration]) => [name, { name, node: enumeration.node, values: enumeration.values, roles: enumeration.roles, deprecatedValues: enumeration.deprecatedValues }])),
    refused,
  };
}

function addFields(object: MutableObject, fields: readonly FieldDefinitionNode[], problems: ProblemList): void {
  for (const field of fields) {
    if (object.fieldNames.has(field.name.value)) {
      problems.at(field.name, 'SCHEMA_DUPLICATE_NAME', `Field "${object.name}.${field.name.value}" is declared twice.`);
      continue;
    }
    object.fieldNames.add(field.name.value);
    object.fields.push(field);
  }
}

function addValues(enumeration: MutableEnum, values: readonly EnumValueDefinitionNode[], problems: ProblemList): void {
  for (const value of values) {
    const deprecation = readDeprecation(readDirectives(value.directives, DirectiveLocation.ENUM_VALUE, problems), problems);
    if (enumeration.valueNames.has(value.name.value)) {
      problems.at(value.name, 'SCHEMA_DUPLICATE_NAME', `Enum value "${enumeration.name}.${value.name.value}" is declared twice.`);
      continue;
    }
    if (deprecation !== undefined) enumeration.deprecatedValues.set(value.name.value, deprecation);
    enumeration.valueNames.add(value.name.value);
    enumeration.values.push(value);
  }
}

/** `AdminNote` → `Note`: the name without the admin prefix, when that one is free. */
function withoutAdminPrefix(name: string, declared: ReadonlySet<string>): string | undefined {
  if (!isAdminName(name)) return undefined;
  const rest = name.slice(ADMIN_PREFIX.length).replace(/^_+/, '');
  const free = /^[A-Z]/.test(rest) && !declared.has(rest) && !RESERVED_TYPE_NAMES.has(rest) && !ROOT_TYPE_NAMES.has(rest) && serverTypeNameProblem(rest) === undefined;
  return free ? rest : undefined;
}
