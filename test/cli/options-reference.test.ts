import { readFileSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { optionsReference } from '../../src/cli/config/options-reference.js';

const README = new URL('../../docs/configuration.md', import.meta.url);
const START = '<!-- options:start (made from src/cli/config/options.ts; UPDATE_SNAPSHOTS=1 npx vitest run test/cli/options-reference.test.ts) -->';
const END = '<!-- options:end -->';

describe('the table of options in docs/configuration.md', () => {
  it('lists exactly the options the command line reads', () => {
    const text = readFileSync(README, 'utf8');
    const start = text.indexOf(START);
    const end = text.indexOf(END);
    expect(start, 'docs/configuration.md has no options table markers').toBeGreaterThan(0);
    const table = text.slice(start + START.length, end).trim();
    if (process.env['UPDATE_SNAPSHOTS'] === '1' && table !== optionsReference()) {
      writeFileSync(README, `${text.slice(0, start + START.length)}\n${optionsReference()}\n${text.slice(end)}`);
      return;
    }
    expect(table).toBe(optionsReference());
  });
});
