import {
  getNamedType,
  GraphQLError,
  Kind,
  ValuesOfCorrectTypeRule,
  type TypeNode,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import type { ErrorCode } from '../../errors/registry.js';
import type { InputRole } from '../schema/roles.js';

/**
 * A value that graphql-js refuses inside a generated input type breaks a
 * rule REST has too: a create input missing a required field is
 * INPUT_REQUIRED_FIELD in both styles, a bad filter QUERY_INVALID_FILTER.
 * graphql-js does not say which rule failed, so the code comes from which
 * input type the value was for and the shape of graphql-js's message (its
 * wording is part of its tested output and stable within a major).
 */
export function inputErrorCode(role: InputRole | undefined, message: string): ErrorCode {
  if (role === undefined) return 'GRAPHQL_VALIDATION_FAILED';
  if (role.kind === 'filter') return 'QUERY_INVALID_FILTER';
  if (role.kind === 'order') return 'QUERY_INVALID_ORDER';
  if (role.kind === 'upload') return 'INPUT_WRONG_TYPE';
  if (/was not provided|must not be null|not to be null|found null\.$/.test(message)) return 'INPUT_REQUIRED_FIELD';
  const unknown = /Field "([^"]+)" is not defined by type/.exec(message);
  if (unknown !== null) {
    const field = role.type.fieldsByName.get(unknown[1] ?? '');
    if (field === undefined) return 'INPUT_UNKNOWN_FIELD';
    // The model has it, so the input leaves it out on purpose: as REST says.
    return field.kind === 'file' ? 'INPUT_WRONG_TYPE' : 'INPUT_READONLY_FIELD';
  }
  return 'INPUT_WRONG_TYPE';
}

/**
 * graphql-js's ValuesOfCorrectTypeRule, with each error it reports tagged
 * with the code of the argument the value belongs to.
 */
export function classifiedValuesRule(inputs: ReadonlyMap<string, InputRole>): ValidationRule {
  return (context) => {
    // The rule only calls reportError and TypeInfo getters on its context;
    // a prototype-linked view reuses them and intercepts just the report.
    const view = Object.create(context) as ValidationContext;
    view.reportError = (error: GraphQLError): void => {
      const argument = context.getArgument();
      const role = argument === null || argument === undefined ? undefined : inputs.get(getNamedType(argument.type).name);
      context.reportError(withCode(error, inputErrorCode(role, error.message)));
    };
    return ValuesOfCorrectTypeRule(view);
  };
}

/** The code of a variable coercion error, from the variable's declared type. */
export function variableErrorCode(error: GraphQLError, inputs: ReadonlyMap<string, InputRole>): ErrorCode {
  const node = error.nodes?.[0];
  if (node?.kind !== Kind.VARIABLE_DEFINITION) return 'GRAPHQL_VALIDATION_FAILED';
  return inputErrorCode(inputs.get(namedTypeOf(node.type)), error.message);
}

function namedTypeOf(type: TypeNode): string {
  return type.kind === Kind.NAMED_TYPE ? type.name.value : namedTypeOf(type.type);
}

export function withCode(error: GraphQLError, code: string): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, code },
  });
}
