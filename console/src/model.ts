/**
 * The data model, read at run time from the server's OpenAPI document
 * (`/openapi.json`), which every caller may fetch: the console knows no
 * schema of its own and works for any. Each collection path with a list
 * operation is a type; its record schema gives the fields, the create
 * schema which are required, the sort and fields parameters what can be
 * sorted and chosen, the filter schema what can be filtered, and the
 * sub-collection and upload paths which fields are list relations and files.
 */
import { api } from './api';

export type FieldKind = 'scalar' | 'enum' | 'file' | 'toOne' | 'toMany' | 'manyToMany';
export type ScalarKind = 'string' | 'integer' | 'number' | 'boolean' | 'date-time' | 'json';

export interface ModelField {
  readonly name: string;
  readonly kind: FieldKind;
  readonly scalar: ScalarKind;
  /** A list of scalars (`[String!]`). */
  readonly list: boolean;
  readonly nullable: boolean;
  /** Must be given when creating one. */
  readonly required: boolean;
  /** Set by the server (id, timestamps, @readonly): shown, never sent. */
  readonly readOnly: boolean;
  /** Settable when creating only (@immutable). */
  readonly immutable: boolean;
  readonly deprecated: boolean;
  readonly enumValues?: readonly string[];
  /** The related type's name, for relations. */
  readonly target?: string;
  readonly description?: string;
  readonly defaultValue?: unknown;
  readonly sortable: boolean;
  readonly filterable: boolean;
}

export interface ModelType {
  readonly name: string;
  /** The collection's path without its slash: `users`, `order-items`. */
  readonly path: string;
  readonly description?: string;
  readonly fields: readonly ModelField[];
  /** Whether the server takes multipart creates (a type with file fields). */
  readonly hasFiles: boolean;
}

export interface Model {
  readonly types: readonly ModelType[];
  readonly byName: ReadonlyMap<string, ModelType>;
  /** The type people sign in as (the one `/me` answers with). */
  readonly accountType?: string;
}

type Schema = Record<string, unknown>;
interface Operation {
  readonly operationId?: string;
  readonly parameters?: readonly { readonly $ref?: string; readonly name?: string; readonly schema?: Schema }[];
  readonly requestBody?: { readonly content?: Record<string, { readonly schema?: Schema }> };
  readonly responses?: Record<string, { readonly content?: Record<string, { readonly schema?: Schema }> }>;
}
type PathItem = Partial<Record<'get' | 'post' | 'put' | 'patch' | 'delete', Operation>>;
export interface OpenApi {
  readonly paths: Record<string, PathItem>;
  readonly components?: { readonly schemas?: Record<string, Schema>; readonly parameters?: Record<string, { readonly name?: string; readonly schema?: Schema }> };
}

const SCHEMA_REF = '#/components/schemas/';
const PARAMETER_REF = '#/components/parameters/';

function refName(schema: unknown): string | undefined {
  const ref = (schema as Schema | undefined)?.['$ref'];
  return typeof ref === 'string' && ref.startsWith(SCHEMA_REF) ? ref.slice(SCHEMA_REF.length) : undefined;
}

function types(schema: Schema): string[] {
  const type = schema['type'];
  return Array.isArray(type) ? (type as string[]) : typeof type === 'string' ? [type] : [];
}

export async function loadModel(): Promise<Model> {
  const { body } = await api<OpenApi>('/openapi.json');
  return modelOf(body);
}

export function modelOf(document: OpenApi): Model {
  const schemas = document.components?.schemas ?? {};
  const parameters = document.components?.parameters ?? {};
  const parameter = (operation: Operation | undefined, name: string): Schema | undefined => {
    for (const entry of operation?.parameters ?? []) {
      const resolved = entry.$ref?.startsWith(PARAMETER_REF) ? parameters[entry.$ref.slice(PARAMETER_REF.length)] : entry;
      if (resolved?.name === name) return resolved.schema;
    }
    return undefined;
  };
  const enumItems = (schema: Schema | undefined): string[] => {
    const items = schema?.['items'] as Schema | undefined;
    return Array.isArray(items?.['enum']) ? (items['enum'] as string[]) : [];
  };
  const result: ModelType[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const list = item.get;
    if (!/^\/[^/{}]+$/.test(path) || list?.operationId?.startsWith('list') !== true) continue;
    const listSchema = refName(list.responses?.['200']?.content?.['application/json']?.schema);
    const name = listSchema?.replace(/List$/, '');
    const record = name === undefined ? undefined : schemas[name];
    if (name === undefined || record === undefined) continue;
    const create = schemas[`${name}Create`];
    const required = new Set((create?.['required'] as string[] | undefined) ?? []);
    const createProps = (create?.['properties'] as Record<string, Schema> | undefined) ?? {};
    const sortable = new Set(enumItems(parameter(list, 'sort')));
    const filterSchema = schemas[`${name}Filter`]?.['properties'] as Record<string, unknown> | undefined;
    const fields: ModelField[] = [];
    for (const [fieldName, raw] of Object.entries((record['properties'] as Record<string, Schema> | undefined) ?? {})) {
      fields.push(
        fieldOf(fieldName, raw, {
          schemas,
          required: required.has(fieldName),
          createSchema: createProps[fieldName],
          subPath: document.paths[`${path}/{id}/${fieldName}`],
          linkPath: document.paths[`${path}/{id}/${fieldName}/{targetId}`],
          sortable: sortable.has(fieldName),
          filterable: filterSchema?.[fieldName] !== undefined,
        }),
      );
    }
    result.push({
      name,
      path: path.slice(1),
      description: typeof record['description'] === 'string' ? record['description'].split('\n\n')[0] : undefined,
      fields,
      hasFiles: fields.some((field) => field.kind === 'file'),
    });
  }
  return {
    types: result,
    byName: new Map(result.map((type) => [type.name, type])),
    accountType: refName(document.paths['/me']?.get?.responses?.['200']?.content?.['application/json']?.schema),
  };
}

interface FieldContext {
  readonly schemas: Record<string, Schema>;
  readonly required: boolean;
  readonly createSchema: Schema | undefined;
  readonly subPath: PathItem | undefined;
  readonly linkPath: PathItem | undefined;
  readonly sortable: boolean;
  readonly filterable: boolean;
}

function fieldOf(name: string, raw: Schema, context: FieldContext): ModelField {
  const base = {
    name,
    required: context.required,
    readOnly: raw['readOnly'] === true,
    immutable: raw['x-diglot-immutable'] === true || context.createSchema?.['x-diglot-immutable'] === true,
    deprecated: raw['deprecated'] === true,
    description: typeof raw['description'] === 'string' ? raw['description'].split('\n\n')[0] : undefined,
    defaultValue: context.createSchema?.['default'],
    sortable: context.sortable,
    filterable: context.filterable,
  };
  // A to-one relation: its id, or the record itself when included.
  const oneOf = raw['oneOf'] as Schema[] | undefined;
  const target = oneOf?.map(refName).find((ref) => ref !== undefined);
  if (target !== undefined) {
    return { ...base, kind: 'toOne', scalar: 'string', list: false, nullable: oneOf?.some((form) => form['type'] === 'null') ?? false, target };
  }
  const items = raw['items'] as Schema | undefined;
  const itemRef = refName(items);
  if (types(raw).includes('array') && itemRef !== undefined && context.schemas[itemRef]?.['type'] === 'object') {
    return { ...base, kind: context.linkPath === undefined ? 'toMany' : 'manyToMany', scalar: 'string', list: true, nullable: false, target: itemRef, readOnly: true };
  }
  if (raw['format'] === 'uri-reference' && context.subPath?.put !== undefined) {
    return { ...base, kind: 'file', scalar: 'string', list: false, nullable: true };
  }
  const nullable = types(raw).includes('null') || (raw['anyOf'] as Schema[] | undefined)?.some((form) => form['type'] === 'null') === true;
  const value = types(raw).includes('array') ? (items ?? {}) : raw;
  const list = types(raw).includes('array');
  const enumName = refName(value) ?? (value['anyOf'] as Schema[] | undefined)?.map(refName).find((ref) => ref !== undefined);
  const enumValues = enumName === undefined ? undefined : (context.schemas[enumName]?.['enum'] as string[] | undefined);
  if (enumValues !== undefined) return { ...base, kind: 'enum', scalar: 'string', list, nullable, enumValues };
  return { ...base, kind: 'scalar', scalar: scalarOf(value), list, nullable };
}

function scalarOf(schema: Schema): ScalarKind {
  const kinds = types(schema);
  if (kinds.includes('integer')) return 'integer';
  if (kinds.includes('number')) return 'number';
  if (kinds.includes('boolean')) return 'boolean';
  if (kinds.includes('string')) return schema['format'] === 'date-time' ? 'date-time' : 'string';
  return 'json';
}

/** A record's label: the first text field that looks like a name, else its id. */
export function labelOf(type: ModelType | undefined, record: Record<string, unknown>): string {
  const candidates = ['name', 'title', 'username', 'email', 'sku', 'label'];
  for (const key of candidates) {
    const value = record[key];
    if (typeof value === 'string' && value !== '' && type?.fields.some((field) => field.name === key) !== false) return value;
  }
  return record['id'] === undefined ? '?' : textOf(record['id']);
}

/** Fields shown as table columns by default: the first few scalars, enums and files. */
export function defaultColumns(type: ModelType): string[] {
  const shown = type.fields.filter((field) => field.kind !== 'toMany' && field.kind !== 'manyToMany' && field.scalar !== 'json' && !field.deprecated);
  return shown.slice(0, 6).map((field) => field.name);
}

/** A value as plain text: strings and numbers as they are, a related record by its id, anything else as JSON. */
export function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  if (value === null || value === undefined) return '';
  if (typeof value === 'object' && 'id' in value) return textOf((value).id);
  return JSON.stringify(value);
}
