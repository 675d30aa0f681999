import { describe, expect, it } from 'vitest';
import { configTemplate } from './config-template.js';
import { OPTIONS, type OptionKey } from './options.js';
import { parseConfigText } from './read-config-file.js';
import { OptionsError, resolveOptions } from './resolve-options.js';

const ALL = Object.keys(OPTIONS) as OptionKey[];

function problemsOf(work: () => unknown): readonly string[] {
  try {
    work();
  } catch (error) {
    if (error instanceof OptionsError) return error.problems;
    throw error;
  }
  throw new Error('expected an OptionsError');
}

describe('option precedence', () => {
  const file = parseConfigText('diglot.config.json', '{ "port": 4100, "host": "0.0.0.0", "queryTimeout": 900, "logLevel": "warn" }');

  it('takes a flag over the environment over the file over the default', () => {
    const { values, sources } = resolveOptions(['port', 'host', 'queryTimeout', 'logLevel', 'db'], {
      flags: { port: '4300' },
      env: { DIGLOT_PORT: '4200', DIGLOT_HOST: '::1', DIGLOT_QUERY_TIMEOUT: '' },
      file,
    });
    expect(values).toEqual({ port: 4300, host: '::1', queryTimeout: 900, logLevel: 'warn', db: 'diglot.db' });
    expect(sources).toEqual({ port: 'flag', host: 'env', queryTimeout: 'file', logLevel: 'file', db: 'default' });
  });

  it("reads a convention's variable (PORT) after Diglot's own (DIGLOT_PORT)", () => {
    expect(resolveOptions(['port'], { flags: {}, env: { PORT: '5000' }, file: undefined }).values.port).toBe(5000);
    expect(resolveOptions(['port'], { flags: {}, env: { PORT: '5000', DIGLOT_PORT: '5001' }, file: undefined }).values.port).toBe(5001);
  });

  it('turns a switch on with a bare flag, and reads true/false from the environment and the file', () => {
    const on = parseConfigText('c.json', '{ "requireIfMatch": true }');
    expect(resolveOptions(['requireIfMatch'], { flags: { requireIfMatch: true }, env: {}, file: undefined }).values.requireIfMatch).toBe(true);
    expect(resolveOptions(['requireIfMatch'], { flags: {}, env: { DIGLOT_REQUIRE_IF_MATCH: 'false' }, file: on }).values.requireIfMatch).toBe(false);
    expect(resolveOptions(['requireIfMatch'], { flags: {}, env: {}, file: on }).values.requireIfMatch).toBe(true);
  });

  it('reads a list from repeated flags, a comma-separated variable or an array', () => {
    expect(resolveOptions(['schema'], { flags: { schema: ['a.graphql', 'b.graphql'] }, env: {}, file: undefined }).values.schema).toEqual(['a.graphql', 'b.graphql']);
    expect(resolveOptions(['schema'], { flags: {}, env: { DIGLOT_SCHEMA: 'a.graphql, b.graphql' }, file: undefined }).values.schema).toEqual(['a.graphql', 'b.graphql']);
    const file = parseConfigText('/app/c.json', '{ "schema": ["model/users.graphql"] }');
    expect(resolveOptions(['schema'], { flags: {}, env: {}, file }).values.schema).toEqual(['/app/model/users.graphql']);
  });
});

describe('option problems', () => {
  it('refuses an unknown key of the file at its line and column, with a suggestion', () => {
    const file = parseConfigText('diglot.config.json', '{\n  // the port\n  "prot": 4000,\n  "zzzzzz": 1\n}');
    expect(problemsOf(() => resolveOptions(['port'], { flags: {}, env: {}, file }))).toEqual([
      'diglot.config.json:3:3 unknown option "prot"; did you mean "port"?',
      'diglot.config.json:4:3 unknown option "zzzzzz"',
    ]);
  });

  it('reports every bad value at once, each named by where it came from', () => {
    const file = parseConfigText('diglot.config.json', '{\n  "queryTimeout": "5s",\n  "logLevel": "loud"\n}');
    const problems = problemsOf(() =>
      resolveOptions(['port', 'host', 'queryTimeout', 'logLevel', 'adminKey'], { flags: { port: '70000' }, env: { DIGLOT_ADMIN_KEY: 'short' }, file }),
    );
    expect(problems).toEqual([
      '--port: must be a whole number of a port from 0 to 65535',
      'diglot.config.json:2:3 queryTimeout: must be a number, got "5s"',
      'diglot.config.json:3:3 logLevel: must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'DIGLOT_ADMIN_KEY: an admin key must be 32 characters or more (it is 5)',
    ]);
  });

  it('points at a syntax error in the file', () => {
    expect(() => parseConfigText('diglot.config.json', '{\n  "port": 4000\n  "host": "::1"\n}')).toThrow(/^diglot\.config\.json:3:3 comma expected/);
  });
});

describe('the configuration template', () => {
  it('reads back as every option at its default, from the file', () => {
    const file = parseConfigText('/app/diglot.config.json', configTemplate());
    const { values, sources } = resolveOptions(ALL, { flags: {}, env: {}, file });
    for (const key of ALL) {
      const spec: { default: unknown; path?: boolean } = OPTIONS[key];
      expect(values[key], key).toEqual(spec.path === true && typeof spec.default === 'string' ? `/app/${spec.default}` : spec.default);
      expect(sources[key], key).toBe(OPTIONS[key].default === undefined ? 'default' : 'file');
    }
  });

  it('explains every option and never writes a credential', () => {
    const template = configTemplate();
    for (const spec of Object.values(OPTIONS)) {
      expect(template).toContain(spec.description);
      expect(template).toContain(spec.env[0]);
    }
    expect(template).toContain('// "adminKey": "<key>"');
    expect(template).toContain('// "jwtSecret": "<secret>"');
  });
});

describe('paths in the configuration file', () => {
  it('are relative to the file, while URLs and paths from flags are kept as written', () => {
    const file = parseConfigText('/srv/app/diglot.config.json', '{ "schema": ["model.graphql"], "db": "data/app.db", "files": "/var/files" }');
    expect(resolveOptions(['schema', 'db', 'files'], { flags: {}, env: {}, file }).values).toEqual({
      schema: ['/srv/app/model.graphql'],
      db: '/srv/app/data/app.db',
      files: '/var/files',
    });
    const url = parseConfigText('/srv/app/diglot.config.json', '{ "db": "postgres://u@db:5432/app" }');
    expect(resolveOptions(['db'], { flags: {}, env: {}, file: url }).values.db).toBe('postgres://u@db:5432/app');
    expect(resolveOptions(['db'], { flags: { db: 'here.db' }, env: {}, file }).values.db).toBe('here.db');
  });
});
