import type { StringValueNode } from 'graphql';
import { locate } from './schema-problem.js';

/**
 * Where in the file an offset into a string literal's *value* lies, so that
 * a problem in a rule points at its token, not at the string. A plain
 * string's escapes (`\"`, `\u00e9`) are longer in the file than in the
 * value; a block string's value is dedented and stripped of its first and
 * last blank lines (GraphQL's BlockStringValue(), spec §2.9.4), so its
 * lines are rebuilt the same way here, each character remembering where it
 * was read. If the rebuilt value does not match (it always should), the
 * string's own position is the answer.
 */
export function positionInString(node: StringValueNode, offset: number): { file: string; line: number; column: number } {
  const at = locate(node);
  const loc = node.loc;
  if (loc === undefined) return at;
  const body = loc.source.body;
  const map = node.block === true ? blockStringMap(body, loc.start, loc.end) : plainStringMap(body, loc.start, loc.end);
  if (map.value !== node.value) return at;
  const raw = map.raw[Math.min(Math.max(offset, 0), map.raw.length - 1)] ?? loc.start;
  // Count the lines from the string's start: a block string may span several.
  let line = at.line;
  let lineStart = loc.start - (at.column - 1);
  for (let index = loc.start; index < raw; index++) {
    const code = body.charCodeAt(index);
    if (code === 0x0a || (code === 0x0d && body.charCodeAt(index + 1) !== 0x0a)) {
      line++;
      lineStart = index + 1;
    }
  }
  return { file: at.file, line, column: raw - lineStart + 1 };
}

/** The value, and for each of its UTF-16 units (and one past its end) the index in the file it came from. */
interface StringMap {
  readonly value: string;
  readonly raw: readonly number[];
}

function plainStringMap(body: string, start: number, end: number): StringMap {
  let value = '';
  const raw: number[] = [];
  let at = start + 1;
  const close = end - 1;
  while (at < close) {
    if (body.charAt(at) !== '\\') {
      value += body.charAt(at);
      raw.push(at);
      at++;
      continue;
    }
    const [decoded, length] = decodeEscape(body, at);
    value += decoded;
    for (let unit = 0; unit < decoded.length; unit++) raw.push(at);
    at += length;
  }
  raw.push(close);
  return { value, raw };
}

/** One escape sequence of a plain GraphQL string: its value and its length in the file. */
function decodeEscape(body: string, at: number): [string, number] {
  const kind = body.charAt(at + 1);
  const simple: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', '/': '/', b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  const plain = simple[kind];
  if (plain !== undefined) return [plain, 2];
  if (kind !== 'u') return [kind, 2];
  if (body.charAt(at + 2) === '{') {
    const close = body.indexOf('}', at + 3);
    return [String.fromCodePoint(Number.parseInt(body.slice(at + 3, close), 16)), close - at + 1];
  }
  const code = Number.parseInt(body.slice(at + 2, at + 6), 16);
  const isHigh = code >= 0xd800 && code <= 0xdbff;
  if (isHigh && body.slice(at + 6, at + 8) === '\\u') {
    const low = Number.parseInt(body.slice(at + 8, at + 12), 16);
    if (low >= 0xdc00 && low <= 0xdfff) return [String.fromCharCode(code, low), 12];
  }
  return [String.fromCharCode(code), 6];
}

interface RawLine {
  text: string;
  raw: number[];
  /** Index in the file of the line's terminator (or of the closing quotes). */
  end: number;
}

function blockStringMap(body: string, start: number, end: number): StringMap {
  const lines: RawLine[] = [];
  let line: RawLine = { text: '', raw: [], end: 0 };
  let at = start + 3;
  const close = end - 3;
  while (at < close) {
    const code = body.charCodeAt(at);
    if (code === 0x5c && body.startsWith('"""', at + 1)) {
      line.text += '"""';
      line.raw.push(at + 1, at + 2, at + 3);
      at += 4;
      continue;
    }
    if (code === 0x0a || code === 0x0d) {
      line.end = at;
      lines.push(line);
      line = { text: '', raw: [], end: 0 };
      at += code === 0x0d && body.charCodeAt(at + 1) === 0x0a ? 2 : 1;
      continue;
    }
    line.text += body.charAt(at);
    line.raw.push(at);
    at++;
  }
  line.end = close;
  lines.push(line);

  // GraphQL's dedent: the common indentation of every line but the first, then blank lines trimmed at both ends.
  const indentOf = (text: string): number => text.length - text.replace(/^[ \t]*/, '').length;
  let common = Number.MAX_SAFE_INTEGER;
  let first: number | undefined;
  let last = -1;
  lines.forEach((candidate, index) => {
    const indent = indentOf(candidate.text);
    if (indent === candidate.text.length) return;
    first ??= index;
    last = index;
    if (index !== 0 && indent < common) common = indent;
  });
  const kept = lines
    .map((candidate, index) => (index === 0 ? candidate : { text: candidate.text.slice(common), raw: candidate.raw.slice(common), end: candidate.end }))
    .slice(first ?? 0, last + 1);
  let value = '';
  const raw: number[] = [];
  kept.forEach((candidate, index) => {
    if (index > 0) {
      value += '\n';
      raw.push(kept[index - 1]?.end ?? candidate.end);
    }
    value += candidate.text;
    raw.push(...candidate.raw);
  });
  raw.push(kept[kept.length - 1]?.end ?? close);
  return { value, raw };
}
