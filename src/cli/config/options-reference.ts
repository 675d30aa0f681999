import type { OptionSpec } from './option-spec.js';
import { OPTIONS } from './options.js';

/** The table of options in docs/configuration.md, made from the table the CLI reads, so the two cannot disagree. */
export function optionsReference(): string {
  const rows = (Object.values(OPTIONS) as readonly OptionSpec<unknown>[]).map((spec) => {
    const flag = `\`${spec.short === undefined ? '' : `${spec.short}, `}${spec.flag}\``;
    const env = spec.env.map((name) => `\`${name}\``).join(', ');
    const fallback = spec.default === undefined ? '' : `\`${JSON.stringify(spec.kind.toJson(spec.default))}\``;
    return `| \`${spec.key}\` | ${flag} | ${env} | ${fallback} | ${spec.description.replaceAll('|', '\\|')} |`;
  });
  return ['| key in `diglot.config.json` | flag | environment | default | what it does |', '|---|---|---|---|---|', ...rows].join('\n');
}
