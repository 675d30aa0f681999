import { resolvePlanLimits, type PlanLimits } from '../../plan/limits.js';
import type { Model, ResourceType } from '../../schema/model.js';
import { componentNames } from './component-names.js';
import { enumSchemas } from './field-schemas.js';
import { filterSchema } from './filter-schema.js';
import { HTTP_METHODS, type JsonSchema, type OpenApiDocument, type Parameter, type PathItem, type Tag } from './openapi-types.js';
import { pruneComponents } from './prune-components.js';
import { problemSchemas, sharedHeaders, sharedResponses } from './problem-schemas.js';
import { sharedParameters, typeParameters } from './query-parameters.js';
import { createSchema, formSchema, listSchema, patchSchema, recordSchema } from './record-schemas.js';
import { variantWidths } from '../../files/image-variants.js';
import { fileFieldPaths, FILES_TAG, filesPaths } from './file-paths.js';
import { resourcePaths } from './resource-paths.js';
import { renamedPaths } from './renamed-paths.js';
import { accountPaths, ACCOUNTS_TAG } from './account-paths.js';
import { anyCaller, securitySchemes } from './security-schemes.js';
import { SERVICE_TAG, servicePaths } from './service-paths.js';
import { ADMIN_TAG, adminPaths } from './admin-paths.js';
import { changeStreamPath } from '../change-stream.js';

export const DEFAULT_TITLE = 'Diglot API';

export interface OpenApiOptions {
  /** `info.title`; default "Diglot API". */
  readonly title?: string;
  /** `info.version`; default derived from the schema's hash, so it changes whenever the API can. */
  readonly version?: string;
  readonly description?: string;
  /** Page sizes, as the server enforces them. */
  readonly limits?: Partial<PlanLimits>;
  /** The server answers 428 to writes without If-Match. */
  readonly requireIfMatch?: boolean;
  /** The server has a file store: upload routes, /files and multipart bodies are described. */
  readonly files?: boolean;
}

/**
 * The OpenAPI 3.1 document of the REST API, generated from the model: every
 * route `rest-api.ts` registers, with the query grammar of `query-params.ts`,
 * the list envelope of `render-list.ts`, problem+json errors with the
 * registry's codes, and the caching headers.
 */
export function buildOpenApiDocument(model: Model, options: OpenApiOptions = {}): OpenApiDocument {
  const names = componentNames(model);
  const limits = resolvePlanLimits(options.limits);
  const schemas: Record<string, JsonSchema> = {};
  const parameters: Record<string, Parameter> = sharedParameters(limits);
  const paths: Record<string, PathItem> = {};
  const tags: Tag[] = [];

  for (const type of model.types) {
    schemas[names.record(type.name)] = recordSchema(model, type);
    schemas[names.create(type.name)] = createSchema(type);
    schemas[names.patch(type.name)] = patchSchema(type);
    schemas[names.list(type.name)] = listSchema(type, names);
    schemas[names.filter(type.name)] = filterSchema(type);
    Object.assign(parameters, typeParameters(model, type, names, limits));
    const pathOptions = { requireIfMatch: options.requireIfMatch === true, files: options.files === true };
    const typePaths = (named: ResourceType): Record<string, PathItem> => ({
      ...resourcePaths(model, named, names, pathOptions),
      ...(options.files === true ? fileFieldPaths(model, named, names, pathOptions) : {}),
    });
    const own = typePaths(type);
    Object.assign(paths, own, renamedPaths(type, own, typePaths));
    if (options.files === true) schemas[names.form(type.name)] = formSchema(type);
    tags.push({ name: type.name, description: `${type.description ?? `${type.name} records.`} Collection: \`/${type.path}\`.` });
  }
  Object.assign(schemas, enumSchemas(model), problemSchemas(names));
  const widths = variantWidths(model);
  if (options.files === true && widths.length > 0) {
    Object.assign(paths, filesPaths(widths));
    tags.push({ name: FILES_TAG, description: 'Stored files and their resized variants, at the URLs records give. Content-addressed, so cached for good.' });
  }
  const accounts = accountPaths(model, names);
  if (Object.keys(accounts.paths).length > 0) {
    Object.assign(paths, accounts.paths);
    Object.assign(schemas, accounts.schemas);
    tags.push({ name: ACCOUNTS_TAG, description: 'Sign-up, sign-in and tokens for the account type (docs/accounts.md).' });
  }
  Object.assign(paths, adminPaths(model, names, changeStreamPath(model)));
  tags.push({ name: ADMIN_TAG, description: 'The admin API (admin role only): API keys, account suspensions, webhook endpoints and deliveries, the schema; and the change stream, for everyone (docs/admin-api.md).' });
  Object.assign(paths, servicePaths());
  tags.push({ name: SERVICE_TAG, description: 'Health and the description of this API.' });

  const document = pruneComponents({
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    info: {
      title: options.title ?? DEFAULT_TITLE,
      version: options.version ?? `schema-${model.hash.slice(0, 12)}`,
      description: options.description ?? defaultDescription(model),
      contact: { name: 'The maintainers of this API' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'This server.' }],
    security: anyCaller(),
    tags,
    paths,
    components: {
      schemas,
      parameters,
      responses: sharedResponses(names, options.requireIfMatch === true),
      headers: sharedHeaders(),
      securitySchemes: securitySchemes(),
    },
  });
  assertUniqueOperationIds(document);
  return document;
}

function defaultDescription(model: Model): string {
  return [
    ...DEFAULT_DESCRIPTION,
    // Without an @allow anywhere, the schema is open: nothing is refused for who is asking.
    ...(model.hasRules
      ? ['The schema\'s permission rules decide the rest: 403 `FORBIDDEN` for an operation on a record, `FIELD_FORBIDDEN` for a field named in the request.']
      : []),
  ].join('\n');
}

const DEFAULT_DESCRIPTION = [
  'Every type of the schema is a collection with its own URL; every list relation is a sub-collection.',
  '',
  '**Reading.** `fields=a,b` picks fields; `include=posts,posts.author` embeds related records in the same response',
  '(with `posts.fields`, `posts.limit`, `posts.sort`, `posts.filter[...]` per embedded path).',
  'Lists take `filter[field][op]=value`, `sort=-createdAt,name`, `limit`, `after`/`before` cursors and `count=true`,',
  'and answer `{ data, hasMore, nextCursor, prevCursor, totalCount? }` with RFC 8288 `Link` headers.',
  '',
  '**Caching.** Every read carries a strong `ETag` and a `Cache-Control` from the schema\'s `@cache` hints;',
  '`If-None-Match` answers 304, `If-Match` on PUT, PATCH and DELETE answers 412 when the record changed.',
  '',
  '**Errors** are RFC 9457 `application/problem+json` with a stable `code`.',
  '',
  '**Authentication.** Send `Authorization: Bearer <token>` with a JWT, an API key (`dk_…`) or the admin key; without it a request is anonymous.',
  'A credential that is sent must be good: a bad, expired or revoked one is 401 with `WWW-Authenticate`, never anonymous.',
];

function assertUniqueOperationIds(document: OpenApiDocument): void {
  const seen = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths)) {
    for (const method of HTTP_METHODS) {
      const id = item[method]?.operationId;
      if (id === undefined) continue;
      const other = seen.get(id);
      // Only a schema whose type names collide once capitalised and pluralised gets here.
      if (other !== undefined) throw new Error(`OpenAPI operationId ${id} is used by both ${other} and ${method.toUpperCase()} ${path}`);
      seen.set(id, `${method.toUpperCase()} ${path}`);
    }
  }
}
