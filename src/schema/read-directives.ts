import {
  type ConstDirectiveNode,
  type ConstValueNode,
  DirectiveLocation,
  isNonNullType,
  print,
  valueFromAST,
} from 'graphql';
import { suggest } from '../util/suggest.js';
import { diglotDirectiveNames, getDiglotDirective } from './directives.js';
import type { ProblemList } from './schema-problem.js';

/** One valid use of a directive: its node and its argument values, defaults filled in. */
export interface DirectiveUse {
  readonly node: ConstDirectiveNode;
  /** Coerced by the prelude's argument types (`@cache(scope:)` is 'PUBLIC' or 'PRIVATE'). */
  readonly values: Readonly<Record<string, unknown>>;
  /** The literal as written, for problems that point at the value. */
  readonly argumentNodes: ReadonlyMap<string, ConstValueNode>;
}

/** The valid uses by name; a repeatable directive's uses are all in `all(name)`. */
export class DirectiveUses extends Map<string, DirectiveUse> {
  private readonly repeated = new Map<string, DirectiveUse[]>();

  add(name: string, use: DirectiveUse, repeatable: boolean): void {
    if (!this.has(name)) this.set(name, use);
    if (repeatable) this.repeated.set(name, [...(this.repeated.get(name) ?? []), use]);
  }

  /** Every valid use of `name`, in order. */
  all(name: string): readonly DirectiveUse[] {
    const use = this.get(name);
    return this.repeated.get(name) ?? (use === undefined ? [] : [use]);
  }
}

/**
 * Checks the directives on one SDL element against the prelude's definitions
 * (the checks graphql-js's SDL validation makes: known directive, allowed
 * location, one use per location, known/unique/required arguments — and,
 * beyond it, argument values of the declared types) and returns the valid
 * uses by name. Invalid uses are reported and left out, so later checks
 * never see them and no problem is reported twice.
 *
 * `@default(value:)` is declared `JSON` and only checked against the
 * field's own type later, by `coerceDefault`.
 */
export function readDirectives(
  nodes: readonly ConstDirectiveNode[] | undefined,
  location: DirectiveLocation,
  problems: ProblemList,
): DirectiveUses {
  const uses = new DirectiveUses();
  const seen = new Set<string>();
  for (const node of nodes ?? []) {
    const name = node.name.value;
    const definition = getDiglotDirective(name);
    if (definition === undefined) {
      const guess = suggest(name, diglotDirectiveNames());
      problems.at(node, 'SCHEMA_UNKNOWN_DIRECTIVE', `Unknown directive "@${name}".`, guess === undefined ? undefined : `@${guess}`);
      continue;
    }
    if (!definition.locations.includes(location)) {
      problems.at(node, 'SCHEMA_MISPLACED_DIRECTIVE', `Directive "@${name}" may not be used on ${describeLocation(location)}.`);
      continue;
    }
    if (seen.has(name) && !definition.isRepeatable) {
      problems.at(node, 'SCHEMA_DUPLICATE_DIRECTIVE', `Directive "@${name}" can only be used once here.`);
      continue;
    }
    seen.add(name);

    let valid = true;
    const values: Record<string, unknown> = {};
    const argumentNodes = new Map<string, ConstValueNode>();
    for (const argument of node.arguments ?? []) {
      const argName = argument.name.value;
      const argDefinition = definition.args.find((arg) => arg.name === argName);
      if (argDefinition === undefined) {
        const guess = suggest(argName, definition.args.map((arg) => arg.name));
        problems.at(argument, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `Unknown argument "${argName}" on directive "@${name}".`, guess);
        valid = false;
        continue;
      }
      if (argumentNodes.has(argName)) {
        problems.at(argument, 'SCHEMA_BAD_DIRECTIVE_ARGUMENT', `Argument "${argName}" of "@${name}" is given twice.`);
        valid = false;
        continue;
      }
      argumentNodes.set(argName, argument.value);
      const value = valueFromAST(argument.value, argDefinition.type);
      if (value === undefined) {
        problems.at(
          argument.value,
          'SCHEMA_BAD_DIRECTIVE_ARGUMENT',
          `Argument "${argName}" of "@${name}" expects ${String(argDefinition.type)}, got ${print(argument.value)}.`,
        );
        valid = false;
        continue;
      }
      values[argName] = value;
    }
    for (const argDefinition of definition.args) {
      if (argumentNodes.has(argDefinition.name)) continue;
      if (argDefinition.defaultValue !== undefined) {
        values[argDefinition.name] = argDefinition.defaultValue;
      } else if (isNonNullType(argDefinition.type)) {
        problems.at(
          node,
          'SCHEMA_BAD_DIRECTIVE_ARGUMENT',
          `Directive "@${name}" needs argument "${argDefinition.name}" of type ${String(argDefinition.type)}.`,
        );
        valid = false;
      }
    }
    if (valid) uses.add(name, { node, values, argumentNodes }, definition.isRepeatable);
  }
  return uses;
}

function describeLocation(location: DirectiveLocation): string {
  switch (location) {
    case DirectiveLocation.OBJECT:
      return 'an object type';
    case DirectiveLocation.FIELD_DEFINITION:
      return 'a field';
    case DirectiveLocation.ARGUMENT_DEFINITION:
      return 'an argument';
    case DirectiveLocation.ENUM:
      return 'an enum';
    case DirectiveLocation.ENUM_VALUE:
      return 'an enum value';
    default:
      return location;
  }
}
