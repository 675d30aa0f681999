/**
 * A file field's value in input: a file that an upload has already stored
 * and checked, by its content address. Only the server makes these (from a
 * multipart part, REST or GraphQL); a JSON body cannot, so a client can
 * never point a record at a file by naming a key.
 */
export class FileInput {
  constructor(readonly key: string) {}
}

export function isFileInput(value: unknown): value is FileInput {
  return value instanceof FileInput;
}
