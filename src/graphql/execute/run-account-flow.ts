import { accountRequestOf, type Session } from '../../auth/accounts/accounts.js';
import { planReadOne } from '../../plan/build-read.js';
import type { AccountAction } from '../schema/roles.js';
import type { RootStep } from './compile-operation.js';
import type { RunContext } from './run-operation.js';

type DataStep = Extract<RootStep, { kind: 'data' }>;

/**
 * Runs an accounts mutation through the one implementation REST's `/auth/…`
 * routes call, and renders its answer: an `AuthSession` (its `account` read
 * as the new session's principal may read it) or `true`.
 */
export async function runAccountFlow(ctx: RunContext, step: DataStep, action: AccountAction): Promise<string> {
  if (ctx.accounts === undefined) throw new Error('accounts mutation without an accounts service');
  const flows = ctx.accounts;
  const request = accountRequestOf(ctx.context);
  const args = step.args;
  const identifier = args[flows.account.identifier];
  switch (action) {
    case 'signUp':
      return sessionJson(ctx, step, await flows.signUp((args['input'] ?? {}) as Readonly<Record<string, unknown>>, args['password'], request));
    case 'signIn':
      return sessionJson(ctx, step, await flows.signIn(identifier, args['password'], request));
    case 'refreshSession':
      return sessionJson(ctx, step, await flows.refresh(args['refreshToken'], request));
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

async function sessionJson(ctx: RunContext, step: DataStep, session: Session): Promise<string> {
  const members: string[] = [];
  for (const { key, field } of step.session ?? []) {
    let json: string;
    if (field === '__typename') json = '"AuthSession"';
    else if (field === 'account') json = await accountJson(ctx, step, session);
    else json = JSON.stringify(session[field as keyof Session]);
    members.push(`${JSON.stringify(key)}:${json}`);
  }
  return `{${members.join(',')}}`;
}

/** The account as the one who just signed in sees it: the same plan and rules as `me` would use. */
async function accountJson(ctx: RunContext, step: DataStep, session: Session): Promise<string> {
  const flows = ctx.accounts;
  if (flows === undefined) throw new Error('accounts mutation without an accounts service');
  const principal = flows.principalOf(session);
  const plan = planReadOne(ctx.engine.model, step.role.type.name, session.accountId, step.select, { limits: ctx.planLimits, fromText: false, principal });
  const result = await ctx.engine.read(plan, ctx.context);
  return result.kind === 'one' && result.json !== null ? result.json : 'null';
}
