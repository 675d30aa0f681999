import { execute, Kind } from 'graphql';
import { isApiError } from '../../errors/api-error.js';
import type { AdminService } from '../../admin/admin-service.js';
import type { RequestContext } from '../../plan/request-context.js';
import type { AdminAction } from '../schema/roles.js';
import type { RootStep } from './compile-operation.js';
import type { FieldOutcome } from './introspect.js';
import type { RunContext, RunnableOperation } from './run-operation.js';

type AdminStep = Extract<RootStep, { kind: 'admin' }>;
type Args = Readonly<Record<string, unknown>>;

/**
 * An admin field: the admin service answers it (the same call REST's
 * `/admin/…` route makes, with the caller's context: the gate, the
 * charge, the validation), then graphql-js picks the selection out of the
 * plain answer, as it does for introspection, so the field's sub-selection,
 * aliases and fragments behave as anywhere else.
 */
export async function runAdminStep(ctx: RunContext, op: RunnableOperation, step: AdminStep): Promise<FieldOutcome> {
  const admin = ctx.admin;
  if (admin === undefined) return { error: new Error('admin field without an admin service') };
  let value: unknown;
  try {
    value = await answer(admin, ctx.context, step.role.action, step.args);
  } catch (error) {
    return { error };
  }
  const field = step.nodes[0]?.name.value ?? step.key;
  const result = await execute({
    schema: ctx.generated.schema,
    document: {
      kind: Kind.DOCUMENT,
      definitions: [{ ...op.operation, selectionSet: { kind: Kind.SELECTION_SET, selections: step.nodes } }, ...op.fragments.values()],
    },
    rootValue: { [field]: value },
    variableValues: op.rawVariables,
  });
  const [error] = result.errors ?? [];
  if (error !== undefined) return { error, path: error.path };
  return { json: JSON.stringify((result.data ?? {})[step.key] ?? null) };
}

/** The admin service's answer for one field; a lookup of one thing answers null where REST answers 404. */
async function answer(admin: AdminService, context: RequestContext, action: AdminAction, args: Args): Promise<unknown> {
  const text = (name: string): string => {
    const value = args[name];
    return typeof value === 'string' ? value : '';
  };
  switch (action) {
    case 'apiKeys':
      return admin.apiKeys(context);
    case 'apiKey':
      return orNull(admin.apiKey(context, text('id')));
    case 'createApiKey':
      return admin.createApiKey(context, defined(args));
    case 'revokeApiKey':
      return admin.revokeApiKey(context, text('id'));
    case 'suspension':
      return admin.suspension(context, text('id'));
    case 'suspend':
      return admin.suspend(context, text('id'), defined({ reason: args['reason'] }));
    case 'unsuspend':
      return admin.unsuspend(context, text('id'));
    case 'webhookEndpoints':
      return admin.webhookEndpoints(context);
    case 'webhookEndpoint':
      return orNull(admin.webhookEndpoint(context, text('name')));
    case 'createWebhookEndpoint':
      return admin.createWebhookEndpoint(context, args['input']);
    case 'updateWebhookEndpoint':
      return admin.updateWebhookEndpoint(context, text('name'), args['input']);
    case 'deleteWebhookEndpoint':
      await admin.deleteWebhookEndpoint(context, text('name'));
      return true;
    case 'deliveries':
      return admin.deliveries(context, defined({ endpoint: args['endpoint'], status: args['status'], limit: args['limit'] }));
    case 'retryDelivery':
      return admin.retryDelivery(context, text('id'));
    case 'replayEvents':
      return admin.replayEvents(context, text('endpoint'), defined({ eventId: args['eventId'], since: args['since'], until: args['until'] }));
    case 'schema':
      return admin.schema(context);
  }
}

async function orNull<T>(found: Promise<T>): Promise<T | null> {
  try {
    return await found;
  } catch (error) {
    if (isApiError(error) && error.code === 'NOT_FOUND') return null;
    throw error;
  }
}

/** The arguments given (an argument left out is not a member, as a member left out of a REST body is not). */
function defined(args: Args): Args {
  return Object.fromEntries(Object.entries(args).filter((entry) => entry[1] !== undefined));
}
