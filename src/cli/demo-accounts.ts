import { createAccounts, type Accounts, type AccountsOptions } from '../auth/accounts/accounts.js';
import type { Engine } from '../engine/engine.js';
import { planReadOne, DEFAULT_LIMITS } from '../plan/build-read.js';
import type { Principal } from '../plan/principal.js';
import { serverContext, SILENT_LOG } from '../plan/request-context.js';

/** The seeded accounts `diglot start` may give a known password (demo data's ids are "1".."n"): user 42 (the demo member token's) first. */
const CANDIDATE_IDS = ['42', ...Array.from({ length: 40 }, (_, i) => String(i + 1))];
const DEMO_ACCOUNTS = 3;

/**
 * Gives a few seeded accounts a known password, `demo-password-<id>`, and
 * returns the banner's lines naming them: for the demo database only, made
 * when `start` seeds it (README "Accounts").
 */
export async function seedDemoPasswords(engine: Engine, options: AccountsOptions): Promise<string[]> {
  const accounts = await createAccounts(engine, options);
  if (accounts === undefined) return [];
  try {
    return await demoPasswords(engine, accounts);
  } finally {
    await accounts.close();
  }
}

async function demoPasswords(engine: Engine, accounts: Accounts): Promise<string[]> {
  const admin: Principal = Object.freeze({ id: null, role: engine.model.roles?.admin ?? 'ADMIN', claims: Object.freeze({}), admin: true, via: 'admin-key' });
  const { identifier, suspended } = accounts.account;
  const select = [identifier, ...(suspended === undefined ? [] : [suspended])].map((field) => ({ key: field, field }));
  const context = serverContext(admin, SILENT_LOG);
  const lines: string[] = [];
  for (const id of CANDIDATE_IDS) {
    if (lines.length === DEMO_ACCOUNTS) break;
    const read = await engine.read(planReadOne(engine.model, accounts.type.name, id, select, { limits: DEFAULT_LIMITS, fromText: false, principal: admin }), context);
    if (read.kind !== 'one' || read.json === null) continue;
    const record = JSON.parse(read.json) as Record<string, unknown>;
    // The fake data suspends some users; those could not sign in.
    if (suspended !== undefined && record[suspended] !== null && record[suspended] !== false) continue;
    const value = record[identifier];
    const password = `demo-password-${id}`;
    await accounts.setPassword(id, password);
    lines.push(`  ${String(value)}   ${password}`);
  }
  return lines.length === 0 ? [] : ['Demo accounts (demo data only; sign in with POST /auth/sign-in):', ...lines];
}
