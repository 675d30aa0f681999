/**
 * "Did you mean ...?" for misspelled names: schema types and directives,
 * REST fields and query parameters, GraphQL fields, config keys.
 */

/**
 * The candidate closest to `input`, or undefined when none is close enough.
 *
 * Distance is Damerau-Levenshtein (optimal string alignment: insert, delete,
 * substitute, swap two neighbours), compared case-insensitively; a candidate
 * that differs only in case counts as distance 1 so it still beats real typos
 * of other names. The threshold follows graphql-js's `suggestionList`
 * (`floor(length * 0.4) + 1`), so both front-ends suggest alike. Ties go to
 * the alphabetically first candidate, to keep messages stable.
 */
export function suggest(input: string, candidates: Iterable<string>): string | undefined {
  const threshold = Math.floor(input.length * 0.4) + 1;
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    if (candidate === input) continue;
    const distance = nameDistance(input, candidate);
    if (distance > threshold) continue;
    if (distance < bestDistance || (distance === bestDistance && best !== undefined && candidate < best)) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

function nameDistance(a: string, b: string): number {
  const lowerA = a.toLowerCase();
  const lowerB = b.toLowerCase();
  if (lowerA === lowerB) return 1;
  return editDistance(lowerA, lowerB);
}

/** Optimal string alignment distance (Damerau-Levenshtein without repeated edits of one substring). */
export function editDistance(a: string, b: string): number {
  if (a === b) return 0;
  // Three rolling rows: the transposition step looks two rows back.
  let twoBack = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        at(previous, j) + 1, // deletion
        at(current, j - 1) + 1, // insertion
        at(previous, j - 1) + cost, // substitution
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(twoBack, j - 2) + 1); // transposition
      }
      current[j] = value;
    }
    [twoBack, previous, current] = [previous, current, twoBack];
  }
  return at(previous, b.length);
}

function at(row: readonly number[], index: number): number {
  // Indices are always in range here; the fallback only satisfies noUncheckedIndexedAccess.
  return row[index] ?? Infinity;
}
