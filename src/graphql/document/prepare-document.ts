import { GraphQLError, parse, SingleFieldSubscriptionsRule, specifiedRules, validate, ValuesOfCorrectTypeRule, type DocumentNode } from 'graphql';
import type { GraphqlLimits } from '../graphql-options.js';
import { LruCache } from '../../util/lru-cache.js';
import type { GeneratedSchema } from '../schema/roles.js';
import { checkLimits, tooComplex } from './check-limits.js';
import { classifiedValuesRule, withCode } from './input-error-code.js';
import { subscriptionRootRule } from './subscription-root-rule.js';

/**
 * A document, parsed, checked against the limits and validated — or the
 * request errors that stop it, each with its `extensions.code`.
 */
export type PreparedDocument =
  | { readonly ok: true; readonly document: DocumentNode }
  | { readonly ok: false; readonly errors: readonly GraphQLError[] };

/** Texts longer than this are prepared every time rather than held in memory. */
const CACHEABLE_LENGTH = 100_000;

/** Whether a text's preparation is cached; nothing else keyed by a longer text (operation templates) is kept either. */
export function isCacheableText(text: string): boolean {
  return text.length <= CACHEABLE_LENGTH;
}

/**
 * Parse and validate once per document text: the work depends only on the
 * text, the schema and the limits, so the outcome (good or bad) is cached.
 */
export function createDocumentPreparer(generated: GeneratedSchema, limits: GraphqlLimits, cacheSize: number): (text: string) => PreparedDocument {
  const cache = new LruCache<string, PreparedDocument>(cacheSize);
  const rules = specifiedRules.map((rule) => {
    if (rule === ValuesOfCorrectTypeRule) return classifiedValuesRule(generated.inputs);
    return rule === SingleFieldSubscriptionsRule ? subscriptionRootRule : rule;
  });
  return (text) => {
    const hit = cache.get(text);
    if (hit !== undefined) return hit;
    const prepared = prepare(generated, limits, rules, text);
    if (isCacheableText(text)) cache.set(text, prepared);
    return prepared;
  };
}

function prepare(generated: GeneratedSchema, limits: GraphqlLimits, rules: typeof specifiedRules, text: string): PreparedDocument {
  let document: DocumentNode;
  try {
    document = parse(text, { maxTokens: limits.maxTokens });
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    // graphql-js reports its token limit as a syntax error ("more that N tokens", sic).
    if (/Document contains more th\w+ \d+ tokens/.test(error.message)) {
      return { ok: false, errors: [tooComplex(`The document has more than ${limits.maxTokens} tokens; the limit is ${limits.maxTokens} (maxTokens).`, 'maxTokens')] };
    }
    return { ok: false, errors: [withCode(error, 'GRAPHQL_PARSE_FAILED')] };
  }
  const limited = checkLimits(document, limits);
  if (limited.length > 0) return { ok: false, errors: limited };
  const invalid = validate(generated.schema, document, rules);
  if (invalid.length > 0) {
    return { ok: false, errors: invalid.map((error) => (typeof error.extensions['code'] === 'string' ? error : withCode(error, 'GRAPHQL_VALIDATION_FAILED'))) };
  }
  return { ok: true, document };
}
