import { expect, it } from 'vitest';
import { describeEachDialect } from '../../../test/support/databases.js';
import { loadExampleModel } from '../../../test/support/start-server.js';
import { createEngine } from '../../engine/engine.js';
import { ANONYMOUS } from '../../plan/principal.js';
import { migrate } from '../../storage/migrate/migrate.js';
import { testContext } from '../../../test/support/contexts.js';
import { accountRequestOf, createAccounts } from './accounts.js';
import { createPasswordHasher } from './password-hash.js';

const REQUEST = accountRequestOf({ ...testContext(ANONYMOUS), client: { key: 'ip:127.0.0.1', address: '127.0.0.1', name: 'unknown' } }, () => undefined);

it('hashes with argon2id and the parameters asked for, and tells an outdated hash', async () => {
  const hasher = createPasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });
  const stored = await hasher.hash('a long enough password');
  expect(stored).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
  expect(await hasher.verify(stored, 'a long enough password')).toBe(true);
  expect(await hasher.verify(stored, 'another password')).toBe(false);
  expect(await hasher.verify('not a hash', 'a long enough password')).toBe(false);
  expect(hasher.outdated(stored)).toBe(false);
  expect(createPasswordHasher({ memoryCost: 2048, timeCost: 1, parallelism: 1 }).outdated(stored)).toBe(true);
  expect(createPasswordHasher().outdated(stored)).toBe(true);
});

describeEachDialect('Password hashes', (ctx) => {
  it('are kept apart from the account, and made again at sign-in when the parameters changed', async () => {
    const model = await loadExampleModel();
    const db = await ctx.open();
    await migrate(db, model, { allowDestructive: false, dryRun: false });
    const engine = createEngine(model, db);
    const before = await createAccounts(engine, { passwordHash: { memoryCost: 1024, timeCost: 1, parallelism: 1 } });
    const password = 'rehash me when costs rise';
    const session = await before?.signUp({ name: 'Ada', email: 'ada@example.com' }, password, REQUEST);
    const stored = async (): Promise<string> =>
      ((await db.all<{ password_hash: string }>('SELECT password_hash FROM _diglot_credentials'))[0] as { password_hash: string }).password_hash;
    expect(await stored()).toMatch(/^\$argon2id\$v=19\$m=1024,t=1,p=1\$/);
    expect(await stored()).not.toContain(password);
    const user = (await db.all('SELECT * FROM users'))[0];
    expect(Object.values(user ?? {}).some((value) => String(value).includes('argon2'))).toBe(false);

    const after = await createAccounts(engine, { passwordHash: { memoryCost: 2048, timeCost: 1, parallelism: 1 } });
    const again = await after?.signIn('ada@example.com', password, REQUEST);
    expect(again?.accountId).toBe(session?.accountId);
    expect(await stored()).toMatch(/^\$argon2id\$v=19\$m=2048,t=1,p=1\$/);
    expect((await after?.signIn('ada@example.com', password, REQUEST))?.accountId).toBe(session?.accountId);
  });
});
