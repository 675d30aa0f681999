import { accountRequestOf, type Session } from '../../auth/accounts/accounts.js';
import { planReadOne } from '../../plan/build-read.js';
import type { DeprecatedUse } from '../../plan/deprecated-use.js';
import type { AccountAction } from '../schema/roles.js';
import type { RootStep } from './compile-operation.js';
import type { RunContext } from './run-operation.js';

type DataStep = Extract<RootStep, { kind: 'data' }>;

/**
 * Runs an accounts mutation through the one implementation REST's `/auth/…`
 * routes call, and renders its answer: an `AuthSession` (its `account` read
 * as the new session's principal may read it) or `true`.
 */
export async function runAccountFlow(ctx: RunContext, step: DataStep, action: AccountAction, used: (readonly DeprecatedUse[])[]): Promise<string> {
  if (ctx.accounts === undefined) throw new Error('accounts mutation without an accounts service');
  const flows = ctx.accounts;
  // The flow's write and the session's account read report their deprecated uses where every mutation's go: `extensions.deprecations`.
  const request = accountRequestOf(ctx.context, (uses) => used.push(uses));
  const args = step.args;
  const identifier = args[flows.account.identifier];
  switch (action) {
    case 'signUp':
      return sessionJson(ctx, step, await flows.signUp((args['input'] ?? {}) as Readonly<Record<string, unknown>>, args['password'], request), used);
    case 'signIn':
      return sessionJson(ctx, step, await flows.signIn(identifier, args['password'], request), used);
    case 'refreshSession':
      return sessionJson(ctx, step, await flows.refresh(args['refreshToken'], request), used);
    case 'signOut':
      await flows.signOut(args['refreshToken'], request);
      return 'true';
    case 'signOutEverywhere':
      await flows.signOutEverywhere(request);
      return 'true';
    case 'changePassword':
      await flows.changePassword(args['currentPassword'], args['newPassword'], request);
      return 'true';
    case 'requestPasswordReset':
      await flows.requestPasswordReset(identifier, request);
      return 'true';
    case 'resetPassword':
      await flows.confirmPasswordReset(args['token'], args['password'], request);
      return 'true';
    case 'requestEmailVerification':
      await flows.requestEmailVerification(request);
      return 'true';
    case 'verifyEmail':
      await flows.confirmEmailVerification(args['token'], request);
      return 'true';
  }
}

async function sessionJson(ctx: RunContext, step: DataStep, session: Session, used: (readonly DeprecatedUse[])[]): Promise<string> {
  const members: string[] = [];
  for (const { key, field } of step.session ?? []) {
    let json: string;
    if (field === '__typename') json = '"AuthSession"';
    else if (field === 'account') json = await accountJson(ctx, step, session, used);
    else json = JSON.stringify(session[field as keyof Session]);
    members.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${members.join(',')}}`;
}

/** The account as the one who just signed in sees it: the same plan and rules as `me` would use. */
async function accountJson(ctx: RunContext, step: DataStep, session: Session, used: (readonly DeprecatedUse[])[]): Promise<string> {
  const flows = ctx.accounts;
  if (flows === undefined) throw new Error('accounts mutation without an accounts service');
  const principal = flows.principalOf(session);
  const plan = planReadOne(ctx.engine.model, step.role.type.name, session.accountId, step.select, { limits: ctx.planLimits, fromText: false, principal });
  used.push(plan.deprecations);
  const result = await ctx.engine.read(plan, ctx.context);
  return result.kind === 'one' && result.json !== null ? result.json : 'null';
}
