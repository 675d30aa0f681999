import { OperationTypeNode, type FieldNode, type FragmentDefinitionNode, type OperationDefinitionNode } from 'graphql';
import type { CachePolicy, Engine, ReadResult } from '../../engine/engine.js';
import { ApiError, isApiError } from '../../errors/api-error.js';
import { planReadList, planReadOne, type PlanLimits, type PlanOptions } from '../../plan/build-read.js';
import { ownAccountId } from '../../plan/principal.js';
import type { RequestContext } from '../../plan/request-context.js';
import type { Accounts } from '../../auth/accounts/accounts.js';
import type { AdminService } from '../../admin/admin-service.js';
import type { ReadPlan } from '../../plan/read-plan.js';
import { mergeDeprecations, NO_DEPRECATIONS, type DeprecatedUse } from '../../plan/deprecated-use.js';
import { checkWriteRights, planCreate, planDelete, planLink, planUpdate } from '../../plan/build-write.js';
import { validateInput } from '../../plan/validate-input.js';
import { formatError, type FormatOptions, type FormattedError } from '../response/format-error.js';
import { responseBody } from '../response/response-body.js';
import { retryAfterHeader } from '../response/retry-after.js';
import { withheldErrors } from '../response/withheld-errors.js';
import type { GeneratedSchema } from '../schema/roles.js';
import type { RootStep } from './compile-operation.js';
import { runAccountFlow } from './run-account-flow.js';
import { runAdminStep } from './run-admin.js';
import { introspect, type FieldOutcome } from './introspect.js';

export interface RunContext extends PlanContext {
  readonly engine: Engine;
  readonly generated: GeneratedSchema;
  readonly format: FormatOptions;
  /** The accounts flows, when a type is marked `@account`. */
  readonly accounts?: Accounts | undefined;
  /** The admin API behind the `admin…` fields. */
  readonly admin?: AdminService | undefined;
}

export interface RunnableOperation {
  readonly operation: OperationDefinitionNode;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly rawVariables: Readonly<Record<string, unknown>>;
  readonly steps: readonly RootStep[];
  /**
   * A query's plans from `planReads` (or an operation template); planned
   * from the steps when absent. Mutations plan as they go.
   */
  readonly reads?: readonly (PlannedRead | undefined)[] | undefined;
}

/** A data step's read plan, or the error planning it gave (that field's error in the response). */
export type PlannedRead = { readonly plan: ReadPlan } | { readonly error: unknown };

/** What planning needs: the model, the limits and the request (who is asking). */
export interface PlanContext {
  readonly engine: Pick<Engine, 'model'>;
  readonly planLimits: PlanLimits;
  readonly context: RequestContext;
}

/** Conditional-read facts, for GET and persisted operations. */
export interface CacheRequest {
  readonly key: string;
  readonly ifNoneMatch: string | undefined;
  readonly ifModifiedSince?: string | undefined;
}

export type RunOutcome =
  /**
   * `validators` is set when the response may be cached (a cacheable read without errors);
   * `headers` are what its errors add (Retry-After for an outage).
   */
  | {
      readonly status: 200;
      readonly body: string;
      readonly headers: Readonly<Record<string, string>>;
      readonly validators: { readonly etag: string; readonly lastModified: string | undefined; readonly policy: CachePolicy } | undefined;
    }
  | { readonly status: 304; readonly etag: string | undefined; readonly lastModified: string | undefined; readonly policy: CachePolicy };

type DataStep = Extract<RootStep, { kind: 'data' }>;
type Planned = { readonly index: number; readonly step: DataStep; readonly plan: ReadPlan };

/**
 * Runs a compiled operation: queries as one plan per root field (each one
 * SQL statement), mutations one root field after another as the spec
 * requires. The database's JSON for each field is spliced into the body
 * unparsed.
 */
export async function runOperation(ctx: RunContext, op: RunnableOperation, cache: CacheRequest | undefined): Promise<RunOutcome> {
  const outcomes: (FieldOutcome | undefined)[] = op.steps.map(() => undefined);
  const introspection = op.steps.flatMap((step) => (step.kind === 'introspection' ? [{ key: step.key, nodes: step.nodes }] : []));
  // Most operations have none: no await for them (a 304 is a handful of microseconds, and each await costs some).
  const introspected =
    introspection.length === 0 ? new Map<string, FieldOutcome>() : await introspect(ctx.generated.schema, op.operation, op.fragments, op.rawVariables, introspection);
  op.steps.forEach((step, index) => {
    if (step.kind === 'typename') outcomes[index] = { json: JSON.stringify(step.value) };
    else if (step.kind === 'introspection') outcomes[index] = introspected.get(step.key);
    else if (step.kind === 'failed') outcomes[index] = { error: step.error };
  });

  if (op.operation.operation === OperationTypeNode.MUTATION) {
    let ran = false;
    const used: (readonly DeprecatedUse[])[] = [];
    for (const [index, step] of op.steps.entries()) {
      if (step.kind !== 'data' && step.kind !== 'admin') continue;
      const outcome = step.kind === 'admin' ? await runAdminStep(ctx, op, step) : await settleRead(ctx, step, () => runMutation(ctx, step, used));
      // Refused before anything ran: the whole request is (429); after a write, only the fields it did not reach.
      if (!ran && 'error' in outcome && isRateLimited(outcome.error)) throw outcome.error;
      outcomes[index] = outcome;
      ran = true;
    }
    return { status: 200, ...assemble(ctx, op.steps, outcomes, mergeDeprecations(used)), validators: undefined };
  }

  // Admin fields are answered by the admin service, never cached (they are the admin's, and change without a clock).
  const admin = op.steps.flatMap((step, index) => (step.kind === 'admin' ? [{ step, index }] : []));
  for (const { step, index } of admin) outcomes[index] = await runAdminStep(ctx, op, step);
  const cached = admin.length > 0 ? undefined : cache;

  // From here on only the plans are read, never a step's `args`: a template's steps have none.
  const reads = op.reads ?? planReads(ctx, op.steps);
  const planned: Planned[] = [];
  op.steps.forEach((step, index) => {
    const read = reads[index];
    if (step.kind !== 'data' || read === undefined) return;
    if ('plan' in read) planned.push({ index, step, plan: read.plan });
    else outcomes[index] = { error: read.error };
  });

  const failed = outcomes.some((outcome) => outcome !== undefined && 'error' in outcome);
  const deprecations = mergeDeprecations(planned.map((entry) => entry.plan.deprecations));
  if (cached !== undefined && !failed) {
    try {
      const response = await ctx.engine.readCached({
        plans: planned.map((entry) => entry.plan),
        key: cached.key,
        context: ctx.context,
        ifNoneMatch: cached.ifNoneMatch,
        ifModifiedSince: cached.ifModifiedSince,
        render: (results) => {
          planned.forEach((entry, i) => {
            outcomes[entry.index] = withErrors(ctx, entry.step, entry.plan, jsonOf(entry.step, results[i] as ReadResult));
          });
          return assemble(ctx, op.steps, outcomes, deprecations).body;
        },
      });
      if (response.status === 304) return { status: 304, etag: response.etag, lastModified: response.lastModified, policy: response.policy };
      return { status: 200, body: response.body, headers: NO_HEADERS, validators: { etag: response.etag, lastModified: response.lastModified, policy: response.policy } };
    } catch (error) {
      // Over the budget, nothing ran: the request as a whole is refused.
      if (isRateLimited(error)) throw error;
      for (const entry of planned) outcomes[entry.index] = { error };
      return { status: 200, ...assemble(ctx, op.steps, outcomes, deprecations), validators: undefined };
    }
  }

  // Charged together and run side by side; a refusal of the charge refuses the request (429).
  const settled = await ctx.engine.readEach(
    planned.map((entry) => entry.plan),
    ctx.context,
  );
  planned.forEach((entry, i) => {
    const result = settled[i] as PromiseSettledResult<ReadResult>;
    outcomes[entry.index] = result.status === 'fulfilled' ? withErrors(ctx, entry.step, entry.plan, jsonOf(entry.step, result.value)) : { error: result.reason };
  });
  return { status: 200, ...assemble(ctx, op.steps, outcomes, deprecations), validators: undefined };
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** A subscription's live query: the plans to watch and how their results become the response, or the response when it failed before reading. */
export type LiveOperation =
  | { readonly kind: 'live'; readonly plans: readonly ReadPlan[]; readonly render: (results: readonly ReadResult[]) => string; readonly deprecations: readonly DeprecatedUse[] }
  | { readonly kind: 'failed'; readonly body: string };

/**
 * A subscription whose root fields are query fields, as a live query: the
 * same plans a query runs (rules, limits and all), and the same response
 * body from their results, so the engine can re-run and re-render it on
 * each change. Planning errors end it before anything is watched.
 */
export function liveOperation(ctx: RunContext, op: RunnableOperation): LiveOperation {
  const outcomes: (FieldOutcome | undefined)[] = op.steps.map(() => undefined);
  const reads = op.reads ?? planReads(ctx, op.steps);
  const planned: Planned[] = [];
  op.steps.forEach((step, index) => {
    if (step.kind === 'typename') outcomes[index] = { json: JSON.stringify(step.value) };
    else if (step.kind === 'failed') outcomes[index] = { error: step.error };
    else if (step.kind === 'introspection') outcomes[index] = { error: new Error('introspection is not live') };
    const read = reads[index];
    if (step.kind !== 'data' || read === undefined) return;
    if ('plan' in read) planned.push({ index, step, plan: read.plan });
    else outcomes[index] = { error: read.error };
  });
  if (outcomes.some((outcome) => outcome !== undefined && 'error' in outcome)) return { kind: 'failed', body: assemble(ctx, op.steps, outcomes).body };
  // Every payload of the subscription says it: each is a whole response, which a client may read alone.
  const deprecations = mergeDeprecations(planned.map((entry) => entry.plan.deprecations));
  return {
    kind: 'live',
    plans: planned.map((entry) => entry.plan),
    deprecations,
    render: (results) => {
      const filled = [...outcomes];
      planned.forEach((entry, i) => {
        filled[entry.index] = withErrors(ctx, entry.step, entry.plan, jsonOf(entry.step, results[i] as ReadResult));
      });
      return assemble(ctx, op.steps, filled, deprecations).body;
    },
  };
}

function isRateLimited(error: unknown): boolean {
  return isApiError(error) && error.code === 'RATE_LIMITED';
}

/** A root field's JSON and the plan that read it, whose withheld fields are reported at their paths. */
interface Read {
  readonly json: string;
  readonly plan: ReadPlan | undefined;
}

async function settleRead(ctx: RunContext, step: DataStep, work: () => Promise<Read>): Promise<FieldOutcome> {
  try {
    const { json, plan } = await work();
    return plan === undefined ? { json } : withErrors(ctx, step, plan, json);
  } catch (error) {
    return { error };
  }
}

function withErrors(ctx: RunContext, step: DataStep, plan: ReadPlan, json: string): FieldOutcome {
  const errors = withheldErrors(ctx.engine.model, plan, step.key, json);
  return errors.length === 0 ? { json } : { json, errors };
}

/** GraphQL answers a field the asker may not read as null with an error at its path, the rest of the data kept. */
function planOptions(ctx: PlanContext): PlanOptions {
  return { limits: ctx.planLimits, fromText: false, principal: ctx.context.principal, withhold: true };
}

/**
 * The read plan of every data step of a query, by step index (undefined for
 * the steps that are not data). With `readBackId`, the steps are a
 * mutation's and each plan is the read of its record, with that id.
 */
export function planReads(ctx: PlanContext, steps: readonly RootStep[], readBackId?: string): (PlannedRead | undefined)[] {
  return steps.map((step) => {
    if (step.kind !== 'data') return undefined;
    // An accounts mutation reads only the account of an AuthSession, if asked for.
    if (step.role.kind === 'account' && step.select.length === 0) return undefined;
    try {
      if (readBackId === undefined) return { plan: readPlanOf(ctx, step) };
      return { plan: planReadOne(ctx.engine.model, step.role.type.name, readBackId, step.select, planOptions(ctx)) };
    } catch (error) {
      return { error };
    }
  });
}

function readPlanOf(ctx: PlanContext, step: DataStep): ReadPlan {
  const { model } = ctx.engine;
  const options = planOptions(ctx);
  const type = step.role.type.name;
  switch (step.role.kind) {
    case 'one':
      return planReadOne(model, type, idArgument(step.args['id']), step.select, options);
    case 'me':
      return planReadOne(model, type, ownAccountId(ctx.context.principal), step.select, options);
    case 'list':
      return planReadList(model, type, step.list ?? {}, step.select, options);
    case 'count':
      // No rows, only the total: the count rides on the same one statement.
      return planReadList(model, type, { filter: step.filter, first: 0 }, [], { ...options, totalCount: true });
    default:
      throw new Error(`${step.role.kind} is not a read`);
  }
}

function jsonOf(step: DataStep, result: ReadResult): string {
  if (result.kind === 'one') return result.json ?? 'null';
  if (step.role.kind === 'count') return String(result.totalCount ?? 0);
  return result.json;
}

/** Runs one mutation field; the deprecated things its write and read plans use are added to `used`. */
async function runMutation(ctx: RunContext, step: DataStep, used: (readonly DeprecatedUse[])[]): Promise<Read> {
  const { model } = ctx.engine;
  // Every write goes through here, so its plan (and a delete's read of what it removes) is noted once.
  const engine: Pick<Engine, 'read' | 'write'> = {
    read: (readPlan, context) => ctx.engine.read(readPlan, context),
    write: (context, writePlan, precondition, readBack) => {
      if (writePlan.deprecations !== undefined) used.push(writePlan.deprecations);
      if (precondition !== undefined) used.push(precondition.plan.deprecations);
      return ctx.engine.write(context, writePlan, precondition, readBack);
    },
  };
  const type = step.role.type;
  const options = planOptions(ctx);
  let plan: ReadPlan | undefined;
  const readPlan = (id: string): ReadPlan => {
    plan = planReadOne(model, type.name, id, step.select, options);
    used.push(plan.deprecations);
    return plan;
  };
  const readBack = async (id: string): Promise<Read> => {
    const result = await engine.read(readPlan(id), ctx.context);
    return { json: result.kind === 'one' && result.json !== null ? result.json : 'null', plan };
  };
  const role = step.role;
  switch (role.kind) {
    case 'create': {
      // The rules first, as in REST: a caller who may not write learns nothing from the input's problems.
      checkWriteRights(model, type.name, 'create', ctx.context.principal, inputFields(step.args['input']));
      const values = validateInput(model, type, step.args['input'] ?? {}, 'create');
      // Where the create can render its selection in its own statement (PostgreSQL), no second read.
      const { id, record } = await engine.write(ctx.context, planCreate(model, type.name, values, ctx.context.principal), undefined, readPlan);
      return record === undefined ? readBack(id) : { json: record, plan };
    }
    case 'update': {
      const id = idArgument(step.args['id']);
      checkWriteRights(model, type.name, 'update', ctx.context.principal, inputFields(step.args['input']));
      const values = validateInput(model, type, step.args['input'] ?? {}, 'patch');
      await engine.write(ctx.context, planUpdate(model, type.name, id, values, ctx.context.principal));
      return readBack(id);
    }
    case 'delete':
      return deleteReturning(ctx, engine, step, idArgument(step.args['id']));
    case 'account':
      return { json: await runAccountFlow(ctx, step, role.action, used), plan: undefined };
    case 'connect':
    case 'disconnect': {
      const id = idArgument(step.args['id']);
      await engine.write(ctx.context, planLink(model, role.kind, type.name, role.field.name, id, idArgument(step.args['targetId']), ctx.context.principal));
      return readBack(id);
    }
    default:
      throw new Error(`${role.kind} is not a mutation`);
  }
}

/** The field names a mutation's `input` object names. */
function inputFields(input: unknown): string[] {
  return typeof input === 'object' && input !== null ? Object.keys(input) : [];
}

/**
 * The record as it was, read inside the delete's own transaction (the
 * engine's precondition hook runs there, after the row is locked), so the
 * answer is exactly what was deleted.
 */
async function deleteReturning(ctx: RunContext, engine: Pick<Engine, 'write'>, step: DataStep, id: string): Promise<Read> {
  const type = step.role.type;
  const plan = planReadOne(ctx.engine.model, type.name, id, step.select, planOptions(ctx));
  let before = null as string | null;
  try {
    await engine.write(ctx.context, planDelete(ctx.engine.model, type.name, id, ctx.context.principal), {
      ifMatch: '*',
      plan,
      render: (result) => {
        before = result.kind === 'one' ? result.json : null;
        return before ?? undefined;
      },
    });
  } catch (error) {
    // `If-Match: *` fails only when there is no record: that is a 404 here.
    if (before === null && isApiError(error) && error.code === 'PRECONDITION_FAILED') {
      throw new ApiError('NOT_FOUND', { detail: `${type.name} ${id} does not exist` });
    }
    throw error;
  }
  return { json: before ?? 'null', plan };
}

function idArgument(value: unknown): string {
  if (typeof value !== 'string') throw new ApiError('QUERY_INVALID_ARGUMENT', { detail: 'An id must be a string' });
  return value;
}

/**
 * The response body: root fields in selection order. A failed non-null root
 * field makes `data` null (GraphQL's null propagation, spec §6.4.4). Its
 * errors decide the headers they add (Retry-After for an outage).
 */
function assemble(
  ctx: RunContext,
  steps: readonly RootStep[],
  outcomes: readonly (FieldOutcome | undefined)[],
  deprecations: readonly DeprecatedUse[] = NO_DEPRECATIONS,
): { readonly body: string; readonly headers: Readonly<Record<string, string>> } {
  const errors: FormattedError[] = [];
  const entries: string[] = [];
  let dataIsNull = false;
  for (const [index, step] of steps.entries()) {
    const outcome = outcomes[index] ?? { error: new Error(`root field ${step.key} produced nothing`) };
    const nodes: readonly FieldNode[] = step.kind === 'typename' ? [] : step.nodes;
    if ('json' in outcome) {
      entries.push(`${JSON.stringify(step.key)}:${outcome.json}`);
      // Inside a root field, a path says where; its locations would need the selection walked again.
      for (const inner of outcome.errors ?? []) errors.push(formatError(inner.error, ctx.format, { nodes: [], path: inner.path }));
      continue;
    }
    errors.push(formatError(outcome.error, ctx.format, { nodes, path: outcome.path ?? [step.key] }));
    entries.push(`${JSON.stringify(step.key)}:null`);
    if (step.kind === 'data' || step.kind === 'failed' || step.kind === 'admin' ? !step.nullable : step.key === '__schema') dataIsNull = true;
  }
  return { body: responseBody(errors, dataIsNull ? 'null' : `{${entries.join(',')}}`, deprecations), headers: retryAfterHeader(errors) };
}
