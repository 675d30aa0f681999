import { deleteReach } from '../../schema/delete-reach.js';
import { isListRelation, type DeprecationDates, type Field, type ManyToManyRelation, type Model, type ResourceType, type ToManyRelation } from '../../schema/model.js';
import type { ComponentNames } from './component-names.js';
import { bodyFields, onlyAdmins, readForbiddenCodes, writeForbiddenCodes, type WriteOperation } from './forbidden-codes.js';
import { ref, type MediaType, type Operation, type PathItem, type Reference, type Response, type SecurityRequirement } from './openapi-types.js';
import { embedParameterRefs, readParameterRefs } from './query-parameters.js';
import { formMediaType } from './record-schemas.js';
import { ERROR_RESPONSES, forbiddenResponse, type ErrorResponseName } from './problem-schemas.js';
import { credentialRequired } from './security-schemes.js';

export interface ResourcePathOptions {
  /** The server answers 428 to writes without If-Match. */
  readonly requireIfMatch: boolean;
  /** The server has a file store: POST and PUT also take multipart/form-data for types with file fields. */
  readonly files?: boolean;
}

/**
 * Every route `rest-api.ts` registers for one type, as OpenAPI path items:
 *
 *   /<path>                           GET HEAD (list) · POST (create)
 *   /<path>/{id}                      GET HEAD · PUT (replace) · PATCH (merge) · DELETE
 *   /<path>/{id}/<listRelation>       GET HEAD (the sub-collection)
 *   /<path>/{id}/<manyToMany>/{targetId}   PUT (link, idempotent) · DELETE (unlink)
 *
 * Any other method on these paths answers 405 with `Allow`; OpenAPI has no
 * place for a status of a method that is not an operation, so each path
 * item's description says so.
 */
export function resourcePaths(model: Model, type: ResourceType, names: ComponentNames, options: ResourcePathOptions): Record<string, PathItem> {
  const base = `/${type.path}`;
  const item = `${base}/{id}`;
  const paths: Record<string, PathItem> = {
    [base]: {
      description: allowSentence(['GET', 'HEAD', 'POST']),
      get: listOperation(model, type, names, 'get'),
      head: listOperation(model, type, names, 'head'),
      post: createOperation(model, type, names, options),
    },
    [item]: {
      description: allowSentence(['GET', 'HEAD', 'PUT', 'PATCH', 'DELETE']),
      get: getOperation(model, type, names, 'get'),
      head: getOperation(model, type, names, 'head'),
      put: updateOperation(model, type, names, options, 'replace'),
      patch: updateOperation(model, type, names, options, 'merge'),
      delete: deleteOperation(model, type, names, options),
    },
  };
  for (const relation of type.fields.filter(isListRelation)) {
    paths[`${item}/${relation.name}`] = {
      description: allowSentence(['GET', 'HEAD']),
      get: subListOperation(model, type, relation, names, 'get'),
      head: subListOperation(model, type, relation, names, 'head'),
    };
    if (relation.kind === 'manyToMany') {
      paths[`${item}/${relation.name}/{targetId}`] = {
        description: allowSentence(['PUT', 'DELETE']),
        put: linkOperation(model, type, relation, names, 'put'),
        delete: linkOperation(model, type, relation, names, 'delete'),
      };
    }
  }
  return paths;
}

function allowSentence(methods: readonly string[]): string {
  return `Other methods answer 405 Method Not Allowed, with \`Allow: ${methods.join(', ')}\`.`;
}

const JSON_TYPE = 'application/json';
const MERGE_PATCH_TYPE = 'application/merge-patch+json';
const FORM_TYPE = 'multipart/form-data';

function listOperation(model: Model, type: ResourceType, names: ComponentNames, method: 'get' | 'head'): Operation {
  const plural = pascal(type.plural);
  return {
    operationId: `${method === 'get' ? 'list' : 'head'}${plural}`,
    summary: method === 'get' ? `List ${type.plural}` : `Check the list of ${type.plural}`,
    description: readDescription(
      type,
      method,
      `A page of ${type.plural}, filtered, sorted and paged by cursor, with related records embedded on request.`,
    ),
    tags: [type.name],
    ...deprecatedBy(type),
    parameters: [...readParameterRefs(type, true), ...embedParameterRefs(model, type), ref('parameters', 'If-None-Match')],
    responses: readResponses(method, names.list(type.name), true, false, readForbidden(model, type, names)),
  };
}

function subListOperation(
  model: Model,
  type: ResourceType,
  relation: ToManyRelation | ManyToManyRelation,
  names: ComponentNames,
  method: 'get' | 'head',
): Operation {
  const target = model.typesByName.get(relation.target) as ResourceType;
  return {
    operationId: `${method === 'get' ? 'list' : 'head'}${pascal(relation.name)}Of${type.name}`,
    summary: method === 'get' ? `List the ${relation.name} of a ${type.name}` : `Check the ${relation.name} of a ${type.name}`,
    description: readDescription(
      target,
      method,
      [relation.description, `The ${type.name}'s \`${relation.name}\` as a sub-collection: the same filters, sorting, paging and embedding as the ${target.plural} collection.`]
        .filter((part) => part !== undefined)
        .join('\n\n'),
    ),
    tags: [type.name],
    ...deprecatedBy(type, target, relation),
    parameters: [ref('parameters', 'id'), ...readParameterRefs(target, true), ...embedParameterRefs(model, target), ref('parameters', 'If-None-Match')],
    responses: readResponses(method, names.list(target.name), true, true, readForbidden(model, target, names, relation)),
  };
}

function getOperation(model: Model, type: ResourceType, names: ComponentNames, method: 'get' | 'head'): Operation {
  return {
    operationId: `${method}${type.name}`,
    summary: method === 'get' ? `Get a ${type.name}` : `Check a ${type.name}`,
    description: readDescription(type, method, `One ${type.name} by id, with related records embedded on request.`),
    tags: [type.name],
    ...deprecatedBy(type),
    parameters: [ref('parameters', 'id'), ...readParameterRefs(type, false), ...embedParameterRefs(model, type), ref('parameters', 'If-None-Match')],
    responses: readResponses(method, names.record(type.name), false, true, readForbidden(model, type, names)),
  };
}

function readDescription(type: ResourceType, method: 'get' | 'head', what: string): string {
  const head = method === 'head' ? ' HEAD answers exactly as GET would, without the body.' : '';
  return `${what}${head}\n\n${cachingSentence(type)}`;
}

/** What `cache-policy.ts` makes of the type's own hint (embedded records and field hints can only shorten it). */
function cachingSentence(type: ResourceType): string {
  const hint = type.cache;
  const scope = hint?.scope === 'PRIVATE' ? 'private' : 'public';
  const control = hint === undefined || hint.maxAge <= 0 ? `${scope}, no-cache` : `${scope}, max-age=${hint.maxAge}, must-revalidate`;
  return (
    `Caching: \`Cache-Control: ${control}\`${hint === undefined ? '' : ' (from `@cache`)'} and a strong ETag; ` +
    'revalidate with If-None-Match for a 304. Any write to the data shown changes the ETag.'
  );
}

function readResponses(method: 'get' | 'head', schemaName: string, list: boolean, notFound: boolean, forbidden: Response | undefined): Record<string, Response | Reference> {
  const headers = {
    ETag: ref('headers', 'ETag'),
    'Cache-Control': ref('headers', 'Cache-Control'),
    ...(list ? { Link: ref('headers', 'Link') } : {}),
  };
  const ok: Response =
    method === 'get'
      ? { description: list ? 'The page.' : 'The record.', headers, content: { [JSON_TYPE]: { schema: ref('schemas', schemaName) } } }
      : { description: 'The headers GET would send, without a body.', headers };
  return errors({ '200': ok, '304': ref('responses', 'NotModified') }, ['BadRequest', ...(notFound ? (['NotFound'] as const) : [])], forbidden);
}

/** The 403 of a read, when the rules can refuse one (a field asked for by name). */
function readForbidden(model: Model, type: ResourceType, names: ComponentNames, via?: Field): Response | undefined {
  const codes = readForbiddenCodes(model, type, via);
  return codes.length === 0 ? undefined : forbiddenResponse(names, codes, 'read');
}

/** The 403 of a write: refused cross-site always, and by the rules when they can refuse it. */
export function writeForbidden(model: Model, type: ResourceType, names: ComponentNames, operation: WriteOperation, fields: readonly Field[]): Response {
  return forbiddenResponse(names, ['CROSS_SITE_REQUEST_REFUSED', ...writeForbiddenCodes(model, type, operation, fields)], 'write');
}

/** A write only the admin role may do says so with its own `security`: a request without a credential never passes it. */
export function writeSecurity(model: Model, type: ResourceType, operation: WriteOperation): { readonly security?: readonly SecurityRequirement[] } {
  return onlyAdmins(model, type, operation) ? { security: credentialRequired() } : {};
}

function createOperation(model: Model, type: ResourceType, names: ComponentNames, options: ResourcePathOptions): Operation {
  return {
    operationId: `create${type.name}`,
    summary: `Create a ${type.name}`,
    description: `Creates a ${type.name} and answers with it as GET would (without \`fields\`), its URL in \`Location\` and its ETag. To-one relations are written as the related record's id.`,
    tags: [type.name],
    ...deprecatedBy(type),
    requestBody: {
      description: `The new ${type.name}.${formSentence(type, options)}`,
      required: true,
      content: { [JSON_TYPE]: { schema: ref('schemas', names.create(type.name)) }, ...formContent(type, names, options) },
    },
    responses: errors(
      {
        '201': {
          description: 'Created.',
          headers: { Location: ref('headers', 'Location'), ETag: ref('headers', 'ETag') },
          content: { [JSON_TYPE]: { schema: ref('schemas', names.record(type.name)) } },
        },
      },
      ['BadRequest', 'Conflict', 'ContentTooLarge', 'UnsupportedMediaType'],
      writeForbidden(model, type, names, 'create', bodyFields(type)),
    ),
    ...writeSecurity(model, type, 'create'),
  };
}

function updateOperation(model: Model, type: ResourceType, names: ComponentNames, options: ResourcePathOptions, mode: 'replace' | 'merge'): Operation {
  const body: Record<string, MediaType> =
    mode === 'replace'
      ? { [JSON_TYPE]: { schema: ref('schemas', names.create(type.name)) }, ...formContent(type, names, options) }
      : { [JSON_TYPE]: { schema: ref('schemas', names.patch(type.name)) }, [MERGE_PATCH_TYPE]: { schema: ref('schemas', names.patch(type.name)) } };
  return {
    operationId: `${mode === 'replace' ? 'replace' : 'update'}${type.name}`,
    summary: mode === 'replace' ? `Replace a ${type.name}` : `Update a ${type.name}`,
    description:
      (mode === 'replace'
        ? `Replaces the ${type.name} with the body: fields left out go back to their default, or null.`
        : `Changes the fields given in the body (JSON merge patch, RFC 7396); the others keep their value.`) +
      ` Answers with the record as GET would (without \`fields\`) and its ETag. ${preconditionSentence(options)}`,
    tags: [type.name],
    ...deprecatedBy(type),
    parameters: [ref('parameters', 'id'), ref('parameters', 'If-Match')],
    requestBody: {
      description:
        mode === 'replace'
          ? `The whole new ${type.name}.${formSentence(type, options)}${formSentence(type, options) === '' ? '' : ' A file field left out keeps its file.'}`
          : `The changes.`,
      required: true,
      content: body,
    },
    responses: errors(
      {
        '200': {
          description: 'The record after the write.',
          headers: { ETag: ref('headers', 'ETag') },
          content: { [JSON_TYPE]: { schema: ref('schemas', names.record(type.name)) } },
        },
      },
      ['BadRequest', 'NotFound', 'Conflict', 'PreconditionFailed', 'ContentTooLarge', 'UnsupportedMediaType', ...preconditionRequired(options)],
      writeForbidden(model, type, names, 'update', bodyFields(type)),
    ),
    ...writeSecurity(model, type, 'update'),
  };
}

function deleteOperation(model: Model, type: ResourceType, names: ComponentNames, options: ResourcePathOptions): Operation {
  return {
    operationId: `delete${type.name}`,
    summary: `Delete a ${type.name}`,
    description: `Deletes the ${type.name}. ${onDeleteSentence(model, type)}Its many-to-many links go. ${preconditionSentence(options)}`,
    tags: [type.name],
    ...deprecatedBy(type),
    parameters: [ref('parameters', 'id'), ref('parameters', 'If-Match')],
    responses: errors(
      { '204': { description: 'Deleted.' } },
      [
        'BadRequest',
        'NotFound',
        ...(deleteReach(model, type).size > 0 ? (['Conflict'] as const) : []),
        'PreconditionFailed',
        'ContentTooLarge',
        'UnsupportedMediaType',
        ...preconditionRequired(options),
      ],
      writeForbidden(model, type, names, 'delete', []),
    ),
    ...writeSecurity(model, type, 'delete'),
  };
}

/** What the delete does to each relation pointing at the type, as `@relation(onDelete:)` says (docs/schema.md). */
function onDeleteSentence(model: Model, type: ResourceType): string {
  const edges = deleteReach(model, type).get(type.name) ?? [];
  if (edges.length === 0) return '';
  const action = {
    RESTRICT: 'refuse the delete while any do (409 RELATION_CONFLICT)',
    CASCADE: 'are deleted with it, under their own rules',
    SET_NULL: 'have the relation cleared',
  } as const;
  const parts = edges.map(({ type: referrer, field }) => `${referrer.name} records pointing at it (${referrer.name}.${field.name}) ${action[field.onDelete]}`);
  return `${parts.join('; ')}. `;
}

/** Linking is an update of the record whose list the link goes in (docs/rules.md): its type's update rule and the list's write rule. */
function linkOperation(model: Model, type: ResourceType, relation: ManyToManyRelation, names: ComponentNames, method: 'put' | 'delete'): Operation {
  const add = method === 'put';
  return {
    operationId: `${add ? 'addTo' : 'removeFrom'}${pascal(relation.name)}Of${type.name}`,
    summary: add ? `Add to the ${relation.name} of a ${type.name}` : `Remove from the ${relation.name} of a ${type.name}`,
    description:
      (add
        ? `Links the ${relation.target} \`targetId\` into the ${type.name}'s \`${relation.name}\`.`
        : `Unlinks the ${relation.target} \`targetId\` from the ${type.name}'s \`${relation.name}\`.`) +
      ' Idempotent: doing it twice answers 204 both times. 404 when either record does not exist.',
    tags: [type.name],
    ...deprecatedBy(type, relation),
    parameters: [ref('parameters', 'id'), ref('parameters', 'targetId')],
    responses: errors(
      { '204': { description: add ? 'Linked.' : 'Unlinked.' } },
      ['BadRequest', 'NotFound', 'ContentTooLarge', 'UnsupportedMediaType'],
      writeForbidden(model, type, names, 'update', [relation]),
    ),
    ...writeSecurity(model, type, 'update'),
  };
}

/** For types with file fields: the multipart/form-data body beside the JSON one. */
function formContent(type: ResourceType, names: ComponentNames, options: ResourcePathOptions): Record<string, MediaType> {
  if (options.files !== true || !type.fields.some((field) => field.kind === 'file')) return {};
  return { [FORM_TYPE]: formMediaType(type, names) };
}

function formSentence(type: ResourceType, options: ResourcePathOptions): string {
  if (options.files !== true || !type.fields.some((field) => field.kind === 'file')) return '';
  return (
    ' Or, to send files with it in one request, as multipart/form-data: a text part per field (read as URL text is: `42`, `true`), ' +
    'a part sent as application/json for lists, JSON fields and null, and a file part per file field.'
  );
}

export function preconditionSentence(options: ResourcePathOptions): string {
  return options.requireIfMatch
    ? 'If-Match with the ETag last read is required (428 without it); a stale one answers 412 and nothing changes.'
    : 'With If-Match, the write happens only if the record is unchanged since it was read (412 otherwise, and nothing changes).';
}

export function preconditionRequired(options: ResourcePathOptions): ErrorResponseName[] {
  return options.requireIfMatch ? ['PreconditionRequired'] : [];
}

/**
 * Adds the error responses (by component), the operation's own 403 when it
 * has one, the 401 of a refused credential (any request may carry one) and
 * the two server-side ones. They are listed status by status rather than as
 * `default`, so that a status the server was never meant to send shows up
 * as undocumented.
 */
export function errors(
  responses: Record<string, Response | Reference>,
  names: readonly ErrorResponseName[],
  forbidden?: Response,
): Record<string, Response | Reference> {
  const all: Record<string, Response | Reference> = { ...responses };
  for (const name of names) all[String(ERROR_RESPONSES[name])] = ref('responses', name);
  all['401'] = ref('responses', 'Unauthenticated');
  if (forbidden !== undefined) all['403'] = forbidden;
  all['429'] = ref('responses', 'TooManyRequests');
  all['500'] = ref('responses', 'InternalError');
  all['503'] = ref('responses', 'ServiceUnavailable');
  return all;
}

/** What `@deprecated` marks: a type or a field. */
type Deprecatable = { readonly deprecated: string | undefined; readonly deprecatedDates?: DeprecationDates | undefined };

/**
 * An operation's deprecation, from the things it uses: `deprecated: true`
 * when one of them is, and `x-sunset`, the earliest sunset among them (the
 * date its `Sunset` header gives).
 */
export function deprecatedBy(...items: readonly Deprecatable[]): OperationDeprecation {
  const deprecated = items.filter((item) => item.deprecated !== undefined);
  if (deprecated.length === 0) return {};
  const sunsets = deprecated.flatMap((item) => (item.deprecatedDates?.sunset === undefined ? [] : [item.deprecatedDates.sunset])).sort();
  return { deprecated: true, ...(sunsets[0] === undefined ? {} : { 'x-sunset': sunsets[0] }) };
}

export type OperationDeprecation = { readonly deprecated?: true; readonly 'x-sunset'?: string };

export function pascal(name: string): string {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
