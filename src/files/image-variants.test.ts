import { describe, expect, it } from 'vitest';
import { loadSchema } from '../schema/load-schema.js';
import { AVIF_MAX_WIDTH, chooseVariantFormat, variantWidths } from './image-variants.js';

describe('chooseVariantFormat', () => {
  const browser = 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8';
  it.each([
    [browser, 'jpeg', 64, 'avif'],
    [browser, 'png', AVIF_MAX_WIDTH, 'avif'],
    [browser, 'png', AVIF_MAX_WIDTH + 1, 'webp'],
    ['image/webp,*/*', 'jpeg', 64, 'webp'],
    ['image/avif', 'jpeg', 1280, 'avif'],
    ['image/webp;q=0.5, image/avif;q=0.9', 'png', 640, 'avif'],
    ['image/webp;q=0.9, image/avif;q=0.5', 'png', 64, 'webp'],
    ['*/*', 'jpeg', 64, 'jpeg'],
    ['image/*', 'gif', 64, 'gif'],
    [undefined, 'png', 64, 'png'],
    ['image/webp;q=0, image/avif;q=0', 'jpeg', 64, 'jpeg'],
    ['*/*', 'webp', 64, 'png'],
    ['text/html', 'avif', 64, 'png'],
  ] as const)('Accept %s, original %s, width %i → %s', (accept, original, width, expected) => {
    expect(chooseVariantFormat(accept, original, width)).toBe(expected);
  });
});

describe('variantWidths', () => {
  it('is every width any image field allows, once, in order', () => {
    const loaded = loadSchema([
      {
        file: 'w.graphql',
        text: 'type A { id: ID! p(size: Int): String @image(sizes: [64, 32]) } type B { id: ID! q(size: Int): String @image(sizes: [64, 512]) } type C { id: ID! }',
      },
    ]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(variantWidths(loaded.model)).toEqual([32, 64, 512]);
  });
});
