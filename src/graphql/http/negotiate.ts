/**
 * `Accept` negotiation for /graphql (GraphQL over HTTP §7 "Body", RFC 9110
 * §12.5.1). The official media type wins when it is named; wildcards mean
 * application/json, which every client understands (the spec's watershed
 * rule); HTML only when the client names it (a browser) and only on GET.
 */
export const GRAPHQL_RESPONSE_JSON = 'application/graphql-response+json';
export const JSON_MEDIA = 'application/json';
export const HTML_MEDIA = 'text/html';

export type ResponseMedia = typeof GRAPHQL_RESPONSE_JSON | typeof JSON_MEDIA | typeof HTML_MEDIA;

interface Range {
  readonly type: string;
  readonly subtype: string;
  readonly q: number;
}

/** Candidates in the order ties go, each with the ranges allowed to select it. */
const CANDIDATES: readonly { readonly media: ResponseMedia; readonly matches: (range: Range) => number }[] = [
  { media: GRAPHQL_RESPONSE_JSON, matches: (r) => (r.type === 'application' && r.subtype === 'graphql-response+json' ? 3 : 0) },
  {
    media: JSON_MEDIA,
    matches: (r) => (r.type === 'application' && r.subtype === 'json' ? 3 : r.type === 'application' && r.subtype === '*' ? 2 : r.type === '*' ? 1 : 0),
  },
  { media: HTML_MEDIA, matches: (r) => (r.type === 'text' && r.subtype === 'html' ? 3 : r.type === 'text' && r.subtype === '*' ? 2 : 0) },
];

/**
 * Answers for the `Accept` headers seen so far: a client sends the same one
 * on every request, and parsing it each time was a measurable part of a
 * 304's CPU. Up to `KNOWN_LIMIT`, so headers made up per request only miss
 * the cache. (A newline cannot occur in a header value: it sets the two
 * kinds of key apart.)
 */
const known = new Map<string, ResponseMedia | undefined>();
const KNOWN_LIMIT = 64;

/** The media type to answer in, or undefined when the client accepts none of ours (406). */
export function negotiate(accept: string | undefined, allowHtml: boolean): ResponseMedia | undefined {
  if (accept === undefined) return JSON_MEDIA;
  const key = allowHtml ? `\n${accept}` : accept;
  if (known.has(key)) return known.get(key);
  const media = negotiateAnew(accept, allowHtml);
  if (known.size < KNOWN_LIMIT) known.set(key, media);
  return media;
}

function negotiateAnew(accept: string, allowHtml: boolean): ResponseMedia | undefined {
  if (accept.trim() === '') return JSON_MEDIA;
  const ranges = parseAccept(accept);
  let best: { media: ResponseMedia; q: number; specificity: number } | undefined;
  for (const candidate of CANDIDATES) {
    if (candidate.media === HTML_MEDIA && !allowHtml) continue;
    // RFC 9110 §12.5.1: the most specific matching range sets the quality.
    let specificity = 0;
    let q = 0;
    for (const range of ranges) {
      const score = candidate.matches(range);
      if (score > specificity) {
        specificity = score;
        q = range.q;
      }
    }
    if (specificity === 0 || q <= 0) continue;
    if (best === undefined || q > best.q || (q === best.q && specificity > best.specificity)) best = { media: candidate.media, q, specificity };
  }
  return best?.media;
}

function parseAccept(accept: string): Range[] {
  const ranges: Range[] = [];
  for (const part of accept.split(',')) {
    const [mediaRange = '', ...params] = part.split(';').map((piece) => piece.trim());
    const [type, subtype] = mediaRange.toLowerCase().split('/');
    if (type === undefined || subtype === undefined || type === '' || subtype === '') continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((piece) => piece.trim());
      if (name?.toLowerCase() === 'q' && value !== undefined) {
        const parsed = Number(value);
        q = Number.isFinite(parsed) ? Math.min(Math.max(parsed, 0), 1) : 1;
      }
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}
