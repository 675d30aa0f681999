import { FORMAT_INFO, IMAGE_FORMATS } from '../../files/image-format.js';
import { readMayBeRefused, takesInput, type Field, type Model, type ResourceType, type ScalarField, type ToOneRelation } from '../../schema/model.js';
import { renamedReason } from '../../schema/renamed.js';
import type { ComponentNames } from './component-names.js';
import { annotations, fileUrlSchema, orNull, scalarFieldSchema } from './field-schemas.js';
import { ref, type JsonSchema, type MediaType } from './openapi-types.js';

/** The media types an image part or response can have. */
export const IMAGE_TYPES = IMAGE_FORMATS.map((format) => FORMAT_INFO[format].mediaType);

/**
 * A record as the API returns it. Every property is optional: `fields=`
 * picks which ones come back. Without `fields`, a record holds every scalar,
 * every file URL and every to-one relation as the related record's id; list
 * relations appear only when embedded (`include=` or `fields=`).
 * Unknown properties never appear, so the schema is closed.
 */
export function recordSchema(model: Model, type: ResourceType): JsonSchema {
  const properties: Record<string, JsonSchema> = {};
  for (const field of type.fields) properties[field.name] = recordProperty(model, field);
  withAliases(type, properties);
  return {
    type: 'object',
    ...annotations(
      type,
      'Which properties appear is chosen with `fields` and `include`; by default every scalar, every file URL and every to-one relation (as an id).',
    ),
    properties,
    additionalProperties: false,
  };
}

function recordProperty(model: Model, field: Field): JsonSchema {
  // A field whose read rule refuses some askers is null for them on the records they may not read it on.
  const refusable = readMayBeRefused(field);
  switch (field.kind) {
    case 'scalar': {
      const value = scalarFieldSchema(field);
      return { ...(refusable && !field.nullable ? orNull(value) : value), ...annotations(field), ...(field.readonly ? { readOnly: true } : {}) };
    }
    case 'file':
      return fileUrlSchema(field);
    case 'toOne': {
      const forms: JsonSchema[] = [
        { type: 'string', description: `The id of the ${field.target} (the default).` },
        { ...ref('schemas', field.target), description: `The ${field.target} itself, with \`include=${field.name}\`.` },
      ];
      if (field.nullable || refusable) forms.push({ type: 'null' });
      return { oneOf: forms, ...annotations(field), ...(field.readonly ? { readOnly: true } : {}) };
    }
    case 'toMany':
    case 'manyToMany':
      return {
        type: 'array',
        items: ref('schemas', field.target),
        ...annotations(
          field,
          `Present only when embedded (\`include=${field.name}\`): a page of ${model.typesByName.get(field.target)?.plural ?? field.target}, ` +
            `shaped by \`${field.name}.fields\`, \`${field.name}.limit\`, \`${field.name}.sort\` and \`${field.name}.filter\`. ` +
            `The whole list is its own sub-collection.`,
        ),
      };
  }
}

/** The fields a JSON body may set: scalars and to-one ids that are not server-managed, and files (only to remove them). */
export function writableFields(type: ResourceType): Field[] {
  return type.fields.filter(
    (field) => ((field.kind === 'scalar' || field.kind === 'toOne') && takesInput(field)) || (field.kind === 'file' && field.nullable),
  );
}

/** Required on create and replace: non-nullable, no default, not server-managed (as `validateInput` decides). */
export function isRequiredOnCreate(field: Field): boolean {
  // A field taken from the caller (`@default(fromAuth:)`) may be left out of a create.
  if (field.kind === 'scalar') return !field.readonly && !field.optionalOnCreate && field.defaultFromAuth === undefined;
  if (field.kind === 'toOne') return !field.readonly && !field.nullable && field.defaultFromAuth === undefined;
  return false;
}

/**
 * The body of POST (create) and PUT (replace). Unknown and server-managed
 * fields are refused, so the schema is closed.
 */
export function createSchema(type: ResourceType): JsonSchema {
  const fields = writableFields(type);
  const { required, either } = requiredOnCreate(fields);
  return {
    type: 'object',
    description:
      `A new ${type.name}, or (PUT) the whole new state of one. Server-managed fields (the id, timestamps, read-only fields) are refused; ` +
      `a field left out takes its default, or null.`,
    properties: withAliases(type, Object.fromEntries(fields.map((field) => [field.name, inputProperty(field, true)]))),
    ...(required.length > 0 ? { required } : {}),
    ...either,
    additionalProperties: false,
  };
}

/**
 * The old name of each renamed field (`@renamed(from:)`) beside the new one:
 * the same value, marked deprecated. Records carry it by default; input
 * takes either name (docs/schema.md).
 */
function withAliases(type: ResourceType, properties: Record<string, JsonSchema>): Record<string, JsonSchema> {
  for (const field of type.fields) {
    const current = properties[field.name];
    if (field.renamedFrom === undefined || current === undefined) continue;
    const note = `${renamedReason(field.name)}: the same value under its old name, kept while the schema says @renamed(from: "${field.renamedFrom}").`;
    properties[field.renamedFrom] = { ...current, description: [note, current.description].filter(Boolean).join('\n\n'), deprecated: true };
  }
  return properties;
}

/**
 * The required fields of a create; a renamed one may come under either
 * name, so it is required as one of the two (`anyOf`) instead.
 */
function requiredOnCreate(fields: readonly Field[]): { required: string[]; either: { anyOf?: JsonSchema[]; allOf?: JsonSchema[] } } {
  const required = fields.filter(isRequiredOnCreate);
  const pairs = required.flatMap((field) => (field.renamedFrom === undefined ? [] : [{ anyOf: [{ required: [field.name] }, { required: [field.renamedFrom] }] }]));
  const plain = required.filter((field) => field.renamedFrom === undefined).map((field) => field.name);
  if (pairs.length === 0) return { required: plain, either: {} };
  return { required: plain, either: pairs.length === 1 ? (pairs[0] as { anyOf: JsonSchema[] }) : { allOf: pairs } };
}

/**
 * The multipart/form-data body of POST and PUT for a type with file fields:
 * the create body's fields, with each file field as a file part.
 */
export function formSchema(type: ResourceType): JsonSchema {
  const fields = writableFields(type).concat(type.fields.filter((field) => field.kind === 'file' && !field.nullable));
  const { required, either } = requiredOnCreate(fields);
  return {
    type: 'object',
    description:
      `A new ${type.name} (or, with PUT, the whole new state of one) as a form: one part per field. Text parts are read as URL text is ` +
      '(`42`, `true`); send lists, JSON fields and null as parts of type application/json; a file field is a file part.',
    properties: withAliases(
      type,
      Object.fromEntries(fields.map((field) => [field.name, field.kind === 'file' ? filePartSchema(field.description) : inputProperty(field, true)])),
    ),
    ...(required.length > 0 ? { required } : {}),
    ...either,
    additionalProperties: false,
  };
}

/** The multipart/form-data body of POST and PUT for `type`, with the content types of its parts. */
export function formMediaType(type: ResourceType, names: ComponentNames): MediaType {
  const encoding: Record<string, { contentType: string }> = {};
  for (const field of type.fields) {
    if (field.kind === 'file') encoding[field.name] = { contentType: IMAGE_TYPES.join(', ') };
    else if (field.kind === 'scalar' && (field.list || field.scalar === 'JSON')) encoding[field.name] = { contentType: 'application/json' };
  }
  return { schema: ref('schemas', names.form(type.name)), encoding };
}

/** A file part: bytes, checked by content. */
export function filePartSchema(description: string | undefined): JsonSchema {
  return {
    type: 'string',
    contentMediaType: 'application/octet-stream',
    description: [description, 'A JPEG, PNG, WebP, AVIF or GIF image (judged by its content, not its name or declared type).']
      .filter((part) => part !== undefined && part !== '')
      .join('\n\n'),
  };
}

/** The body of PATCH: any subset of the writable fields (JSON merge patch, RFC 7396). */
export function patchSchema(type: ResourceType): JsonSchema {
  const fields = writableFields(type);
  return {
    type: 'object',
    description: `Changes to a ${type.name}: the fields given are set, the others keep their value. Server-managed fields are refused.`,
    properties: withAliases(type, Object.fromEntries(fields.map((field) => [field.name, inputProperty(field, false)]))),
    additionalProperties: false,
  };
}

function inputProperty(field: Field, withDefault: boolean): JsonSchema {
  switch (field.kind) {
    case 'scalar': {
      const defaults = withDefault && field.default !== undefined ? { default: field.default.value } : {};
      return { ...scalarFieldSchema(field), ...annotations(field, immutableNote(field)), ...defaults, ...immutableMark(field) };
    }
    case 'toOne': {
      const id: JsonSchema = { type: 'string', minLength: 1 };
      const about = [`The id of the ${field.target}.`, immutableNote(field)].filter(Boolean).join(' ');
      return { ...(field.nullable ? orNull(id) : id), ...annotations(field, about), ...immutableMark(field) };
    }
    case 'file':
      return { type: 'null', ...annotations(field, 'Files are uploaded, not written in JSON; send null to remove the file.') };
    case 'toMany':
    case 'manyToMany':
      throw new Error(`${field.name} is a list relation and never part of an input body`);
  }
}

/**
 * `@immutable`: JSON Schema's `readOnly` would say "never sent", but the
 * field is sent on create; so a sentence and an extension keyword instead.
 */
function immutableNote(field: ScalarField | ToOneRelation): string | undefined {
  return field.immutable ? 'Set once: given on create, never changed after (another value on update or PUT is 409 INPUT_IMMUTABLE_FIELD).' : undefined;
}

function immutableMark(field: ScalarField | ToOneRelation): JsonSchema {
  return field.immutable ? { 'x-diglot-immutable': true } : {};
}

/** The one envelope of every list: collections and sub-collections alike. */
export function listSchema(type: ResourceType, names: ComponentNames): JsonSchema {
  return {
    type: 'object',
    description: `A page of ${type.plural}. Pass \`nextCursor\` as \`after\` (or \`prevCursor\` as \`before\`) for the neighbouring page; the \`Link\` header carries the same links.`,
    properties: {
      data: { type: 'array', items: ref('schemas', names.record(type.name)), description: 'The records of this page, in order.' },
      hasMore: { type: 'boolean', description: 'Whether more records follow in the direction of paging.' },
      nextCursor: { type: ['string', 'null'], description: 'Cursor of the next page, or null on the last page.' },
      prevCursor: { type: ['string', 'null'], description: 'Cursor of the previous page, or null on the first page.' },
      totalCount: { type: 'integer', minimum: 0, description: 'How many records match the filter, on all pages; only with `count=true`.' },
    },
    required: ['data', 'hasMore', 'nextCursor', 'prevCursor'],
    additionalProperties: false,
  };
}
