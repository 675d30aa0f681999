import {
  getOperationAST,
  Kind,
  OperationTypeNode,
  type DocumentNode,
  type FragmentDefinitionNode,
  type OperationDefinitionNode,
} from 'graphql';
import { isCacheableText } from '../document/prepare-document.js';
import { sha256 } from '../http/persisted-documents.js';
import type { GeneratedSchema } from '../schema/roles.js';
import { findSlotVariables, type SlotVariable } from './slot-variables.js';

/** An operation of a prepared document, with what every request of it needs worked out once. */
export interface OperationFacts {
  readonly operation: OperationDefinitionNode;
  readonly fragments: ReadonlyMap<string, FragmentDefinitionNode>;
  readonly slots: readonly SlotVariable[];
  /** The declared variables other than the slots, in order: their raw values are part of the template key. */
  readonly keyed: readonly string[];
  /** The template key's first part (document hash and operation name); undefined when the operation is never templated. */
  readonly templatePrefix: string | undefined;
}

export interface DocumentFacts {
  /** The sha256 of the document text: computed on first use, once per document rather than per request. */
  hash(): string;
  /** The operation a request names (or the only one), as graphql-js's getOperationAST picks it. */
  operation(operationName: string | undefined): OperationFacts | undefined;
}

/**
 * Facts about prepared documents, held as long as the document preparer's
 * cache holds the document (a WeakMap by the parsed document): one text is
 * one parsed document there, so the text's hash can live with it.
 */
export function createDocumentFacts(generated: GeneratedSchema): (document: DocumentNode, text: string) => DocumentFacts {
  const known = new WeakMap<DocumentNode, DocumentFacts>();
  return (document, text) => {
    const hit = known.get(document);
    if (hit !== undefined) return hit;
    const facts = documentFacts(generated, document, text);
    known.set(document, facts);
    return facts;
  };
}

function documentFacts(generated: GeneratedSchema, document: DocumentNode, text: string): DocumentFacts {
  let hash: string | undefined;
  const hashOf = (): string => (hash ??= sha256(text));
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) {
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  }
  // Only names that find an operation are kept, so the map is no larger than the document's operations (plus "unnamed").
  const operations = new Map<string | undefined, OperationFacts>();
  return {
    hash: hashOf,
    operation(operationName) {
      const hit = operations.get(operationName);
      if (hit !== undefined) return hit;
      const operation = getOperationAST(document, operationName);
      if (operation === null || operation === undefined) return undefined;
      const slots = findSlotVariables(operation, fragments, generated.query);
      const slotNames = new Set(slots.map((slot) => slot.name));
      const facts: OperationFacts = {
        operation,
        fragments,
        slots,
        keyed: (operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value).filter((name) => !slotNames.has(name)),
        // Mutations are not templated: they read their arguments (ids included) as they run. Long texts are never cached by the preparer, so never templated.
        templatePrefix:
          operation.operation === OperationTypeNode.QUERY && isCacheableText(text) ? `${hashOf()} ${JSON.stringify(operationName ?? null)} ` : undefined,
      };
      operations.set(operationName, facts);
      return facts;
    },
  };
}
