import { getLocation, Kind, parse, Source, type DefinitionNode, type Location } from 'graphql';
import type { SchemaSource } from '../../schema/load-schema.js';
import type { SourceLocation } from '../../schema/model.js';

/**
 * Where each schema coordinate (`User`, `User.email`, `Query.users.first`,
 * `Role.ADMIN`) is declared in a set of SDL files, so that a contract change
 * found in a generated schema can point at the line that caused it.
 */
export class SdlLocator {
  readonly #places = new Map<string, SourceLocation>();
  readonly #first: SourceLocation;

  constructor(sources: readonly SchemaSource[]) {
    this.#first = { file: sources[0]?.file ?? '<schema>', line: 1, column: 1 };
    for (const { file, text } of sources) {
      let definitions: readonly DefinitionNode[];
      try {
        definitions = parse(new Source(text, file)).definitions;
      } catch {
        // The files were loaded before they got here; a file that does not parse has nothing to locate.
        continue;
      }
      for (const definition of definitions) this.#add(definition);
    }
  }

  /** The most precise place known for a coordinate: itself, else the nearest enclosing one, else the first file's start. */
  locate(coordinate: string): SourceLocation {
    const parts = coordinate.split('.');
    for (let length = parts.length; length > 0; length--) {
      const found = this.#places.get(parts.slice(0, length).join('.'));
      if (found !== undefined) return found;
    }
    return this.#first;
  }

  /** The place of an exact coordinate, when the files declare it. */
  find(coordinate: string): SourceLocation | undefined {
    return this.#places.get(coordinate);
  }

  #set(coordinate: string, loc: Location | undefined): void {
    if (loc === undefined || this.#places.has(coordinate)) return;
    const { line, column } = getLocation(loc.source, loc.start);
    this.#places.set(coordinate, { file: loc.source.name, line, column });
  }

  #add(definition: DefinitionNode): void {
    if (!('name' in definition) || definition.name === undefined) return;
    const type = definition.name.value;
    this.#set(type, definition.name.loc);
    if (definition.kind === Kind.ENUM_TYPE_DEFINITION || definition.kind === Kind.ENUM_TYPE_EXTENSION) {
      for (const value of definition.values ?? []) this.#set(`${type}.${value.name.value}`, value.name.loc);
      return;
    }
    if (!('fields' in definition)) return;
    for (const field of definition.fields ?? []) {
      const name = `${type}.${field.name.value}`;
      this.#set(name, field.name.loc);
      if ('arguments' in field) for (const argument of field.arguments ?? []) this.#set(`${name}.${argument.name.value}`, argument.name.loc);
    }
  }
}
