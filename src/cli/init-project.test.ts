import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadSchemaFiles } from '../schema/load-schema.js';
import { readConfigFile } from './config/read-config-file.js';
import { resolveOptions } from './config/resolve-options.js';
import { initProject, InitRefusedError } from './init-project.js';

const made: string[] = [];
function emptyFolder(): string {
  const directory = mkdtempSync(join(tmpdir(), 'diglot-init-'));
  made.push(directory);
  return directory;
}
afterEach(() => {
  for (const directory of made.splice(0)) rmSync(directory, { recursive: true, force: true });
});

describe('diglot init', () => {
  it('writes a schema that loads with rules, a configuration that names it, and .gitignore lines', async () => {
    const directory = emptyFolder();
    expect(initProject(directory).written).toEqual(['schema.graphql', 'diglot.config.json', '.gitignore']);
    const loaded = await loadSchemaFiles([join(directory, 'schema.graphql')]);
    if (!loaded.ok) throw new Error(JSON.stringify(loaded.problems));
    expect(loaded.model.hasRules).toBe(true);
    expect(loaded.model.types.map((type) => type.name)).toEqual(['Member', 'Note']);
    const file = readConfigFile(join(directory, 'diglot.config.json'), true);
    expect(resolveOptions(['schema', 'port'], { flags: {}, env: {}, file }).values).toEqual({ schema: [join(directory, 'schema.graphql')], port: 4000 });
    expect(readFileSync(join(directory, '.gitignore'), 'utf8').split('\n')).toEqual(expect.arrayContaining(['*.db', '*.db-wal', '*.db.secret', '.diglot/']));
  });

  it('keeps an existing .gitignore and adds only the missing lines', () => {
    const directory = emptyFolder();
    writeFileSync(join(directory, '.gitignore'), 'node_modules/\n*.db');
    initProject(directory);
    const lines = readFileSync(join(directory, '.gitignore'), 'utf8').split('\n');
    expect(lines.slice(0, 2)).toEqual(['node_modules/', '*.db']);
    expect(lines.filter((line) => line === '*.db')).toHaveLength(1);
    expect(lines).toContain('*.db-wal');
  });

  it('refuses to overwrite, and writes nothing', () => {
    const directory = emptyFolder();
    writeFileSync(join(directory, 'schema.graphql'), 'type Mine { id: ID! }\n');
    expect(() => initProject(directory)).toThrow(InitRefusedError);
    expect(readFileSync(join(directory, 'schema.graphql'), 'utf8')).toBe('type Mine { id: ID! }\n');
    expect(() => readFileSync(join(directory, 'diglot.config.json'))).toThrow(/ENOENT/);
  });
});
