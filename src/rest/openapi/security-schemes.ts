import type { SecurityRequirement, SecurityScheme } from './openapi-types.js';

/** A JWT from the identity provider: the scheme /docs offers first. */
export const BEARER_SCHEME = 'bearerAuth';

/** An API key or the admin key. */
export const API_KEY_SCHEME = 'apiKey';

/**
 * How a request says who it is (src/auth/): `Authorization: Bearer
 * <credential>`, the credential a JWT, an API key or the admin key. Keys
 * travel as Bearer tokens too, so OpenAPI's `apiKey` type (a header holding
 * the key alone) would describe a request the server refuses; both are
 * `http` bearer schemes, told apart for readers by name and description.
 */
export function securitySchemes(): Record<string, SecurityScheme> {
  return {
    [BEARER_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description:
        'A JWT from the identity provider this server is configured to trust, as `Authorization: Bearer <token>`. Its `sub` claim is the caller\'s id ' +
        'and its `role` claim the caller\'s role (unless the server names other claims); every claim is seen by the permission rules. ' +
        '`diglot start` prints a member token to try.',
    },
    [API_KEY_SCHEME]: {
      type: 'http',
      scheme: 'bearer',
      description:
        'An API key for machines, also sent as `Authorization: Bearer <key>`: a `dk_…` key from `diglot keys create --role ROLE --name NAME`, ' +
        'which acts with that role, or the server\'s admin key (`DIGLOT_ADMIN_KEY`), which may do everything. `diglot start` prints an admin key to try.',
    },
  };
}

/**
 * The document's requirement: no credential (the anonymous caller) or
 * either scheme. A credential that is sent must be good: a bad one is 401,
 * never anonymous.
 */
export function anyCaller(): SecurityRequirement[] {
  return [{}, ...credentialRequired()];
}

/** An operation no request without a credential can pass (only the admin role may do it). */
export function credentialRequired(): SecurityRequirement[] {
  return [{ [BEARER_SCHEME]: [] }, { [API_KEY_SCHEME]: [] }];
}
