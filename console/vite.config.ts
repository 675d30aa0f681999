import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * The console's build: a page, one script and one stylesheet. The server
 * reads the page and serves what it names from its asset store (compressed
 * once, under content-hashed URLs cached for a year). No dynamic imports,
 * so no chunk refers to another by a relative URL.
 */
export default defineConfig({
  root,
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/console', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: false,
    sourcemap: false,
    reportCompressedSize: true,
  },
});
