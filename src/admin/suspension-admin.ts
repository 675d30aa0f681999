import type { Suspensions } from '../auth/accounts/suspensions.js';
import type { Engine } from '../engine/engine.js';
import { ApiError } from '../errors/api-error.js';
import { planReadOne, type PlanLimits } from '../plan/build-read.js';
import { planUpdate } from '../plan/build-write.js';
import type { WriteValues } from '../plan/write-plan.js';
import type { RequestContext } from '../plan/request-context.js';
import type { ResourceType, ScalarField } from '../schema/model.js';
import { AdminInput } from './admin-input.js';

export interface SuspensionState {
  readonly accountId: string;
  readonly suspended: boolean;
  /** The suspended field's value when it is text (the reason), else null. */
  readonly reason: string | null;
}

export interface SuspensionAdmin {
  get(context: RequestContext, accountId: string): Promise<SuspensionState>;
  suspend(context: RequestContext, accountId: string, input: unknown): Promise<SuspensionState>;
  unsuspend(context: RequestContext, accountId: string): Promise<SuspensionState>;
}

const DEFAULT_REASON = 'Suspended by an administrator';

/**
 * Suspension as a write of the account's suspended field (`@account(suspended:)`)
 * through the engine, in the caller's context: an ordinary write with its
 * event, which the accounts service hears (`engine.guardWrites`) to end the
 * account's sessions and streams at once, on every instance.
 */
export function createSuspensionAdmin(engine: Engine, type: ResourceType, field: ScalarField, suspensions: Pick<Suspensions, 'has'>, limits: PlanLimits): SuspensionAdmin {
  const read = async (context: RequestContext, accountId: string): Promise<SuspensionState> => {
    const plan = planReadOne(engine.model, type.name, accountId, [{ key: 'value', field: field.name }], { limits, fromText: false, principal: context.principal });
    const result = await engine.read(plan, context);
    if (result.kind !== 'one' || result.json === null) throw new ApiError('NOT_FOUND', { detail: `${type.name} ${accountId} does not exist` });
    const value = (JSON.parse(result.json) as { value: unknown }).value;
    return { accountId, suspended: suspensions.has(accountId), reason: typeof value === 'string' ? value : null };
  };
  const write = async (context: RequestContext, accountId: string, values: WriteValues): Promise<SuspensionState> => {
    await engine.write(context, planUpdate(engine.model, type.name, accountId, values, context.principal));
    return read(context, accountId);
  };
  return {
    get: read,
    suspend(context, accountId, body) {
      const input = new AdminInput(body ?? {}, ['reason']);
      const reason = input.text('reason', { required: false, max: 500, hint: 'must be at most 500 characters' });
      // An enum field takes one of its values as the reason.
      const values = field.enum === undefined ? undefined : engine.model.enums.get(field.enum)?.values;
      if (values !== undefined && (reason === undefined || !values.includes(reason))) input.problem('/reason', 'VALIDATION_FAILED', `must be one of ${values.join(', ')}`);
      input.done();
      return write(context, accountId, { [field.name]: suspendedValue(field, reason ?? DEFAULT_REASON) });
    },
    unsuspend: (context, accountId) => write(context, accountId, { [field.name]: field.nullable ? null : field.scalar === 'Boolean' ? false : null }),
  };
}

/** What "suspended" is in the field's own type: the reason, true, or the time. */
function suspendedValue(field: ScalarField, reason: string): unknown {
  switch (field.scalar) {
    case 'Boolean':
      return true;
    case 'DateTime':
      return new Date().toISOString();
    case 'Int':
    case 'Float':
      return 1;
    default:
      return reason;
  }
}
