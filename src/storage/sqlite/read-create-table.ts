import type { ActualCheck } from '../migrate/schema-spec.js';

/**
 * SQLite reports CHECK constraints nowhere but in the CREATE TABLE text it
 * keeps in sqlite_schema (ALTER TABLE ADD COLUMN appends to that text). This
 * reads the column-level checks back out of it: which column, the
 * constraint's name, and the constants of its `IN (...)` list.
 */

interface Token {
  readonly kind: 'word' | 'ident' | 'string' | 'number' | 'punct';
  readonly text: string;
}

export function readColumnChecks(createTable: string): Map<string, ActualCheck> {
  const checks = new Map<string, ActualCheck>();
  for (const definition of columnDefinitions(tokenize(createTable))) {
    const [first] = definition;
    if (first === undefined || (first.kind === 'word' && TABLE_CONSTRAINT.has(first.text.toUpperCase()))) continue;
    const at = definition.findIndex((token) => token.kind === 'word' && token.text.toUpperCase() === 'CHECK');
    if (at === -1) continue;
    const before = definition[at - 2];
    const name = before?.kind === 'word' && before.text.toUpperCase() === 'CONSTRAINT' ? (definition[at - 1]?.text ?? '') : '';
    checks.set(first.text, { name, values: inListValues(definition.slice(at + 1)) });
  }
  return checks;
}

const TABLE_CONSTRAINT = new Set(['CONSTRAINT', 'PRIMARY', 'UNIQUE', 'CHECK', 'FOREIGN']);

/** The tokens of each top-level comma-separated item between the table's outer parentheses. */
function columnDefinitions(tokens: readonly Token[]): Token[][] {
  const definitions: Token[][] = [];
  let depth = 0;
  let current: Token[] = [];
  for (const token of tokens) {
    if (token.kind === 'punct' && token.text === '(') {
      depth++;
      if (depth === 1) continue;
    } else if (token.kind === 'punct' && token.text === ')') {
      depth--;
      if (depth === 0) break;
    } else if (depth === 1 && token.kind === 'punct' && token.text === ',') {
      definitions.push(current);
      current = [];
      continue;
    }
    if (depth >= 1) current.push(token);
  }
  if (current.length > 0) definitions.push(current);
  return definitions;
}

/** Constants of the first `IN ( ... )` in a check's tokens. */
function inListValues(tokens: readonly Token[]): string[] {
  const at = tokens.findIndex((token, i) => token.kind === 'word' && token.text.toUpperCase() === 'IN' && tokens[i + 1]?.text === '(');
  if (at === -1) return [];
  const values: string[] = [];
  for (const token of tokens.slice(at + 2)) {
    if (token.kind === 'punct' && token.text === ')') break;
    if (token.kind === 'string' || token.kind === 'number') values.push(token.text);
  }
  return values;
}

function tokenize(sql: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql.charAt(i);
    if (/\s/.test(c)) {
      i++;
    } else if (c === "'" || c === '"' || c === '`') {
      const { text, end } = quoted(sql, i, c);
      tokens.push({ kind: c === "'" ? 'string' : 'ident', text });
      i = end;
    } else if (c === '[') {
      const end = sql.indexOf(']', i);
      const stop = end === -1 ? sql.length : end;
      tokens.push({ kind: 'ident', text: sql.slice(i + 1, stop) });
      i = stop + 1;
    } else if (/[-+0-9.]/.test(c) && /[0-9]/.test(sql.charAt(c === '-' || c === '+' ? i + 1 : i) || 'x')) {
      const match = /^[-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?/.exec(sql.slice(i));
      const text = match?.[0] ?? c;
      tokens.push({ kind: 'number', text: c === '+' ? text.slice(1) : text });
      i += text.length;
    } else if (/[A-Za-z_]/.test(c)) {
      const match = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i));
      const text = match?.[0] ?? c;
      tokens.push({ kind: 'word', text });
      i += text.length;
    } else if (c === '-' && sql.charAt(i + 1) === '-') {
      const end = sql.indexOf('\n', i);
      i = end === -1 ? sql.length : end + 1;
    } else {
      tokens.push({ kind: 'punct', text: c });
      i++;
    }
  }
  return tokens;
}

/** A quoted token starting at `start`; a doubled quote stands for one. */
function quoted(sql: string, start: number, quote: string): { text: string; end: number } {
  let text = '';
  let i = start + 1;
  while (i < sql.length) {
    const c = sql.charAt(i);
    if (c === quote) {
      if (sql.charAt(i + 1) === quote) {
        text += quote;
        i += 2;
        continue;
      }
      return { text, end: i + 1 };
    }
    text += c;
    i++;
  }
  return { text, end: i };
}
