import type { GraphQLSchema } from 'graphql';
import type { ManyToManyRelation, ResourceType } from '../../schema/model.js';

/**
 * What each generated GraphQL field means in model terms. The executor reads
 * these instead of resolvers: a field is never "run", it is translated into
 * a `FieldRequest` or a plan.
 */

/** The accounts mutations (src/auth/accounts/), by the flow each runs. */
export type AccountAction =
  | 'signUp'
  | 'signIn'
  | 'refreshSession'
  | 'signOut'
  | 'signOutEverywhere'
  | 'changePassword'
  | 'requestPasswordReset'
  | 'resetPassword'
  | 'requestEmailVerification'
  | 'verifyEmail';

/** A root field of Query or Mutation. */
export type RootRole =
  | { readonly kind: 'one' | 'list' | 'count' | 'create' | 'update' | 'delete'; readonly type: ResourceType }
  /** `me`: the account type's record of the caller. */
  | { readonly kind: 'me'; readonly type: ResourceType }
  /** An accounts flow; `session` when it answers an `AuthSession` (else `Boolean!`). `type` is the account type. */
  | { readonly kind: 'account'; readonly type: ResourceType; readonly action: AccountAction; readonly session: boolean }
  | { readonly kind: 'connect' | 'disconnect'; readonly type: ResourceType; readonly field: ManyToManyRelation }
  /** `postCreated(filter:)`, `postUpdated`, `postDeleted`: a change event's record, as the subscriber may read it. */
  | { readonly kind: 'created' | 'updated' | 'deleted'; readonly type: ResourceType }
  /** An admin API field (`adminApiKeys`, `adminCreateApiKey`, …): answered by the admin service, not by a plan. */
  | AdminRootRole;

export interface AdminRootRole {
  readonly kind: 'admin';
  readonly action: AdminAction;
}

/** A root field planned against the model (everything but the admin API's). */
export type ModelRootRole = Exclude<RootRole, AdminRootRole>;

/** The admin API's fields, by what each asks the admin service (docs/admin-api.md). */
export type AdminAction =
  | 'apiKeys'
  | 'apiKey'
  | 'createApiKey'
  | 'revokeApiKey'
  | 'suspension'
  | 'suspend'
  | 'unsuspend'
  | 'webhookEndpoints'
  | 'webhookEndpoint'
  | 'createWebhookEndpoint'
  | 'updateWebhookEndpoint'
  | 'deleteWebhookEndpoint'
  | 'deliveries'
  | 'retryDelivery'
  | 'replayEvents'
  | 'schema';

/** A field of a generated object type. */
export type FieldRole =
  /** A column: scalar, enum, list of scalars, JSON. */
  | { readonly kind: 'value'; readonly field: string }
  /** A file field: the URL, with its `size:` argument. */
  | { readonly kind: 'file'; readonly field: string }
  | { readonly kind: 'toOne'; readonly field: string; readonly target: ResourceType }
  | { readonly kind: 'list'; readonly field: string; readonly target: ResourceType }
  /** `postsCount(filter:)` — the number of related records. */
  | { readonly kind: 'count'; readonly field: string }
  /** `_cursor` — this record's position in the list it was read in. */
  | { readonly kind: 'cursor' };

/**
 * Generated input types that mirror a REST input rule, so a GraphQL
 * coercion error inside them can carry the same code REST would give.
 */
export type InputRole =
  | { readonly kind: 'input'; readonly type: ResourceType }
  | { readonly kind: 'filter' }
  | { readonly kind: 'order' }
  /** The `Upload` scalar: anything but a file part in its place is a wrong type, as in REST. */
  | { readonly kind: 'upload' };

export interface GeneratedSchema {
  readonly schema: GraphQLSchema;
  readonly query: ReadonlyMap<string, RootRole>;
  readonly mutation: ReadonlyMap<string, RootRole>;
  /** The Query roles again (live queries) plus the change events. */
  readonly subscription: ReadonlyMap<string, RootRole>;
  /** Object type name → field name → role. */
  readonly objects: ReadonlyMap<string, ReadonlyMap<string, FieldRole>>;
  /** Input type name → role. */
  readonly inputs: ReadonlyMap<string, InputRole>;
}
