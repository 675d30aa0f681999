import {
  GraphQLBoolean,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfigArgumentMap,
  type GraphQLFieldConfigMap,
  type GraphQLOutputType,
  type GraphQLScalarType,
  type GraphQLType,
} from 'graphql';
import type { Model } from '../../schema/model.js';
import type { AdminAction, RootRole } from './roles.js';
import { DateTimeScalar, JsonScalar } from './scalars.js';

type Root = { fields: GraphQLFieldConfigMap<unknown, unknown>; roles: Map<string, RootRole> };

const ADMIN_ONLY = 'Admin role only (docs/admin-api.md): anyone else gets UNAUTHENTICATED or FORBIDDEN.';

const nonNull = <T extends GraphQLType>(type: T): GraphQLNonNull<T> => new GraphQLNonNull(type);
function listOf<T extends GraphQLObjectType | GraphQLScalarType>(type: T): GraphQLNonNull<GraphQLList<GraphQLNonNull<T>>> {
  return new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(type)));
}
const text = { type: nonNull(GraphQLString) };
const optionalText = { type: GraphQLString };

/**
 * The admin API's fields (`admin…`), the same actions as REST's `/admin/…`
 * routes. They are in the one schema every caller sees: hiding them per
 * caller would make a stranger's use a validation error instead of the
 * FORBIDDEN REST answers, and make documents and caches depend on who asks.
 * Arguments the admin service checks are nullable here, so a missing one
 * is the same VALIDATION_FAILED, with the same pointer, in both styles.
 */
export function addAdminFields(model: Model, query: Root, mutation: Root): void {
  const apiKeyFields = {
    id: { type: nonNull(GraphQLID) },
    name: text,
    role: { ...text, description: 'A value of the schema’s role enum.' },
    createdAt: { type: nonNull(DateTimeScalar) },
    revokedAt: { type: DateTimeScalar, description: 'Null while the key is valid.' },
  };
  const apiKey = new GraphQLObjectType({ name: 'AdminApiKey', description: 'An API key, never the key itself.', fields: apiKeyFields });
  const newApiKey = new GraphQLObjectType({
    name: 'AdminNewApiKey',
    description: 'A key just made: `key` is shown this once (only its hash is kept).',
    fields: { ...apiKeyFields, key: { ...text, description: 'Send as Authorization: Bearer <key>.' } },
  });
  const suspension = new GraphQLObjectType({
    name: 'AdminSuspension',
    fields: { accountId: { type: nonNull(GraphQLID) }, suspended: { type: nonNull(GraphQLBoolean) }, reason: optionalText },
  });
  const counts = new GraphQLObjectType({
    name: 'AdminDeliveryCounts',
    fields: { pending: { type: nonNull(GraphQLInt) }, delivered: { type: nonNull(GraphQLInt) }, dead: { type: nonNull(GraphQLInt) } },
  });
  const endpointFields = {
    name: text,
    url: text,
    events: { type: listOf(GraphQLString) },
    filter: { type: JsonScalar },
    source: { ...text, description: '`config` (the configuration file’s: read-only here) or `database`.' },
    paused: { type: nonNull(GraphQLBoolean) },
    timeoutMs: { type: nonNull(GraphQLInt) },
    retryForMs: { type: nonNull(GraphQLFloat) },
    backoffMs: { type: nonNull(GraphQLInt) },
    createdAt: { type: DateTimeScalar },
    updatedAt: { type: DateTimeScalar },
    deliveries: { type: nonNull(counts) },
  };
  const endpoint = new GraphQLObjectType({ name: 'AdminWebhookEndpoint', description: 'A webhook endpoint, never its secret.', fields: endpointFields });
  const endpointWithSecret = new GraphQLObjectType({
    name: 'AdminWebhookEndpointWithSecret',
    description: 'An endpoint just made, or given a new secret: `secret` is shown this once.',
    fields: { ...endpointFields, secret: { ...optionalText, description: 'The signing secret (whsec_…), when this answer set it.' } },
  });
  const attempt = new GraphQLObjectType({
    name: 'AdminDeliveryAttempt',
    fields: {
      attempt: { type: nonNull(GraphQLInt) },
      at: { type: nonNull(DateTimeScalar) },
      outcome: { ...text, description: 'ok, http, timeout or network.' },
      code: { type: GraphQLInt, description: 'The response status, if one came.' },
      latencyMs: { type: nonNull(GraphQLInt) },
      error: optionalText,
    },
  });
  const delivery = new GraphQLObjectType({
    name: 'AdminDelivery',
    fields: {
      id: { type: nonNull(GraphQLID) },
      endpoint: text,
      eventId: { type: nonNull(GraphQLID) },
      eventType: text,
      status: { ...text, description: 'pending, delivered or dead.' },
      attemptCount: { type: nonNull(GraphQLInt) },
      nextAt: { type: nonNull(DateTimeScalar) },
      firstAt: { type: nonNull(DateTimeScalar) },
      doneAt: { type: DateTimeScalar },
      lastCode: { type: GraphQLInt },
      lastError: optionalText,
      attempts: { type: listOf(attempt) },
    },
  });
  const replay = new GraphQLObjectType({ name: 'AdminReplay', fields: { queued: { type: nonNull(GraphQLInt), description: 'Deliveries queued.' } } });
  const schema = adminSchemaType();

  const add = (root: Root, name: string, action: AdminAction, type: GraphQLOutputType, args: GraphQLFieldConfigArgumentMap, description: string): void => {
    root.fields[name] = { type, args, description: `${description} ${ADMIN_ONLY}` };
    root.roles.set(name, { kind: 'admin', action });
  };
  const id = { id: { type: nonNull(GraphQLID) } };
  const named = { name: text };
  add(query, 'adminApiKeys', 'apiKeys', listOf(apiKey), {}, 'Every API key, oldest first.');
  add(query, 'adminApiKey', 'apiKey', apiKey, id, 'One API key; null when there is none.');
  add(mutation, 'adminCreateApiKey', 'createApiKey', nonNull(newApiKey), { name: optionalText, role: optionalText }, 'Makes an API key; its `key` is in this answer only.');
  add(mutation, 'adminRevokeApiKey', 'revokeApiKey', nonNull(apiKey), id, 'Revokes an API key: refused at once on every instance.');
  if (model.account?.suspended !== undefined) {
    add(query, 'adminSuspension', 'suspension', nonNull(suspension), id, 'Whether an account is suspended.');
    add(mutation, 'adminSuspendAccount', 'suspend', nonNull(suspension), { ...id, reason: optionalText }, 'Suspends an account: its sessions and streams end at once.');
    add(mutation, 'adminUnsuspendAccount', 'unsuspend', nonNull(suspension), id, 'Lifts an account’s suspension.');
  }
  add(query, 'adminWebhookEndpoints', 'webhookEndpoints', listOf(endpoint), {}, 'Every webhook endpoint: the configuration file’s, then the database’s.');
  add(query, 'adminWebhookEndpoint', 'webhookEndpoint', endpoint, named, 'One webhook endpoint; null when there is none.');
  add(mutation, 'adminCreateWebhookEndpoint', 'createWebhookEndpoint', nonNull(endpointWithSecret), { input: { type: nonNull(endpointInput('AdminWebhookEndpointInput', true)) } }, 'Adds a webhook endpoint, at once on every instance.');
  add(mutation, 'adminUpdateWebhookEndpoint', 'updateWebhookEndpoint', nonNull(endpointWithSecret), { ...named, input: { type: nonNull(endpointInput('AdminWebhookEndpointPatch', false)) } }, 'Changes, pauses or resumes a webhook endpoint kept in the database.');
  add(mutation, 'adminDeleteWebhookEndpoint', 'deleteWebhookEndpoint', nonNull(GraphQLBoolean), named, 'Removes a webhook endpoint kept in the database; its pending deliveries become dead.');
  add(query, 'adminDeliveries', 'deliveries', listOf(delivery), { endpoint: optionalText, status: optionalText, limit: { type: GraphQLInt } }, 'Webhook deliveries, newest first, with their attempts (status: dead for dead letters).');
  add(mutation, 'adminRetryDelivery', 'retryDelivery', nonNull(delivery), id, 'Sends a delivery again now, a dead one too.');
  add(mutation, 'adminReplayEvents', 'replayEvents', nonNull(replay), { endpoint: text, eventId: { type: GraphQLID }, since: { type: DateTimeScalar }, until: { type: DateTimeScalar } }, 'Sends kept events again to an endpoint: one by id, or those created in a time range.');
  add(query, 'adminSchema', 'schema', nonNull(schema), {}, 'The schema as written (rules included), the generated GraphQL SDL, and the model for a diagram.');
}

function endpointInput(name: string, create: boolean): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name,
    fields: {
      ...(create ? { name: { type: GraphQLString } } : {}),
      url: { type: GraphQLString },
      events: { type: new GraphQLList(nonNull(GraphQLString)), description: 'Event types or patterns: post.created, user.*, *.' },
      filter: { type: JsonScalar, description: 'The ?filter= vocabulary, over the event’s record; null for none.' },
      secret: { type: GraphQLString, description: 'whsec_…; made by the server when left out at creation.' },
      paused: { type: GraphQLBoolean },
      timeoutMs: { type: GraphQLInt },
      retryForMs: { type: GraphQLFloat },
      backoffMs: { type: GraphQLInt },
      ...(create ? {} : { rotateSecret: { type: GraphQLBoolean, description: 'Make a new secret, returned in this answer only.' } }),
    },
  });
}

function adminSchemaType(): GraphQLObjectType {
  const strings = listOf(GraphQLString);
  const field = new GraphQLObjectType({
    name: 'AdminModelField',
    fields: {
      name: text,
      kind: { ...text, description: 'scalar, file, toOne, toMany or manyToMany.' },
      type: { ...text, description: 'The scalar or enum name, or the related type.' },
      list: { type: nonNull(GraphQLBoolean) },
      nullable: { type: nonNull(GraphQLBoolean) },
      unique: { type: nonNull(GraphQLBoolean) },
      readonly: { type: nonNull(GraphQLBoolean) },
      target: optionalText,
      inverse: optionalText,
      description: optionalText,
      deprecated: optionalText,
    },
  });
  const type = new GraphQLObjectType({
    name: 'AdminModelType',
    fields: { name: text, plural: text, path: text, description: optionalText, fields: { type: listOf(field) } },
  });
  const model = new GraphQLObjectType({
    name: 'AdminModel',
    fields: {
      types: { type: listOf(type) },
      enums: { type: listOf(new GraphQLObjectType({ name: 'AdminModelEnum', fields: { name: text, values: { type: strings } } })) },
      roles: { type: new GraphQLObjectType({ name: 'AdminModelRoles', fields: { enum: text, values: { type: strings }, admin: text } }) },
      account: {
        type: new GraphQLObjectType({ name: 'AdminModelAccount', fields: { type: text, identifier: text, suspended: optionalText, verified: optionalText } }),
      },
    },
  });
  return new GraphQLObjectType({
    name: 'AdminSchema',
    fields: {
      sdl: { type: listOf(new GraphQLObjectType({ name: 'AdminSchemaFile', fields: { file: text, text } })), description: 'The schema files as written.' },
      graphql: { ...text, description: 'The generated GraphQL schema.' },
      model: { type: nonNull(model) },
    },
  });
}
