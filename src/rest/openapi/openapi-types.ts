/**
 * The few OpenAPI 3.1 shapes the generator builds. Schemas are JSON Schema
 * draft 2020-12 objects (OpenAPI 3.1 embeds the dialect unchanged), kept as
 * open records: the generator writes them, and the tests check the whole
 * document against the official OpenAPI 3.1 schema, which is stricter than
 * any TypeScript type we would write here.
 */
export type JsonSchema = { readonly [keyword: string]: unknown };

export type Reference = { readonly $ref: string };

export interface Parameter {
  readonly name: string;
  readonly in: 'query' | 'path' | 'header';
  readonly description: string;
  readonly required?: boolean;
  readonly deprecated?: boolean;
  /** A deprecated parameter's expected removal date. */
  readonly 'x-sunset'?: string;
  readonly style?: 'form' | 'deepObject' | 'simple';
  readonly explode?: boolean;
  readonly schema: JsonSchema;
}

export interface Header {
  readonly description: string;
  readonly required?: boolean;
  readonly schema: JsonSchema;
}

export interface MediaType {
  readonly schema: JsonSchema;
  /** Per-property encoding of a multipart body: the content type of each part. */
  readonly encoding?: Readonly<Record<string, { readonly contentType: string }>>;
}

export interface Response {
  readonly description: string;
  readonly headers?: Readonly<Record<string, Header | Reference>>;
  readonly content?: Readonly<Record<string, MediaType>>;
}

export interface RequestBody {
  readonly description: string;
  readonly required: boolean;
  readonly content: Readonly<Record<string, MediaType>>;
}

export interface Operation {
  readonly operationId: string;
  readonly summary: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly deprecated?: boolean;
  /** A deprecated operation's expected removal date (RFC 8594's Sunset, in the document). */
  readonly 'x-sunset'?: string;
  readonly parameters?: readonly (Parameter | Reference)[];
  readonly requestBody?: RequestBody;
  readonly responses: Readonly<Record<string, Response | Reference>>;
  /** Only where it differs from the document's: operations a request without a credential can never pass. */
  readonly security?: readonly SecurityRequirement[];
}

/** Scheme name → scopes (always none here); `{}` is "no credential". */
export type SecurityRequirement = Readonly<Record<string, readonly string[]>>;

/** The one kind of scheme the server takes: `Authorization: Bearer …` (RFC 6750). */
export interface SecurityScheme {
  readonly type: 'http';
  readonly scheme: 'bearer';
  readonly bearerFormat?: string;
  readonly description: string;
}

export type HttpMethod = 'get' | 'head' | 'post' | 'put' | 'patch' | 'delete';

export const HTTP_METHODS: readonly HttpMethod[] = ['get', 'head', 'post', 'put', 'patch', 'delete'];

export type PathItem = { -readonly [M in HttpMethod]?: Operation } & { summary?: string; description?: string };

export interface Tag {
  readonly name: string;
  readonly description: string;
}

export interface OpenApiDocument {
  readonly openapi: '3.1.0';
  readonly jsonSchemaDialect: string;
  readonly info: {
    readonly title: string;
    readonly version: string;
    readonly description: string;
    readonly contact: { readonly name: string; readonly url?: string; readonly email?: string };
    readonly license: { readonly name: string; readonly identifier?: string; readonly url?: string };
  };
  readonly servers: readonly { readonly url: string; readonly description: string }[];
  readonly tags: readonly Tag[];
  readonly paths: Readonly<Record<string, PathItem>>;
  readonly security: readonly SecurityRequirement[];
  readonly components: {
    readonly schemas: Readonly<Record<string, JsonSchema>>;
    readonly parameters: Readonly<Record<string, Parameter>>;
    readonly responses: Readonly<Record<string, Response>>;
    readonly headers: Readonly<Record<string, Header>>;
    readonly securitySchemes: Readonly<Record<string, SecurityScheme>>;
  };
}

/** `#/components/<section>/<name>`, with the name escaped as RFC 6901 requires. */
export function ref(section: 'schemas' | 'parameters' | 'responses' | 'headers', name: string): Reference {
  return { $ref: `#/components/${section}/${name.replaceAll('~', '~0').replaceAll('/', '~1')}` };
}
