import { Validator } from '@seriousme/openapi-schema-validator';
import { Document, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_REGISTRY } from '../../errors/registry.js';
import { loadSchema, loadSchemaFiles } from '../../schema/load-schema.js';
import type { Model } from '../../schema/model.js';
import { ADMIN_TAG } from './admin-paths.js';
import { buildOpenApiDocument, type OpenApiOptions } from './build-openapi-document.js';
import { HTTP_METHODS, type JsonSchema, type OpenApiDocument, type Operation } from './openapi-types.js';

const EXAMPLE = new URL('../../../examples/social/schema.graphql', import.meta.url).pathname;

/** A schema with what the example lacks: a deprecated type and relation, and type names that collide with generated ones. */
const EDGE_SDL = `
  type Author {
    id: ID!
    name: String!
    books: [Book!]! @relation(inverse: "author")
    oldBooks: [Book!]! @relation(inverse: "oldAuthor") @deprecated(reason: "Use books.")
  }
  type Book @deprecated(reason: "Books are now Works.") {
    id: ID!
    title: String!
    author: Author!
    oldAuthor: Author @deprecated(reason: "Use author.")
  }
  type AuthorList { id: ID! note: String }
  type Problem { id: ID! summary: String }
  type Tagless { id: ID! }
`;

/**
 * Permission rules of every kind an operation's 403 depends on: a type open
 * to all, one with a field read rule and a field write rule, one reaching
 * that field through a relation, a link with a write rule, and a type
 * without rules (the admin's alone, once the schema has rules).
 */
const RULES_SDL = `
  enum Role @roles(admin: "ADMIN") { MEMBER ADMIN }
  type Page @allow(read: "true", create: "true", update: "true", delete: "true") {
    id: ID!
    title: String!
  }
  type Note @allow(read: "true", create: "true", update: "owner == auth.id", delete: "false") {
    id: ID!
    owner: String
    body: String!
    secret: String @allow(read: "owner == auth.id")
    pinned: Boolean @allow(write: "auth.role == ADMIN")
    board: Board
  }
  type Board @allow(read: "true", create: "true", update: "true", delete: "true") {
    id: ID!
    name: String!
    notes: [Note!]!
    tags: [Tag!]! @allow(write: "false")
  }
  type Tag @allow(read: "true") { id: ID! label: String! boards: [Board!]! }
  type Vault { id: ID! label: String }
`;

let example: Model;
let document: OpenApiDocument;

beforeAll(async () => {
  const loaded = await loadSchemaFiles([EXAMPLE]);
  if (!loaded.ok) throw new Error(`example schema does not load: ${JSON.stringify(loaded.problems)}`);
  example = loaded.model;
  document = buildOpenApiDocument(example);
});

/** A type, its many-to-many lists and a file field renamed with `@renamed`; the type deprecated too, with a sunset. */
const RENAMED_SDL = `
  type Label @renamed(from: "Tag") @deprecated(reason: "Use categories.", sunset: "2027-06-30") {
    id: ID!
    name: String!
    icon(size: Int): String @image(sizes: [64]) @renamed(from: "picture")
    notes: [Note!]!
  }
  type Note {
    id: ID!
    title: String!
    labels: [Label!]! @renamed(from: "tags")
  }
`;

function edgeModel(): Model {
  return modelOf('edge.graphql', EDGE_SDL);
}

function modelOf(file: string, text: string): Model {
  const loaded = loadSchema([{ file, text }]);
  if (!loaded.ok) throw new Error(`${file} does not load: ${JSON.stringify(loaded.problems)}`);
  return loaded.model;
}

async function validate(doc: object): Promise<{ valid: boolean; errors: unknown }> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(doc) as Record<string, unknown>);
  expect(validator.version).toBe('3.1');
  return { valid: result.valid, errors: result.errors };
}

/** Spectral's `spectral:oas` ruleset, as is: every error and warning, as text. */
async function lint(doc: object): Promise<string[]> {
  const spectral = new Spectral();
  spectral.setRuleset({ extends: [oas] } as Parameters<Spectral['setRuleset']>[0]);
  const results = await spectral.run(new Document(JSON.stringify(doc, null, 2), Json, 'openapi.json'));
  // DiagnosticSeverity: 0 error, 1 warning, 2 information, 3 hint.
  return results.filter((result) => (result.severity as number) <= 1).map((result) => `${String(result.code)} at ${result.path.join('.')}: ${result.message}`);
}

function operations(doc: OpenApiDocument): [string, Operation][] {
  return Object.entries(doc.paths).flatMap(([path, item]) =>
    HTTP_METHODS.flatMap((method): [string, Operation][] => {
      const operation = item[method];
      return operation === undefined ? [] : [[`${method.toUpperCase()} ${path}`, operation]];
    }),
  );
}

function schema(doc: OpenApiDocument, name: string): JsonSchema & { properties: Record<string, JsonSchema> } {
  const found = doc.components.schemas[name];
  if (found === undefined) throw new Error(`no schema ${name}`);
  return found as JsonSchema & { properties: Record<string, JsonSchema> };
}

describe('the OpenAPI document', () => {
  const variants: [string, () => Model, OpenApiOptions][] = [
    ['the example schema', () => example, {}],
    ['the example schema, If-Match required', () => example, { requireIfMatch: true, limits: { defaultPageSize: 5, maxPageSize: 50 } }],
    ['the example schema, with a file store', () => example, { files: true }],
    ['the example schema, with a file store and If-Match required', () => example, { files: true, requireIfMatch: true }],
    ['a schema with deprecated types and colliding names', edgeModel, {}],
    ['a schema with every kind of permission rule, with a file store', () => modelOf('rules.graphql', RULES_SDL), { files: true }],
    ['a schema with renamed types, lists and file fields, with a file store', () => modelOf('renamed.graphql', RENAMED_SDL), { files: true }],
  ];
  for (const [name, model, options] of variants) {
    it(`is valid OpenAPI 3.1 and clean under spectral:oas, for ${name}`, async () => {
      const doc = buildOpenApiDocument(model(), options);
      expect(await validate(doc)).toEqual({ valid: true, errors: undefined });
      expect(await lint(doc)).toEqual([]);
    });
  }

  it('is checked by a ruleset that does find problems', async () => {
    // The lint above would pass vacuously if the ruleset were not loaded.
    const broken = structuredClone(document) as unknown as { paths: Record<string, Record<string, Record<string, unknown>>>; info: Record<string, unknown> };
    delete broken.info['contact'];
    const list = broken.paths['/users']?.['get'];
    if (list === undefined) throw new Error('no GET /users');
    delete list['description'];
    const findings = await lint(broken);
    expect(findings.some((finding) => finding.startsWith('info-contact'))).toBe(true);
    expect(findings.some((finding) => finding.startsWith('operation-description at paths./users.get'))).toBe(true);
  });

  it('gives components real names, stepping aside for the user\'s own types', () => {
    const names = Object.keys(document.components.schemas);
    expect(names.filter((name) => /^def-\d+$/.test(name))).toEqual([]);
    for (const type of ['User', 'Post', 'Product', 'Order', 'OrderItem']) {
      for (const suffix of ['', 'Create', 'Patch', 'List', 'Filter']) expect(names).toContain(`${type}${suffix}`);
    }
    expect(names).toEqual(expect.arrayContaining(['Role', 'Theme', 'PostStatus', 'OrderStatus', 'Problem', 'ProblemItem', 'ErrorCode']));

    const edge = buildOpenApiDocument(edgeModel());
    expect(Object.keys(edge.components.schemas)).toEqual(expect.arrayContaining(['AuthorList', 'Author.List', 'Problem', 'Diglot.Problem']));
    expect(schema(edge, 'AuthorList').properties).toHaveProperty('note');
    expect(schema(edge, 'Author.List').properties).toHaveProperty('hasMore');
    expect(schema(edge, 'Diglot.Problem').properties).toHaveProperty('code');
  });

  it('marks deprecated fields on every schema that has them, and operations of deprecated types and relations', () => {
    for (const name of ['User', 'UserCreate', 'UserPatch']) expect(schema(document, name).properties['handle']).toMatchObject({ deprecated: true });
    expect(schema(document, 'UserFilter').properties['handle']).toMatchObject({ deprecated: true });
    expect(schema(document, 'Product').properties['priceCents']).toMatchObject({ deprecated: true });
    expect(schema(document, 'Product').properties['priceCents']?.['description']).toContain('Deprecated: Use price.');
    expect(schema(document, 'User').properties['name']).not.toHaveProperty('deprecated');
    expect(operations(document).filter(([, operation]) => operation.deprecated === true)).toEqual([]);

    const edge = buildOpenApiDocument(edgeModel());
    const deprecated = operations(edge)
      .filter(([, operation]) => operation.deprecated === true)
      .map(([route]) => route)
      .sort();
    expect(deprecated).toEqual(
      [
        'GET /books',
        'HEAD /books',
        'POST /books',
        'GET /books/{id}',
        'HEAD /books/{id}',
        'PUT /books/{id}',
        'PATCH /books/{id}',
        'DELETE /books/{id}',
        // Sub-collections of a deprecated type, and a deprecated relation.
        'GET /authors/{id}/books',
        'HEAD /authors/{id}/books',
        'GET /authors/{id}/oldBooks',
        'HEAD /authors/{id}/oldBooks',
      ].sort(),
    );
    expect(schema(edge, 'Book')).toMatchObject({ deprecated: true });
    expect(schema(edge, 'Book')['description']).toContain('Deprecated: Books are now Works.');
    expect(schema(edge, 'Book').properties['oldAuthor']).toMatchObject({ deprecated: true });
  });

  it('lists the old paths @renamed keeps answering: deprecated, with their old operationIds, the sunset, and the current shapes', () => {
    const doc = buildOpenApiDocument(modelOf('renamed.graphql', RENAMED_SDL), { files: true });
    const byRoute = new Map(operations(doc));
    const old = {
      'GET /tags': 'listTags',
      'POST /tags': 'createTag',
      'DELETE /tags/{id}': 'deleteTag',
      'GET /tags/{id}/notes': 'listNotesOfTag',
      'PUT /tags/{id}/notes/{targetId}': 'addToNotesOfTag',
      'PUT /tags/{id}/picture': 'uploadPictureOfTag',
      'GET /notes/{id}/tags': 'listTagsOfNote',
    };
    for (const [route, operationId] of Object.entries(old)) {
      expect(byRoute.get(route), route).toMatchObject({ operationId, deprecated: true, 'x-sunset': '2027-06-30' });
      expect(byRoute.get(route)?.description, route).toMatch(/^Deprecated: an old path kept by `@renamed`/);
    }
    // Linking writes the note, which is not deprecated: the rename alone marks it, with no sunset.
    expect(byRoute.get('DELETE /notes/{id}/tags/{targetId}')).toMatchObject({ operationId: 'removeFromTagsOfNote', deprecated: true });
    expect(byRoute.get('DELETE /notes/{id}/tags/{targetId}')).not.toHaveProperty('x-sunset');
    // What a client of the document before the rename called, not every mix of old and new names the server also answers.
    expect(byRoute.has('PUT /tags/{id}/icon')).toBe(false);
    // The current paths keep their own ids; the old ones answer with the same shapes.
    expect(byRoute.get('GET /labels')).toMatchObject({ operationId: 'listLabels', deprecated: true, 'x-sunset': '2027-06-30' });
    expect(byRoute.get('GET /notes/{id}/labels')?.operationId).toBe('listLabelsOfNote');
    expect(byRoute.get('GET /tags')?.responses).toEqual(byRoute.get('GET /labels')?.responses);
    // Embedding a renamed list under its old name takes the same parameters, deprecated.
    expect(doc.components.parameters['Note.tags.fields']).toMatchObject({ name: 'tags.fields', deprecated: true });
    expect(doc.components.parameters['Note.labels.fields']).not.toHaveProperty('deprecated');
    const include = doc.components.parameters['Note.include']?.schema as { items: { anyOf: { enum?: string[] }[] } };
    expect(include.items.anyOf[0]?.enum).toEqual(['labels', 'tags']);
  });

  it('describes input bodies as validateInput accepts them', () => {
    const create = schema(document, 'UserCreate');
    expect(create['required']).toEqual(['name', 'email']);
    expect(create['additionalProperties']).toBe(false);
    for (const managed of ['id', 'createdAt', 'updatedAt', 'posts', 'followers']) expect(create.properties).not.toHaveProperty(managed);
    // @readonly with a write rule: input for those the rule allows.
    expect(create.properties).toHaveProperty('suspendedReason');
    expect(create.properties['role']).toMatchObject({ $ref: '#/components/schemas/Role', default: 'MEMBER' });
    expect(create.properties['profilePicture']).toMatchObject({ type: 'null' });
    expect(create.properties['birthday']).toMatchObject({ type: ['string', 'null'], format: 'date-time' });
    // author is taken from the caller when left out (@default(fromAuth: "id")).
    expect(schema(document, 'PostCreate')['required']).toEqual(['title', 'body']);
    expect(schema(document, 'PostCreate').properties['author']).toMatchObject({ type: 'string', minLength: 1 });
    expect(schema(document, 'ProductCreate').properties).not.toHaveProperty('soldCount');

    const patch = schema(document, 'UserPatch');
    expect(patch).not.toHaveProperty('required');
    expect(patch['additionalProperties']).toBe(false);
    expect(Object.keys(patch.properties)).toEqual(Object.keys(create.properties));
    const update = document.paths['/users/{id}']?.patch;
    expect(Object.keys(update?.requestBody?.content ?? {})).toEqual(['application/json', 'application/merge-patch+json']);
    expect(document.paths['/users/{id}']?.put?.requestBody?.content['application/json']?.schema).toEqual({ $ref: '#/components/schemas/UserCreate' });
  });

  it('describes records as the engine renders them', () => {
    const user = schema(document, 'User');
    expect(user['additionalProperties']).toBe(false);
    expect(user).not.toHaveProperty('required');
    expect(user.properties['createdAt']).toMatchObject({ type: 'string', format: 'date-time', readOnly: true });
    expect(user.properties['interests']).toMatchObject({ type: ['array', 'null'], items: { type: 'string' } });
    expect(user.properties['preferences']).not.toHaveProperty('type');
    // Read only by the user themself: null on other users' records, though the SDL says String!.
    expect(user.properties['email']).toMatchObject({ type: ['string', 'null'] });
    expect(user.properties['name']).toMatchObject({ type: 'string' });
    expect(user.properties['posts']).toMatchObject({ type: 'array', items: { $ref: '#/components/schemas/Post' } });
    expect(schema(document, 'Product').properties['stock']).toMatchObject({ type: 'integer', format: 'int32', minimum: -(2 ** 31), maximum: 2 ** 31 - 1 });
    expect(schema(document, 'Post').properties['author']).toMatchObject({
      oneOf: [{ type: 'string' }, { $ref: '#/components/schemas/User' }],
    });
    expect(schema(document, 'UserList')['required']).toEqual(['data', 'hasMore', 'nextCursor', 'prevCursor']);
    expect(schema(document, 'ErrorCode')['enum']).toEqual(Object.keys(ERROR_REGISTRY));
  });

  it('documents the query grammar, caching headers and error responses of each route', () => {
    const list = document.paths['/users']?.get;
    const refs = (list?.parameters ?? []).map((parameter) => ('$ref' in parameter ? parameter.$ref.replace('#/components/parameters/', '') : parameter.name));
    expect(refs).toEqual(
      expect.arrayContaining(['User.fields', 'User.include', 'User.filter', 'User.sort', 'limit', 'after', 'before', 'count', 'User.profilePicture.size', 'User.posts.limit', 'User.posts.filter', 'If-None-Match']),
    );
    expect(document.components.parameters['User.filter']).toMatchObject({ name: 'filter', in: 'query', style: 'deepObject', explode: true });
    expect(document.components.parameters['User.posts.filter']).toMatchObject({
      name: 'posts.filter',
      style: 'deepObject',
      schema: { allOf: [{ $ref: '#/components/schemas/PostFilter' }] },
    });
    expect(document.components.parameters['limit']?.schema).toMatchObject({ default: 20, maximum: 100 });
    expect(schema(document, 'PostFilter').properties['status']).toMatchObject({ description: 'Operators: eq, ne, lt, lte, gt, gte, in, isNull.' });
    expect(schema(document, 'UserFilter').properties).not.toHaveProperty('preferences');

    expect(Object.keys(list?.responses ?? {})).toEqual(['200', '304', '400', '401', '403', '429', '500', '503']);
    expect(list?.responses['200']).toMatchObject({ headers: { ETag: {}, 'Cache-Control': {}, Link: {} } });
    const create = document.paths['/users']?.post;
    expect(Object.keys(create?.responses ?? {}).sort()).toEqual(['201', '400', '401', '403', '409', '413', '415', '429', '500', '503']);
    expect(create?.responses['201']).toMatchObject({ headers: { Location: {}, ETag: {} } });
    const item = document.paths['/users/{id}'];
    expect(Object.keys(item?.put?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403', '404', '409', '412', '413', '415', '429', '500', '503']);
    expect(item?.description).toContain('Allow: GET, HEAD, PUT, PATCH, DELETE');
    expect(document.paths['/users/{id}/following/{targetId}']?.put?.operationId).toBe('addToFollowingOfUser');

    const strict = buildOpenApiDocument(example, { requireIfMatch: true });
    expect(strict.paths['/users/{id}']?.delete?.responses).toHaveProperty('428');
    expect(document.paths['/users/{id}']?.delete?.responses).not.toHaveProperty('428');
    expect(document.components.responses).not.toHaveProperty('PreconditionRequired');
    // A delete says what it does to the records pointing at the record, and documents the 409 of RESTRICT.
    const deleteUser = document.paths['/users/{id}']?.delete;
    expect(Object.keys(deleteUser?.responses ?? {})).toContain('409');
    expect(deleteUser?.description).toContain('Post records pointing at it (Post.author) are deleted with it');
    expect(deleteUser?.description).toContain('Order records pointing at it (Order.customer) refuse the delete while any do (409 RELATION_CONFLICT)');
    expect(document.components.responses['Conflict']?.description).toContain('RELATION_CONFLICT');
    expect(Object.keys(document.paths['/order-items/{id}']?.delete?.responses ?? {})).not.toContain('409');
  });

  it('describes uploads, multipart bodies and file URLs when the server has a file store', () => {
    const withFiles = buildOpenApiDocument(example, { files: true });
    expect(document.paths).not.toHaveProperty('/files/{key}');
    expect(document.paths).not.toHaveProperty('/users/{id}/profilePicture');

    const upload = withFiles.paths['/users/{id}/profilePicture'];
    expect(upload?.put?.operationId).toBe('uploadProfilePictureOfUser');
    expect(upload?.put?.requestBody?.content['multipart/form-data']).toMatchObject({
      schema: { required: ['file'], properties: { file: { contentMediaType: 'application/octet-stream' } } },
      encoding: { file: { contentType: 'image/jpeg, image/png, image/webp, image/avif, image/gif' } },
    });
    expect(Object.keys(upload?.put?.responses ?? {}).sort()).toEqual(['200', '400', '401', '403', '404', '412', '413', '415', '429', '500', '503']);
    expect(Object.keys(upload?.delete?.responses ?? {})).toContain('204');
    expect(withFiles.paths['/posts/{id}/cover']?.put?.operationId).toBe('uploadCoverOfPost');
    expect(withFiles.paths['/orders/{id}/note']).toBeUndefined();

    // POST and PUT take a form for types with files; PATCH stays JSON.
    const create = withFiles.paths['/users']?.post?.requestBody?.content;
    expect(Object.keys(create ?? {})).toEqual(['application/json', 'multipart/form-data']);
    expect(create?.['multipart/form-data']?.encoding).toMatchObject({ profilePicture: {}, interests: { contentType: 'application/json' } });
    expect(Object.keys(withFiles.paths['/users/{id}']?.put?.requestBody?.content ?? {})).toEqual(['application/json', 'multipart/form-data']);
    expect(Object.keys(withFiles.paths['/users/{id}']?.patch?.requestBody?.content ?? {})).toEqual(['application/json', 'application/merge-patch+json']);
    expect(Object.keys(withFiles.paths['/orders']?.post?.requestBody?.content ?? {})).toEqual(['application/json']);
    const form = schema(withFiles, 'UserForm');
    expect(form['required']).toEqual(['name', 'email']);
    expect(form.properties['profilePicture']).toMatchObject({ type: 'string', contentMediaType: 'application/octet-stream' });

    const variant = withFiles.paths['/files/{key}/{width}']?.get;
    expect(variant?.parameters).toContainEqual(expect.objectContaining({ name: 'width', schema: { type: 'integer', enum: [32, 64, 128, 256, 320, 512, 640, 1280] } }));
    expect(Object.keys(variant?.responses['200'] && 'content' in variant.responses['200'] ? (variant.responses['200'].content ?? {}) : {})).toEqual([
      'image/jpeg',
      'image/png',
      'image/webp',
      'image/avif',
      'image/gif',
    ]);
    expect(withFiles.paths['/files/{key}']?.head?.operationId).toBe('headFile');
    expect(withFiles.tags.map((tag) => tag.name)).toContain('Files');
  });

  it('says how to authenticate: two bearer schemes, anonymous allowed, and a 401 with its challenge on every operation', () => {
    expect(document.components.securitySchemes).toEqual({
      bearerAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: expect.stringContaining('JWT') },
      apiKey: { type: 'http', scheme: 'bearer', description: expect.stringContaining('dk_') },
    });
    expect(document.security).toEqual([{}, { bearerAuth: [] }, { apiKey: [] }]);

    for (const doc of [document, buildOpenApiDocument(example, { files: true }), buildOpenApiDocument(edgeModel())]) {
      const all = operations(doc);
      expect(all.length).toBeGreaterThan(20);
      for (const [route, operation] of all) {
        const refused = operation.responses['401'];
        // The accounts flows that have 401s of their own say both in one response.
        if (route.startsWith('POST /auth/') && refused !== undefined && !('$ref' in refused)) expect(refused.description, route).toMatch(/Codes: UNAUTHENTICATED, /);
        else expect(refused, route).toEqual({ $ref: '#/components/responses/Unauthenticated' });
      }
    }
    const unauthenticated = document.components.responses['Unauthenticated'];
    expect(unauthenticated?.description).toContain('Codes: UNAUTHENTICATED.');
    expect(unauthenticated?.headers).toEqual({ 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } });
    expect(unauthenticated?.content).toHaveProperty(['application/problem+json']);
    expect(document.components.headers['WWW-Authenticate']).toMatchObject({ required: true, description: expect.stringContaining('invalid_token') });
  });

  it('documents 503 as every outage it stands for, each with its Retry-After', () => {
    const unavailable = document.components.responses['ServiceUnavailable'];
    expect(unavailable?.description).not.toMatch(/database does not answer/i);
    expect(unavailable?.description).toContain('Codes: AUTHENTICATION_UNAVAILABLE, DATABASE_UNAVAILABLE, DATABASE_TIMEOUT, QUERY_TIMEOUT, FILE_STORE_UNAVAILABLE.');
    expect(unavailable?.headers).toEqual({ 'Retry-After': { $ref: '#/components/headers/Retry-After' } });
    const retryAfter = document.components.headers['Retry-After'];
    expect(retryAfter?.required).toBe(true);
    for (const [code, entry] of Object.entries(ERROR_REGISTRY)) {
      if (entry.status === 503) expect(retryAfter?.description).toContain(`\`${code}\` ${String((entry as { retryAfter?: number }).retryAfter)}`);
    }
    // A credential is checked on these routes too.
    for (const route of ['/healthz', '/openapi.json']) expect(document.paths[route]?.get?.responses).toMatchObject({ '401': {}, '503': {} });
  });

  it('gives each operation the 403 codes its rules can refuse it with', () => {
    const doc = buildOpenApiDocument(modelOf('rules.graphql', RULES_SDL), { files: true });
    const codes = (path: string, method: 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete'): string[] => {
      const operation = doc.paths[path]?.[method];
      if (operation === undefined) throw new Error(`no operation ${method} ${path}`);
      const response = operation.responses['403'];
      if (response === undefined) return [];
      if ('$ref' in response) throw new Error(`${method} ${path}: a shared 403 cannot say which codes this operation has`);
      return /Codes: ([A-Z_, ]+)\./.exec(response.description)?.[1]?.split(', ') ?? [];
    };
    const crossSite = 'CROSS_SITE_REQUEST_REFUSED';

    // Open to all, fields without rules: only a cross-site write is refused.
    expect(codes('/pages', 'get')).toEqual([]);
    expect(codes('/pages/{id}', 'head')).toEqual([]);
    expect(codes('/pages', 'post')).toEqual([crossSite]);
    expect(codes('/pages/{id}', 'delete')).toEqual([crossSite]);

    // A field read rule: reads naming it; a field write rule: creates and updates that set it.
    for (const [path, method] of [['/notes', 'get'], ['/notes', 'head'], ['/notes/{id}', 'get']] as const) expect(codes(path, method)).toEqual(['FIELD_FORBIDDEN']);
    expect(codes('/notes', 'post')).toEqual([crossSite, 'FIELD_FORBIDDEN']);
    expect(codes('/notes/{id}', 'put')).toEqual([crossSite, 'FORBIDDEN', 'FIELD_FORBIDDEN']);
    expect(codes('/notes/{id}', 'patch')).toEqual([crossSite, 'FORBIDDEN', 'FIELD_FORBIDDEN']);
    expect(codes('/notes/{id}', 'delete')).toEqual([crossSite, 'FORBIDDEN']);

    // Boards have no rule of their own on fields, but `include=notes` reaches Note.secret.
    expect(codes('/boards', 'get')).toEqual(['FIELD_FORBIDDEN']);
    expect(codes('/boards/{id}/notes', 'get')).toEqual(['FIELD_FORBIDDEN']);
    expect(codes('/boards', 'post')).toEqual([crossSite]);
    // A link is an update of the board, and `tags` may not be written but by admins.
    expect(codes('/boards/{id}/tags/{targetId}', 'put')).toEqual([crossSite, 'FIELD_FORBIDDEN']);
    expect(codes('/tags/{id}/boards/{targetId}', 'delete')).toEqual([crossSite, 'FORBIDDEN']);

    // No rule at all: reads hide records rather than refuse; every write is the admin's.
    expect(codes('/vaults', 'get')).toEqual([]);
    for (const [path, method] of [['/vaults', 'post'], ['/vaults/{id}', 'patch'], ['/vaults/{id}', 'delete']] as const) {
      expect(codes(path, method)).toEqual([crossSite, 'FORBIDDEN']);
    }

    const forbidden = doc.paths['/notes/{id}']?.patch?.responses['403'] as { description: string; content: Record<string, unknown> };
    expect(forbidden.content).toEqual({ 'application/problem+json': { schema: { $ref: '#/components/schemas/Problem' } } });
    expect(forbidden.description).toContain('permission rules');
    expect((doc.paths['/notes/{id}']?.get?.responses['403'] as { description: string }).description).toContain('named');

    // Without rules in the schema, nothing but a cross-site write is ever 403.
    const open = buildOpenApiDocument(edgeModel());
    for (const [route, operation] of operations(open)) {
      // The admin API refuses everyone but the admin role, rules or not (checked below).
      if (operation.tags.includes(ADMIN_TAG)) continue;
      const response = operation.responses['403'];
      const write = !route.startsWith('GET ') && !route.startsWith('HEAD ');
      expect(response === undefined ? [] : [(response as { description: string }).description.endsWith(`Codes: ${crossSite}.`)], route).toEqual(write ? [true] : []);
    }
  });

  it('marks the writes only the admin role may do as needing a credential, and only those', () => {
    const doc = buildOpenApiDocument(modelOf('rules.graphql', RULES_SDL), { files: true });
    const needing = operations(doc)
      .filter(([, operation]) => operation.security !== undefined && !operation.tags.includes(ADMIN_TAG))
      .map(([route, operation]) => {
        expect(operation.security, route).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
        return route;
      })
      .sort();
    expect(needing).toEqual(
      [
        'DELETE /notes/{id}',
        'POST /tags',
        'PUT /tags/{id}',
        'PATCH /tags/{id}',
        'DELETE /tags/{id}',
        'PUT /tags/{id}/boards/{targetId}',
        'DELETE /tags/{id}/boards/{targetId}',
        'POST /vaults',
        'PUT /vaults/{id}',
        'PATCH /vaults/{id}',
        'DELETE /vaults/{id}',
      ].sort(),
    );
    expect(operations(buildOpenApiDocument(edgeModel())).filter(([, operation]) => operation.security !== undefined && !operation.tags.includes(ADMIN_TAG))).toEqual([]);
  });

  it('documents every admin operation as needing a credential and refusing non-admins with FORBIDDEN; the change stream as open to all', () => {
    const doc = buildOpenApiDocument(modelOf('rules.graphql', RULES_SDL));
    const admin = operations(doc).filter(([route, operation]) => operation.tags.includes(ADMIN_TAG) && route.includes('/admin/'));
    expect(admin.length).toBeGreaterThan(10);
    for (const [route, operation] of admin) {
      expect(operation.security, route).toEqual([{ bearerAuth: [] }, { apiKey: [] }]);
      expect((operation.responses['403'] as { description: string }).description, route).toMatch(/Codes: FORBIDDEN\.$/);
    }
    expect(doc.paths['/events']?.get?.security).toBeUndefined();
  });
});
