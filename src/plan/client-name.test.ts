import { describe, expect, it } from 'vitest';
import { clientNameOf, MAX_CLIENT_NAME_LENGTH } from './request-context.js';

describe('clientNameOf (X-Client-Name)', () => {
  it('keeps a printable name of bounded length, trimmed', () => {
    expect(clientNameOf('ios-app/4.2 (beta)')).toBe('ios-app/4.2 (beta)');
    expect(clientNameOf('  web  ')).toBe('web');
    expect(clientNameOf('x'.repeat(MAX_CLIENT_NAME_LENGTH))).toBe('x'.repeat(MAX_CLIENT_NAME_LENGTH));
  });

  it('calls anything else unknown: absent, empty, too long, control or non-ASCII characters', () => {
    for (const name of [undefined, '', '   ', 'x'.repeat(MAX_CLIENT_NAME_LENGTH + 1), 'a\u0000b', 'a\tb', 'café', 'a\u007fb']) {
      expect(clientNameOf(name), JSON.stringify(name)).toBe('unknown');
    }
  });
});
