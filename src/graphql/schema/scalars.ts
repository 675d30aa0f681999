import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';

/**
 * The two custom scalars. Their input side is deliberately lenient: a
 * DateTime arrives as any string and is checked by the same coercion REST
 * uses (`plan/coerce.ts`), so both styles refuse the same values with the
 * same error codes. Output never passes through here: the database builds
 * the response JSON.
 */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant as ISO-8601 text in UTC with milliseconds, such as 2026-01-31T12:00:00.000Z.',
  specifiedByURL: 'https://scalars.graphql.org/andimarek/date-time',
  serialize: (value) => value,
  parseValue: (value) => {
    if (typeof value !== 'string') throw new TypeError('DateTime must be an ISO-8601 string');
    return value;
  },
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING) throw new TypeError('DateTime must be an ISO-8601 string');
    return ast.value;
  },
});

export const JsonScalar = new GraphQLScalarType({
  name: 'JSON',
  description: 'Any JSON value, stored as it was sent.',
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});
