import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';

/**
 * Checks real responses against the generated OpenAPI document: the status
 * must be documented for the operation (or covered by `default`), the
 * content type must be one the response lists, the body must match its
 * schema (JSON Schema 2020-12, as OpenAPI 3.1 says), and, when headers are
 * given, every header the response marks `required` must be there.
 *
 *   const validator = createResponseValidator(document);
 *   expect(validator.validate('GET', '/users/abc?fields=name', 200, 'application/json', body, headers)).toEqual([]);
 *
 * `path` may be the document's template (`/users/{id}`), Fastify's
 * (`/users/:id`) or a concrete URL (`/users/abc?x=1`): the query is ignored
 * and the most specific template that matches is used.
 *
 * A method a path does not have is answered 405 by the server; OpenAPI has
 * no place to document that per method, so it is checked here as the path
 * descriptions state it: 405, problem+json, and an `Allow` header.
 */
export interface ResponseValidator {
  /** Every way the response departs from the document; empty when it conforms. */
  validate(
    method: string,
    path: string,
    status: number,
    contentType: string | null | undefined,
    body: unknown,
    headers?: Headers | Readonly<Record<string, string | undefined>>,
  ): string[];
  /** The operation a request goes to, or undefined (for coverage checks). */
  operationOf(method: string, path: string): { readonly template: string; readonly operationId: string } | undefined;
}

type Json = Record<string, unknown>;

const DOCUMENT_ID = 'urn:diglot:openapi';
const PROBLEM_CONTENT_TYPE = 'application/problem+json';
const NO_BODY_STATUSES = new Set([204, 205, 304]);

export function createResponseValidator(document: object): ResponseValidator {
  // References point into the document (`#/components/schemas/User`); the
  // schemas are registered under one id, so rewrite them to point there.
  const doc = rewriteRefs(structuredClone(document)) as Json;
  const components = (doc['components'] ?? {}) as Json;
  const schemas = (components['schemas'] ?? {}) as Json;
  const responsesById = (components['responses'] ?? {}) as Json;
  const headersById = (components['headers'] ?? {}) as Json;
  const paths = (doc['paths'] ?? {}) as Record<string, Json>;

  const ajv = new Ajv2020({ strict: true, allErrors: true });
  // ajv-formats is CommonJS: Node hands its module.exports over as the default export.
  addFormats.default(ajv);
  // The document's own annotations on deprecated things (OpenAPI 3.1 allows `x-` extensions on schemas): strict mode knows them, and still refuses any other keyword.
  ajv.addKeyword('x-sunset').addKeyword('x-deprecated-enum-values');
  ajv.addSchema({ $id: DOCUMENT_ID, $defs: schemas });
  const compiled = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: Json): ValidateFunction => {
    let validate = compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile(schema);
      compiled.set(key, validate);
    }
    return validate;
  };

  const resolve = (value: unknown, section: Json): Json | undefined => {
    if (typeof value !== 'object' || value === null) return undefined;
    const reference = (value as Json)['$ref'];
    if (typeof reference !== 'string') return value as Json;
    const name = decodePointer(reference.slice(reference.lastIndexOf('/') + 1));
    return section[name] as Json | undefined;
  };

  // Compile every documented body up front: a schema ajv cannot take (strict mode) fails here, not mid-test.
  for (const [template, item] of Object.entries(paths)) {
    for (const [verb, operation] of Object.entries(item)) {
      if (typeof operation !== 'object' || operation === null || !('responses' in operation)) continue;
      for (const [status, entry] of Object.entries((operation as Json)['responses'] as Json)) {
        const content = (resolve(entry, responsesById)?.['content'] ?? {}) as Record<string, Json>;
        for (const [mediaType, media] of Object.entries(content)) compile(`${verb} ${template} ${status} ${mediaType}`, media['schema'] as Json);
      }
    }
  }

  // The problem schema as every error response uses it (its name may be `Diglot.Problem`).
  const unexpected = responsesById['InternalError'] as { content?: Record<string, Json> } | undefined;
  const problemResponse = { content: { [PROBLEM_CONTENT_TYPE]: unexpected?.content?.[PROBLEM_CONTENT_TYPE] ?? { schema: { $ref: `${DOCUMENT_ID}#/$defs/Problem` } } } };

  const templates = Object.keys(paths).map((template) => ({ template, segments: template.split('/') }));
  const findTemplate = (path: string): string | undefined => {
    const bare = (path.split('?')[0] ?? '').replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    if (Object.hasOwn(paths, bare)) return bare;
    const segments = bare.split('/');
    let best: { template: string; literal: number } | undefined;
    for (const candidate of templates) {
      if (candidate.segments.length !== segments.length) continue;
      let literal = 0;
      const fits = candidate.segments.every((segment, i) => {
        if (/^\{[^}]+\}$/.test(segment)) return (segments[i] ?? '') !== '';
        if (segment !== decodeURIComponent(segments[i] ?? '')) return false;
        literal += 1;
        return true;
      });
      if (fits && (best === undefined || literal > best.literal)) best = { template: candidate.template, literal };
    }
    return best?.template;
  };

  const checkHeaders = (response: Json, headers: ResponseHeaders | undefined, where: string, problems: string[]): void => {
    if (headers === undefined) return;
    for (const [name, header] of Object.entries((response['headers'] ?? {}) as Json)) {
      const definition = resolve(header, headersById);
      if (definition?.['required'] === true && readHeader(headers, name) === undefined) problems.push(`${where}: header ${name} is required but missing`);
    }
  };

  const checkBody = (key: string, response: Json, contentType: string | null | undefined, body: unknown, bodyless: boolean, where: string, problems: string[]): void => {
    const content = response['content'] as Record<string, Json> | undefined;
    const empty = body === undefined || body === '';
    if (bodyless || content === undefined) {
      if (!empty) problems.push(`${where}: no body is documented, but one was sent`);
      return;
    }
    const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
    const media = content[mediaType];
    if (media === undefined) {
      problems.push(`${where}: content type "${mediaType}" is not documented (documented: ${Object.keys(content).join(', ')})`);
      return;
    }
    if (empty) {
      problems.push(`${where}: a ${mediaType} body is documented, but none was sent`);
      return;
    }
    const validate = compile(`${key} ${mediaType}`, media['schema'] as Json);
    if (!validate(body)) problems.push(...(validate.errors ?? []).map((error) => `${where}: body${formatError(error)}`));
  };

  const operationOf = (method: string, path: string): { template: string; operationId: string } | undefined => {
    const template = findTemplate(path);
    if (template === undefined) return undefined;
    const operation = paths[template]?.[method.toLowerCase()] as Json | undefined;
    return operation === undefined ? undefined : { template, operationId: String(operation['operationId']) };
  };

  return {
    operationOf,
    validate(method, path, status, contentType, body, headers) {
      const problems: string[] = [];
      const verb = method.toLowerCase();
      const template = findTemplate(path);
      const where = `${method.toUpperCase()} ${template ?? path} → ${status}`;
      if (template === undefined) return [`${where}: no path of the document matches ${path}`];
      const item = paths[template] as Json;
      const operation = item[verb] as Json | undefined;
      const bodyless = verb === 'head' || NO_BODY_STATUSES.has(status);
      if (operation === undefined) {
        // The server answers 405 for every other method of a documented path (see the path's description).
        if (status !== 405) return [`${where}: ${method.toUpperCase()} is not an operation of ${template}, so only 405 may answer it`];
        if (headers !== undefined && readHeader(headers, 'allow') === undefined) problems.push(`${where}: a 405 must carry Allow`);
        checkBody('405', problemResponse, contentType, body, bodyless, where, problems);
        return problems;
      }
      const responses = operation['responses'] as Json;
      const byClass = `${String(status).charAt(0)}XX`;
      const chosen = [String(status), byClass, 'default'].find((key) => Object.hasOwn(responses, key));
      if (chosen === undefined) return [`${where}: status ${status} is not documented for ${String(operation['operationId'])}`];
      const response = resolve(responses[chosen], responsesById);
      if (response === undefined) return [`${where}: response ${chosen} does not resolve`];
      checkHeaders(response, headers, where, problems);
      checkBody(`${verb} ${template} ${chosen}`, response, contentType, body, bodyless, where, problems);
      return problems;
    },
  };
}

type ResponseHeaders = Headers | Readonly<Record<string, string | undefined>>;

function readHeader(headers: ResponseHeaders, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : headers[key];
}

function rewriteRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(rewriteRefs);
  if (typeof value !== 'object' || value === null) return value;
  const out: Json = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] =
      key === '$ref' && typeof item === 'string' && item.startsWith('#/components/schemas/')
        ? `${DOCUMENT_ID}#/$defs/${item.slice('#/components/schemas/'.length)}`
        : rewriteRefs(item);
  }
  return out;
}

function decodePointer(segment: string): string {
  return segment.replaceAll('~1', '/').replaceAll('~0', '~');
}

function formatError(error: ErrorObject): string {
  const params = error.keyword === 'additionalProperties' ? ` (${String((error.params as { additionalProperty?: string }).additionalProperty)})` : '';
  return `${error.instancePath} ${error.message ?? error.keyword}${params}`;
}
