import type { Deprecation, DeprecationDates, FileField, Model, ScalarField } from '../../schema/model.js';
import { ref, type JsonSchema } from './openapi-types.js';

/** GraphQL's Int is 32-bit, and the input coercion refuses anything outside it. */
const INT32 = { minimum: -(2 ** 31), maximum: 2 ** 31 - 1 } as const;

/** One value of a scalar field, never null, never a list. */
export function scalarValueSchema(field: ScalarField): JsonSchema {
  if (field.enum !== undefined) return ref('schemas', field.enum);
  switch (field.scalar) {
    case 'ID':
    case 'String':
      return { type: 'string' };
    case 'Int':
      return { type: 'integer', format: 'int32', ...INT32 };
    case 'Float':
      return { type: 'number', format: 'double' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'DateTime':
      return { type: 'string', format: 'date-time' };
    case 'JSON':
      // Any JSON value at all, null included.
      return {};
  }
}

/** The value of a scalar field as a record holds it (lists as arrays, null where the SDL allows). */
export function scalarFieldSchema(field: ScalarField): JsonSchema {
  const item = scalarValueSchema(field);
  const value = field.list ? { type: 'array', items: item } : item;
  return field.nullable ? orNull(value) : value;
}

/** `schema` or JSON null, written the plainest way the schema allows. */
export function orNull(schema: JsonSchema): JsonSchema {
  if (Object.keys(schema).length === 0) return schema;
  const type = schema['type'];
  if (typeof type === 'string' && schema['$ref'] === undefined && schema['enum'] === undefined) {
    return { ...schema, type: [type, 'null'] };
  }
  return { anyOf: [schema, { type: 'null' }] };
}

/** The URL a file field renders as. */
export function fileUrlSchema(field: FileField): JsonSchema {
  // A record can exist before its file is uploaded, so the URL may be null even for `String!`.
  return { type: ['string', 'null'], format: 'uri-reference', ...annotations(field, fileSentence(field)) };
}

export function fileSentence(field: FileField): string {
  return (
    `A URL of the stored file, relative to this server. Ask for a width with \`${field.name}.size=N\`: ` +
    `it is rounded up to one of ${field.image.sizes.join(', ')} (the largest when N is larger).`
  );
}

/**
 * The field's SDL description (plus an extra sentence) and its deprecation:
 * `deprecated: true` and the reason, where the SDL's `@deprecated` says so.
 */
export function annotations(
  item: { readonly description: string | undefined; readonly deprecated: string | undefined; readonly deprecatedDates?: DeprecationDates | undefined },
  extra?: string,
): { readonly description?: string; readonly deprecated?: true; readonly 'x-sunset'?: string } {
  const parts = [item.description, extra, item.deprecated === undefined ? undefined : `Deprecated: ${item.deprecated}`];
  const description = parts.filter((part): part is string => part !== undefined && part !== '').join('\n\n');
  return { ...(description === '' ? {} : { description }), ...(item.deprecated === undefined ? {} : { deprecated: true }), ...sunsetMark(item.deprecatedDates) };
}

/** `x-sunset`: the date a deprecated thing is expected to stop working (RFC 8594's Sunset, in the document). */
export function sunsetMark(dates: DeprecationDates | undefined): { readonly 'x-sunset'?: string } {
  return dates?.sunset === undefined ? {} : { 'x-sunset': dates.sunset };
}

export function enumSchemas(model: Model): Record<string, JsonSchema> {
  const schemas: Record<string, JsonSchema> = {};
  for (const [name, enumType] of model.enums) {
    const deprecated = [...(enumType.deprecatedValues ?? new Map<string, Deprecation>())];
    const notes = deprecated.map(([value, deprecation]) => `${value} is deprecated: ${deprecation.reason}${deprecation.sunset === undefined ? '' : ` (sunset ${deprecation.sunset})`}`);
    schemas[name] = {
      type: 'string',
      enum: [...enumType.values],
      description: [enumType.description ?? `One of the ${name} values.`, ...notes].join('\n\n'),
      // JSON Schema cannot deprecate one value of an enum: the values are listed here, for tools.
      ...(deprecated.length === 0 ? {} : { 'x-deprecated-enum-values': deprecated.map(([value]) => value) }),
    };
  }
  return schemas;
}
