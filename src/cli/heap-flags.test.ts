import { describe, expect, it } from 'vitest';
import { databaseOf, serverNodeFlags, serverRestartArgs } from './heap-flags.js';

const GiB = 1024 ** 3;
const NODE = '/usr/bin/node';
const serve = [NODE, '/app/dist/cli/main.js', 'serve', '--db', 'app.db'];
const SQLITE_FLAGS = serverNodeFlags('app.db');

describe('serverRestartArgs', () => {
  it('runs serve and start again with the server flags first, keeping node flags, script and arguments in order', () => {
    expect(serverRestartArgs(NODE, ['--import', 'hook.mjs'], serve, {}, 8 * GiB)).toEqual([
      NODE,
      ...SQLITE_FLAGS,
      '--import',
      'hook.mjs',
      '/app/dist/cli/main.js',
      'serve',
      '--db',
      'app.db',
    ]);
    expect(serverRestartArgs(NODE, [], [NODE, 'main.js', 'start'], {}, 8 * GiB)?.slice(1, -2)).toEqual(SQLITE_FLAGS);
  });

  it('leaves other commands alone', () => {
    for (const command of ['check', 'migrate', 'seed', 'help']) {
      expect(serverRestartArgs(NODE, [], [NODE, 'main.js', command], {}, 8 * GiB)).toBeUndefined();
    }
  });

  it("keeps the user's own value, however NODE_OPTIONS or the command line spells it", () => {
    for (const options of ['--max-semi-space-size=32', '--max_semi_space_size=32', '"--max-semi-space-size=32"', '--trace-gc --max-semi-space-size 32']) {
      expect(serverRestartArgs(NODE, [], serve, { NODE_OPTIONS: options }, 8 * GiB), options).toBeUndefined();
    }
    expect(serverRestartArgs(NODE, ['--max-semi-space-size=8'], serve, {}, 8 * GiB)).toBeUndefined();
  });

  it('does not restart under a debugger, which would stop twice', () => {
    expect(serverRestartArgs(NODE, ['--inspect-brk'], serve, {}, 8 * GiB)).toBeUndefined();
    expect(serverRestartArgs(NODE, [], serve, { NODE_OPTIONS: '--inspect=9229' }, 8 * GiB)).toBeUndefined();
  });

  it('does not raise the young generation of a small heap, whose default is 16 MiB or less already', () => {
    expect(serverRestartArgs(NODE, [], serve, {}, 2 * GiB)).toBeUndefined();
    expect(serverRestartArgs(NODE, [], serve, {}, 512 * 1024 ** 2)).toBeUndefined();
  });

  it('gives a PostgreSQL server a smaller young generation than a SQLite one, wherever the database is named', () => {
    const PG = 'postgres://app@db:5432/app';
    const flagsFor = (argv: readonly string[], env: Record<string, string> = {}): readonly string[] | undefined => serverRestartArgs(NODE, [], argv, env, 8 * GiB)?.slice(1, -argv.length + 1);
    expect(serverNodeFlags(PG)).not.toEqual(SQLITE_FLAGS);
    expect(serverNodeFlags('postgresql://x/y')).toEqual(serverNodeFlags(PG));
    expect(flagsFor([NODE, 'main.js', 'serve', '--db', PG])).toEqual(serverNodeFlags(PG));
    expect(flagsFor([NODE, 'main.js', 'serve', `--db=${PG}`])).toEqual(serverNodeFlags(PG));
    expect(flagsFor([NODE, 'main.js', 'serve', '-d', PG])).toEqual(serverNodeFlags(PG));
    expect(flagsFor([NODE, 'main.js', 'serve'], { DATABASE_URL: PG })).toEqual(serverNodeFlags(PG));
    expect(flagsFor([NODE, 'main.js', 'serve', '--db', 'app.db'], { DATABASE_URL: PG })).toEqual(SQLITE_FLAGS);
    expect(flagsFor([NODE, 'main.js', 'serve'])).toEqual(SQLITE_FLAGS);
  });
});

describe('databaseOf', () => {
  it('reads --db before DIGLOT_DB before DATABASE_URL, and the default is empty', () => {
    expect(databaseOf([NODE, 'main.js', 'serve', '--port', '3000', '--db', 'a.db'], { DIGLOT_DB: 'b.db' })).toBe('a.db');
    expect(databaseOf([NODE, 'main.js', 'serve'], { DIGLOT_DB: 'b.db', DATABASE_URL: 'c' })).toBe('b.db');
    expect(databaseOf([NODE, 'main.js', 'serve'], {})).toBe('');
  });
});
