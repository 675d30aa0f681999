import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DIGLOT_PRELUDE_SDL } from '../../src/schema/directives.js';

const PAGE = readFileSync(new URL('../../docs/schema.md', import.meta.url), 'utf8');
/** Each directive's definition line, as the loader reads it. */
const DEFINITIONS = [...DIGLOT_PRELUDE_SDL.matchAll(/^directive @(\w+).*$/gm)].map((match) => ({ name: match[1] ?? '', line: match[0] }));

describe('docs/schema.md, the directive reference', () => {
  it('has a section with the exact definition of every directive the loader knows, and no other', () => {
    expect(DEFINITIONS.length).toBeGreaterThan(10);
    const headings = [...PAGE.matchAll(/^### (.+)$/gm)].flatMap((match) => [...(match[1] ?? '').matchAll(/@(\w+)/g)].map((name) => name[1]));
    expect([...headings].sort()).toEqual(DEFINITIONS.map((definition) => definition.name).sort());
    for (const { line } of DEFINITIONS) expect(PAGE).toContain(`\`\`\`graphql\n${line}\n\`\`\``);
  });

});
