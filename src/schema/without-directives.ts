/**
 * SDL text with every use of the directives starting with these prefixes
 * taken out, arguments and all (`@allow(`, or `@default(fromAuth` for one
 * kind of a directive's uses): parentheses balanced, strings skipped. The
 * tests and the bench serve the example schema without its rules this way,
 * to measure and prove the rest apart from permissions.
 */
export function withoutDirectives(text: string, prefixes: readonly string[]): string {
  return prefixes.reduce(withoutDirective, text);
}

function withoutDirective(text: string, prefix: string): string {
  let out = '';
  let at = 0;
  for (let start = text.indexOf(prefix, at); start >= 0; start = text.indexOf(prefix, at)) {
    out += text.slice(at, start);
    let depth = 0;
    let quoted = false;
    let i = text.indexOf('(', start);
    for (; i >= 0 && i < text.length; i++) {
      const c = text[i];
      if (quoted) {
        if (c === '\\') i++;
        else if (c === '"') quoted = false;
      } else if (c === '"') quoted = true;
      else if (c === '(') depth++;
      else if (c === ')' && --depth === 0) break;
    }
    at = i < 0 ? text.length : i + 1;
  }
  return out + text.slice(at);
}
