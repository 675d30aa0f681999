import type { OptionSpec } from './option-spec.js';
import { OPTIONS } from './options.js';

/**
 * The configuration file `diglot init` writes: every option at its default,
 * each with its sentence and its flag and environment names; options with
 * no default (and credentials, which belong in the environment) are written
 * commented out, ready to fill in.
 */
export function configTemplate(overrides: Readonly<Record<string, unknown>> = {}): string {
  const specs = Object.values(OPTIONS) as readonly OptionSpec<unknown>[];
  const lines = [
    '// Diglot configuration. Every option can also be given as a flag or an environment variable;',
    '// the order is: flag, then environment, then this file, then the default.',
    '// This file is JSON with comments (like tsconfig.json). Reference: node_modules/diglot/docs/configuration.md.',
    '{',
  ];
  specs.forEach((spec, index) => {
    const last = index === specs.length - 1;
    lines.push(`  // ${spec.description}.`);
    lines.push(`  // ${spec.flag}${spec.kind.placeholder === undefined ? '' : ` ${spec.kind.placeholder}`} · ${spec.env.join(' or ')}`);
    if (spec.secret === true) lines.push('  // A credential: prefer the environment variable, and keep it out of version control.');
    const value = spec.key in overrides ? overrides[spec.key] : spec.default === undefined ? undefined : spec.kind.toJson(spec.default);
    const entry = `"${spec.key}": ${JSON.stringify(value ?? spec.kind.placeholder ?? null)}${last ? '' : ','}`;
    lines.push(value === undefined ? `  // ${entry}` : `  ${entry}`);
    if (!last) lines.push('');
  });
  lines.push('}', '');
  return lines.join('\n');
}
