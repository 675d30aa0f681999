import { describe, expect, it } from 'vitest';
import { inlineDisposition, servedFileHeaders } from './served-file-headers.js';

describe('inlineDisposition', () => {
  it('quotes a plain ASCII name as it is, with no filename*', () => {
    expect(inlineDisposition(`${'a'.repeat(64)}.png`)).toBe(`inline; filename="${'a'.repeat(64)}.png"`);
    expect(inlineDisposition('avatar-64.webp')).toBe('inline; filename="avatar-64.webp"');
  });

  it('gives other names an ASCII stand-in and the real name in filename* (RFC 8187)', () => {
    expect(inlineDisposition('ünïcode "x".png')).toBe(`inline; filename="_n_code__x_.png"; filename*=UTF-8''%C3%BCn%C3%AFcode%20%22x%22.png`);
    expect(inlineDisposition("a'b(c)*.png")).toBe(`inline; filename="a_b_c__.png"; filename*=UTF-8''a%27b%28c%29%2A.png`);
    expect(inlineDisposition('a\r\nSet-Cookie: x.png')).not.toMatch(/[\r\n]/);
  });
});

describe('servedFileHeaders', () => {
  it('sandboxes the file, fixes its type and names it', () => {
    expect(servedFileHeaders('k.png', 'image/png')).toEqual({
      'content-type': 'image/png',
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'content-disposition': 'inline; filename="k.png"',
    });
  });
});
