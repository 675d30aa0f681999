/**
 * Names derived from the user's type and field names: plurals for
 * collections, snake_case for SQL, kebab-case for URL paths, camelCase for
 * GraphQL. Every layer derives names through these functions only, so a REST
 * path, a GraphQL field and a table can never drift apart.
 *
 *   type OrderItem  → plural `orderItems`, path `order-items`, table `order_items`
 *   field createdAt → column `created_at`; to-one `author` → column `author_id`
 */

/** Singular → plural for the last word of the name; the case of its first letter is kept. */
const IRREGULAR_PLURALS: ReadonlyMap<string, string> = new Map([
  ['person', 'people'],
  ['child', 'children'],
  ['man', 'men'],
  ['woman', 'women'],
  ['mouse', 'mice'],
  ['goose', 'geese'],
  ['foot', 'feet'],
  ['tooth', 'teeth'],
  ['ox', 'oxen'],
]);

/**
 * Splits `OrderItem`, `orderItem`, `order_item`, `order-item`, `HTMLPage`
 * and `userID` into lower-case words: ['order', 'item'], ['html', 'page'],
 * ['user', 'id']. Digits stay attached to the word before them (`address2`).
 */
export function splitWords(name: string): string[] {
  const words: string[] = [];
  // An upper-case run followed by a capitalised word (HTMLPage → HTML, Page),
  // a capitalised or lower-case word, or an upper-case run; digits ride along.
  const pattern = /[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+[0-9]*|[A-Z]+[0-9]*|[0-9]+/g;
  for (const match of name.matchAll(pattern)) {
    words.push(match[0].toLowerCase());
  }
  return words;
}

export function toSnakeCase(name: string): string {
  return splitWords(name).join('_');
}

export function toKebabCase(name: string): string {
  return splitWords(name).join('-');
}

export function toCamelCase(name: string): string {
  return splitWords(name)
    .map((word, index) => (index === 0 ? word : capitalize(word)))
    .join('');
}

export function toPascalCase(name: string): string {
  return splitWords(name).map(capitalize).join('');
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/**
 * English plural of the last word of a type name, good enough for type
 * names: `Category` → `Categories`, `Box` → `Boxes`, `Person` → `People`,
 * `OrderItem` → `OrderItems`. The rest of the name is left as written.
 * Uncountable nouns get a regular plural (`News` → `Newses`) on purpose: a
 * plural that equals the singular would make the collection and the single
 * record share one GraphQL field name.
 */
export function pluralize(name: string): string {
  const lastWord = /[A-Z]?[a-z]+$/.exec(name);
  if (lastWord !== null) {
    const word = lastWord[0];
    const irregular = IRREGULAR_PLURALS.get(word.toLowerCase());
    if (irregular !== undefined) {
      const cased = word.charAt(0) === word.charAt(0).toUpperCase() ? capitalize(irregular) : irregular;
      return name.slice(0, lastWord.index) + cased;
    }
  }
  if (/[^aeiou]y$/i.test(name)) return `${name.slice(0, -1)}ies`;
  if (/[^aeiou]is$/i.test(name) && name.length > 3) return `${name.slice(0, -2)}es`;
  if (/(?:s|x|z|ch|sh)$/i.test(name)) return `${name}es`;
  return `${name}s`;
}
