import { GraphQLScalarType, Kind, valueFromASTUntyped } from 'graphql';
import { isFileInput } from '../../plan/file-input.js';

/**
 * The custom scalars. Their input side is deliberately lenient: a
 * DateTime arrives as any string and is checked by the same coercion REST
 * uses (`plan/coerce.ts`), so both styles refuse the same values with the
 * same error codes. Output never passes through here: the database builds
 * the response JSON.
 */
export const DateTimeScalar = new GraphQLScalarType({
  name: 'DateTime',
  description: 'An instant as ISO-8601 text in UTC with milliseconds, such as 2026-01-31T12:00:00.000Z, in the years 0001 to 9999 (UTC).',
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

/**
 * A file sent with the GraphQL multipart request spec
 * (https://github.com/jaydenseric/graphql-multipart-request-spec): the
 * request's `map` puts each file part at a variable path, and by the time
 * variables are coerced the file is already stored and checked, so its value
 * here is a `FileInput`. Nothing else is an Upload: not a string (a client
 * cannot point a record at a stored file by naming its key), not a literal.
 */
export const UploadScalar = new GraphQLScalarType({
  name: 'Upload',
  description: 'A file, sent as a part of a multipart/form-data request (the GraphQL multipart request spec).',
  specifiedByURL: 'https://github.com/jaydenseric/graphql-multipart-request-spec',
  serialize: () => {
    throw new TypeError('Upload is an input-only scalar');
  },
  parseValue: (value) => {
    if (!isFileInput(value)) throw new TypeError('Upload must be a file part of a multipart request, mapped to this variable');
    return value;
  },
  parseLiteral: () => {
    throw new TypeError('Upload cannot be written in the document: send the file as a multipart part and pass it in a variable');
  },
});
