import type { FileField, Model, ResourceType } from '../../schema/model.js';
import { AVIF_MAX_WIDTH, MAX_VARIANT_PIXELS } from '../../files/image-variants.js';
import { IMMUTABLE } from '../../files/file-key.js';
import { FILE_CSP } from '../../files/served-file-headers.js';
import type { ComponentNames } from './component-names.js';
import { ref, type Header, type Operation, type Parameter, type PathItem, type Response } from './openapi-types.js';
import { filePartSchema, IMAGE_TYPES } from './record-schemas.js';
import { deprecatedBy, errors, pascal, preconditionRequired, preconditionSentence, writeForbidden, writeSecurity, type ResourcePathOptions } from './resource-paths.js';

export const FILES_TAG = 'Files';

const FORM_TYPE = 'multipart/form-data';

/**
 * `PUT` and `DELETE /<path>/{id}/<fileField>` for every file field of `type`
 * (as file-routes.ts registers them).
 */
export function fileFieldPaths(model: Model, type: ResourceType, names: ComponentNames, options: ResourcePathOptions): Record<string, PathItem> {
  const paths: Record<string, PathItem> = {};
  for (const field of type.fields) {
    if (field.kind !== 'file') continue;
    paths[`/${type.path}/{id}/${field.name}`] = {
      description: 'Other methods answer 405 Method Not Allowed, with `Allow: PUT, DELETE`.',
      put: uploadOperation(model, type, field, names, options),
      delete: removeOperation(model, type, field, names, options),
    };
  }
  return paths;
}

/** Uploading or removing a file is an update of its record: the type's update rule and the field's write rule. */
function uploadOperation(model: Model, type: ResourceType, field: FileField, names: ComponentNames, options: ResourcePathOptions): Operation {
  return {
    operationId: `upload${pascal(field.name)}Of${type.name}`,
    summary: `Upload the ${field.name} of a ${type.name}`,
    description:
      `Stores the image in the part named \`file\` and points the ${type.name}'s \`${field.name}\` at it, replacing (and, unless another record ` +
      `shares it, deleting) the previous one. The image is judged by its content: JPEG, PNG, WebP, AVIF or GIF (SVG is refused), within the ` +
      `server's size and pixel limits, and fully decodable. Nothing is stored when it is refused or the upload breaks off. Answers with the ` +
      `record as GET would, and its ETag. ${preconditionSentence(options)}`,
    tags: [type.name],
    ...deprecatedBy(type, field),
    parameters: [ref('parameters', 'id'), ref('parameters', 'If-Match')],
    requestBody: {
      description: 'A form with one part, `file`.',
      required: true,
      content: {
        [FORM_TYPE]: {
          schema: { type: 'object', properties: { file: filePartSchema(field.description) }, required: ['file'], additionalProperties: false },
          encoding: { file: { contentType: IMAGE_TYPES.join(', ') } },
        },
      },
    },
    responses: errors(
      {
        '200': {
          description: 'The record after the upload.',
          headers: { ETag: ref('headers', 'ETag') },
          content: { 'application/json': { schema: ref('schemas', names.record(type.name)) } },
        },
      },
      ['BadRequest', 'NotFound', 'PreconditionFailed', 'ContentTooLarge', 'UnsupportedMediaType', ...preconditionRequired(options)],
      writeForbidden(model, type, names, 'update', [field]),
    ),
    ...writeSecurity(model, type, 'update'),
  };
}

function removeOperation(model: Model, type: ResourceType, field: FileField, names: ComponentNames, options: ResourcePathOptions): Operation {
  return {
    operationId: `remove${pascal(field.name)}Of${type.name}`,
    summary: `Remove the ${field.name} of a ${type.name}`,
    description:
      `Sets the ${type.name}'s \`${field.name}\` to null; the file is deleted unless another record shares it. ` +
      `${field.nullable ? '' : `\`${field.name}\` is required, so this answers 400: upload another file instead. `}${preconditionSentence(options)}`,
    tags: [type.name],
    ...deprecatedBy(type, field),
    parameters: [ref('parameters', 'id'), ref('parameters', 'If-Match')],
    responses: errors(
      { '204': { description: 'Removed.' } },
      ['BadRequest', 'NotFound', 'PreconditionFailed', 'ContentTooLarge', 'UnsupportedMediaType', ...preconditionRequired(options)],
      writeForbidden(model, type, names, 'update', [field]),
    ),
    ...writeSecurity(model, type, 'update'),
  };
}

/** `GET`/`HEAD /files/{key}` and `/files/{key}/{width}`. */
export function filesPaths(widths: readonly number[]): Record<string, PathItem> {
  const key: Parameter = {
    name: 'key',
    in: 'path',
    required: true,
    description: 'The file\'s content address, as the URL in a record gives it: the sha256 of its bytes and its format\'s extension.',
    schema: { type: 'string', pattern: '^[0-9a-f]{64}\\.(jpg|png|webp|avif|gif)$' },
  };
  const width: Parameter = {
    name: 'width',
    in: 'path',
    required: true,
    description: 'Width in pixels: one an image field allows (record URLs are always rounded up to one). Any other width is 404.',
    schema: { type: 'integer', enum: [...widths] },
  };
  const original = (method: 'get' | 'head'): Operation => ({
    operationId: `${method}File`,
    summary: method === 'get' ? 'Get a stored file' : 'Check a stored file',
    description:
      'The file as it was uploaded. Its URL is its content, so it never changes: ' +
      `\`Cache-Control: ${IMMUTABLE}\` and a strong ETag (the sha256).${method === 'head' ? ' HEAD answers as GET would, without the body.' : ''}`,
    tags: [FILES_TAG],
    parameters: [key, ref('parameters', 'If-None-Match')],
    responses: fileResponses(method, false),
  });
  const variant = (method: 'get' | 'head'): Operation => ({
    operationId: `${method}FileVariant`,
    summary: method === 'get' ? 'Get a stored image at a width' : 'Check a stored image at a width',
    description:
      'The image resized to `width` pixels wide (height in proportion, after EXIF orientation; never enlarged: a narrower original keeps its ' +
      `size; at most ${MAX_VARIANT_PIXELS} pixels and the format's largest side, a taller image made narrower to fit; an animated one ` +
      `gives its first frame). Made on the first request, then kept. The format follows \`Accept\`: AVIF when the client names image/avif ` +
      `(for widths up to ${AVIF_MAX_WIDTH}; AVIF is slow to encode larger), else WebP when it names image/webp, else the original's format ` +
      '(PNG for WebP and AVIF originals); hence `Vary: Accept`. ' +
      `\`Cache-Control: ${IMMUTABLE}\` and a strong ETag.${method === 'head' ? ' HEAD answers as GET would, without the body.' : ''}`,
    tags: [FILES_TAG],
    parameters: [key, width, ref('parameters', 'If-None-Match')],
    responses: fileResponses(method, true),
  });
  return {
    '/files/{key}': {
      description: 'Other methods answer 405 Method Not Allowed, with `Allow: GET, HEAD`.',
      get: original('get'),
      head: original('head'),
    },
    '/files/{key}/{width}': {
      description: 'Other methods answer 405 Method Not Allowed, with `Allow: GET, HEAD`.',
      get: variant('get'),
      head: variant('head'),
    },
  };
}

function fileResponses(method: 'get' | 'head', variant: boolean): Record<string, Response | { $ref: string }> {
  const headers: Record<string, Header | { $ref: string }> = {
    ETag: ref('headers', 'ETag'),
    'Cache-Control': { description: `Always \`${IMMUTABLE}\`: the URL names the content.`, required: true, schema: { type: 'string' } },
    ...(variant ? { Vary: { description: 'Accept: the format depends on it.', required: true, schema: { type: 'string' } } } : {}),
    'Content-Security-Policy': {
      description: `Always \`${FILE_CSP}\`: the bytes are an uploader's, so a browser opening the file runs and loads nothing from it.`,
      required: true,
      schema: { type: 'string' },
    },
    'X-Content-Type-Options': { description: 'Always `nosniff`: the type is the server\'s, judged from the content.', required: true, schema: { type: 'string' } },
    'Content-Disposition': {
      description: variant
        ? '`inline; filename="<sha256>-<width>.<extension of the format served>"`.'
        : '`inline; filename="<key>"`.',
      required: true,
      schema: { type: 'string' },
    },
  };
  const ok: Response =
    method === 'get'
      ? {
          description: variant ? 'The resized image.' : 'The file.',
          headers,
          content: Object.fromEntries(IMAGE_TYPES.map((type) => [type, { schema: { type: 'string', contentMediaType: type } }])),
        }
      : { description: 'The headers GET would send, without a body.', headers };
  return errors({ '200': ok, '304': ref('responses', 'NotModified') }, ['NotFound']);
}
