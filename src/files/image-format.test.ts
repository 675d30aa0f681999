import { describe, expect, it } from 'vitest';
import { isApiError } from '../errors/api-error.js';
import { avif, gif, jpeg, png, SVG, TEXT, webp } from '../../test/support/images.js';
import { sniffImageFormat } from './image-format.js';

function refusal(head: Uint8Array): string {
  try {
    return `accepted as ${sniffImageFormat(head)}`;
  } catch (error) {
    return isApiError(error) ? `${error.code}: ${error.detail ?? ''}` : String(error);
  }
}

describe('sniffImageFormat', () => {
  it('recognises each allowed format by its magic bytes', async () => {
    expect(sniffImageFormat(await jpeg(1))).toBe('jpeg');
    expect(sniffImageFormat(await png(1))).toBe('png');
    expect(sniffImageFormat(await webp(1))).toBe('webp');
    expect(sniffImageFormat(await avif(1))).toBe('avif');
    expect(sniffImageFormat(await gif(1))).toBe('gif');
  });

  it('refuses SVG however it starts, saying why', () => {
    for (const text of ['<svg xmlns="http://www.w3.org/2000/svg"/>', '\uFEFF  \n<?xml version="1.0"?><svg/>', '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" ""><svg/>', '<!-- a comment --><svg width="1"/>']) {
      expect(refusal(Buffer.from(text))).toMatch(/^FILE_TYPE_NOT_ALLOWED: SVG is not accepted/);
    }
    expect(refusal(SVG)).toMatch(/^FILE_TYPE_NOT_ALLOWED: SVG/);
  });

  it('refuses everything else: text, HEIC, a bare RIFF, a short header', () => {
    expect(refusal(TEXT)).toMatch(/^FILE_TYPE_NOT_ALLOWED: The file is not a JPEG, PNG, WebP, AVIF or GIF image/);
    const heic = Buffer.concat([Buffer.from([0, 0, 0, 24]), Buffer.from('ftypheic\0\0\0\0mif1heic')]);
    expect(refusal(heic)).toMatch(/^FILE_TYPE_NOT_ALLOWED/);
    expect(refusal(Buffer.from('RIFF\0\0\0\0WAVEfmt '))).toMatch(/^FILE_TYPE_NOT_ALLOWED/);
    expect(refusal(Buffer.from([0xff, 0xd8]))).toMatch(/^FILE_TYPE_NOT_ALLOWED/);
    expect(refusal(Buffer.alloc(0))).toMatch(/^FILE_TYPE_NOT_ALLOWED/);
  });

  it('accepts AVIF when avif is only a compatible brand', () => {
    const mif1 = Buffer.concat([Buffer.from([0, 0, 0, 28]), Buffer.from('ftypmif1\0\0\0\0mif1miafavif')]);
    expect(sniffImageFormat(mif1)).toBe('avif');
  });
});
