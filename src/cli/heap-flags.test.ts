import { describe, expect, it } from 'vitest';
import { serverRestartArgs, SERVER_NODE_FLAGS } from './heap-flags.js';

const GiB = 1024 ** 3;
const NODE = '/usr/bin/node';
const serve = [NODE, '/app/dist/cli/main.js', 'serve', '--db', 'app.db'];

describe('serverRestartArgs', () => {
  it('runs serve and start again with the server flags first, keeping node flags, script and arguments in order', () => {
    expect(serverRestartArgs(NODE, ['--import', 'hook.mjs'], serve, '', 8 * GiB)).toEqual([
      NODE,
      ...SERVER_NODE_FLAGS,
      '--import',
      'hook.mjs',
      '/app/dist/cli/main.js',
      'serve',
      '--db',
      'app.db',
    ]);
    expect(serverRestartArgs(NODE, [], [NODE, 'main.js', 'start'], '', 8 * GiB)?.slice(1, -2)).toEqual(SERVER_NODE_FLAGS);
  });

  it('leaves other commands alone', () => {
    for (const command of ['check', 'migrate', 'seed', 'help']) {
      expect(serverRestartArgs(NODE, [], [NODE, 'main.js', command], '', 8 * GiB)).toBeUndefined();
    }
  });

  it("keeps the user's own value, however NODE_OPTIONS or the command line spells it", () => {
    for (const options of ['--max-semi-space-size=32', '--max_semi_space_size=32', '"--max-semi-space-size=32"', '--trace-gc --max-semi-space-size 32']) {
      expect(serverRestartArgs(NODE, [], serve, options, 8 * GiB), options).toBeUndefined();
    }
    expect(serverRestartArgs(NODE, ['--max-semi-space-size=8'], serve, '', 8 * GiB)).toBeUndefined();
  });

  it('does not restart under a debugger, which would stop twice', () => {
    expect(serverRestartArgs(NODE, ['--inspect-brk'], serve, '', 8 * GiB)).toBeUndefined();
    expect(serverRestartArgs(NODE, [], serve, '--inspect=9229', 8 * GiB)).toBeUndefined();
  });

  it('does not raise the young generation of a small heap, whose default is 16 MiB or less already', () => {
    expect(serverRestartArgs(NODE, [], serve, '', 2 * GiB)).toBeUndefined();
    expect(serverRestartArgs(NODE, [], serve, '', 512 * 1024 ** 2)).toBeUndefined();
  });
});
