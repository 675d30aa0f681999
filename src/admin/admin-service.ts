import type { Suspensions } from '../auth/accounts/suspensions.js';
import type { KeyRevocations } from '../auth/key-revocations.js';
import type { Engine } from '../engine/engine.js';
import { ApiError } from '../errors/api-error.js';
import { createWebhookAdmin } from '../events/webhook-admin.js';
import type { EventsOptions } from '../events/webhook-options.js';
import type { WebhookRegistry } from '../events/webhook-registry.js';
import type { PlanLimits } from '../plan/build-read.js';
import type { RequestContext } from '../plan/request-context.js';
import type { ApiKeyRecord } from '../storage/api-keys.js';
import { OutboxStore } from '../storage/outbox.js';
import { ADMIN_ROW_COST, ADMIN_WRITE_COST, asAdmin } from './admin-access.js';
import { createApiKeyAdmin, type NewApiKeyRecord } from './api-key-admin.js';
import { createDeliveryAdmin, DEFAULT_DELIVERY_LIMIT, type DeliveryQuery, type DeliveryView } from './delivery-admin.js';
import { sourcesOf, summarizeModel, type SchemaView } from './schema-summary.js';
import { createSuspensionAdmin, type SuspensionAdmin, type SuspensionState } from './suspension-admin.js';
import { createWebhookEndpointAdmin, type EndpointView, type EndpointWithSecret } from './webhook-endpoint-admin.js';

export { assertAdmin } from './admin-access.js';
export type { ApiKeyRecord } from '../storage/api-keys.js';
export type { NewApiKeyRecord } from './api-key-admin.js';
export type { DeliveryQuery, DeliveryView } from './delivery-admin.js';
export type { FieldSummary, ModelSummary, SchemaView, TypeSummary } from './schema-summary.js';
export type { SuspensionState } from './suspension-admin.js';
export type { EndpointView, EndpointWithSecret } from './webhook-endpoint-admin.js';

export interface AdminServiceOptions {
  readonly engine: Engine;
  readonly limits: PlanLimits;
  readonly adminRole: string;
  readonly revocations: Pick<KeyRevocations, 'revoked'>;
  readonly registry: WebhookRegistry;
  readonly events: EventsOptions;
  /** The suspended accounts, when a type is marked `@account(suspended:)`. */
  readonly suspensions?: Pick<Suspensions, 'has'> | undefined;
  /** The schema files as written (for `schema`); none in library use that does not pass them. */
  readonly schemaSources: readonly { readonly file: string; readonly text: string }[];
  /** The generated GraphQL SDL (made by the GraphQL front-end, which this layer does not import). */
  readonly graphqlSdl: () => string;
}

/**
 * The admin API behind both front-ends: REST's `/admin/…` routes and
 * GraphQL's `admin…` fields call these and nothing else, so both refuse,
 * validate, charge and answer alike (docs/admin-api.md). Every method takes
 * the caller's request context and passes the admin gate first.
 */
export interface AdminService {
  /** Whether accounts can be suspended here (a type marked `@account(suspended:)`). */
  readonly suspensions: boolean;
  apiKeys(context: RequestContext): Promise<ApiKeyRecord[]>;
  apiKey(context: RequestContext, id: string): Promise<ApiKeyRecord>;
  createApiKey(context: RequestContext, input: unknown): Promise<NewApiKeyRecord>;
  revokeApiKey(context: RequestContext, id: string): Promise<ApiKeyRecord>;
  suspension(context: RequestContext, accountId: string): Promise<SuspensionState>;
  suspend(context: RequestContext, accountId: string, input: unknown): Promise<SuspensionState>;
  unsuspend(context: RequestContext, accountId: string): Promise<SuspensionState>;
  webhookEndpoints(context: RequestContext): Promise<EndpointView[]>;
  webhookEndpoint(context: RequestContext, name: string): Promise<EndpointView>;
  createWebhookEndpoint(context: RequestContext, input: unknown): Promise<EndpointWithSecret>;
  updateWebhookEndpoint(context: RequestContext, name: string, input: unknown): Promise<EndpointView | EndpointWithSecret>;
  deleteWebhookEndpoint(context: RequestContext, name: string): Promise<void>;
  deliveries(context: RequestContext, query: DeliveryQuery): Promise<DeliveryView[]>;
  retryDelivery(context: RequestContext, id: string): Promise<DeliveryView>;
  replayEvents(context: RequestContext, endpoint: string, input: unknown): Promise<{ readonly queued: number }>;
  schema(context: RequestContext): Promise<SchemaView>;
}

export function createAdminService(options: AdminServiceOptions): AdminService {
  const { engine } = options;
  const keys = createApiKeyAdmin(engine.model, engine.db, options.revocations, options.adminRole);
  const outbox = new OutboxStore(engine.db);
  const endpoints = createWebhookEndpointAdmin(engine.model, options.registry, outbox);
  const deliveries = createDeliveryAdmin(createWebhookAdmin(engine.model, engine.db, options.events, options.registry), options.registry);
  const suspensions = suspensionAdminOf(options);
  const noSuspensions = (): never => {
    throw new ApiError('NOT_FOUND', { detail: 'This schema has no account type with a suspended field (@account(suspended:))' });
  };
  const summary = summarizeModel(engine.model);
  const sources = sourcesOf(options.schemaSources);
  const read = <T>(context: RequestContext, work: () => Promise<T>, rows = 1): Promise<T> => asAdmin(context, rows * ADMIN_ROW_COST, work);
  const act = <T>(context: RequestContext, work: () => Promise<T>): Promise<T> => asAdmin(context, ADMIN_WRITE_COST, work);
  // Suspensions are writes the engine charges itself: the gate charges only the least.
  const viaEngine = <T>(context: RequestContext, work: (admin: SuspensionAdmin) => Promise<T>): Promise<T> =>
    asAdmin(context, 0, () => (suspensions === undefined ? noSuspensions() : work(suspensions)));
  return {
    suspensions: suspensions !== undefined,
    apiKeys: (context) => read(context, () => keys.list()),
    apiKey: (context, id) => read(context, () => keys.get(id)),
    createApiKey: (context, input) => act(context, () => keys.create(input)),
    revokeApiKey: (context, id) => act(context, () => keys.revoke(id)),
    suspension: (context, id) => viaEngine(context, (admin) => admin.get(context, id)),
    suspend: (context, id, input) => viaEngine(context, (admin) => admin.suspend(context, id, input)),
    unsuspend: (context, id) => viaEngine(context, (admin) => admin.unsuspend(context, id)),
    webhookEndpoints: (context) => read(context, () => endpoints.list()),
    webhookEndpoint: (context, name) => read(context, () => endpoints.get(name)),
    createWebhookEndpoint: (context, input) => act(context, () => endpoints.create(input)),
    updateWebhookEndpoint: (context, name, input) => act(context, () => endpoints.update(name, input)),
    deleteWebhookEndpoint: (context, name) => act(context, () => endpoints.remove(name)),
    deliveries: (context, query) => read(context, () => deliveries.list(query), typeof query.limit === 'number' ? query.limit : DEFAULT_DELIVERY_LIMIT),
    retryDelivery: (context, id) => act(context, () => deliveries.retry(id)),
    replayEvents: (context, endpoint, input) => act(context, () => deliveries.replay(endpoint, input)),
    schema: (context) => read(context, () => Promise.resolve({ sdl: sources, graphql: options.graphqlSdl(), model: summary })),
  };
}

function suspensionAdminOf(options: AdminServiceOptions): SuspensionAdmin | undefined {
  const { model } = options.engine;
  const account = model.account;
  const type = account === undefined ? undefined : model.typesByName.get(account.type);
  const field = account?.suspended === undefined ? undefined : type?.fieldsByName.get(account.suspended);
  if (type === undefined || field?.kind !== 'scalar' || options.suspensions === undefined) return undefined;
  return createSuspensionAdmin(options.engine, type, field, options.suspensions, options.limits);
}
