/** Multipart requests over a real socket, and a look at what the file store holds on disk. */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { http, type HttpResponse } from './http.js';

export interface FilePart {
  readonly data: Buffer;
  readonly filename?: string;
  readonly type?: string;
}

/** A form: strings as text parts, other values as application/json parts, FileParts as files. */
export function formOf(fields: Readonly<Record<string, string | number | boolean | null | object | FilePart>>): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (isFilePart(value)) form.append(name, new Blob([new Uint8Array(value.data)], { type: value.type ?? 'application/octet-stream' }), value.filename ?? 'upload.bin');
    else if (typeof value === 'string') form.append(name, value);
    else form.append(name, new Blob([JSON.stringify(value)], { type: 'application/json' }));
  }
  return form;
}

function isFilePart(value: unknown): value is FilePart {
  return typeof value === 'object' && value !== null && Buffer.isBuffer((value as { data?: unknown }).data);
}

/** `PUT /<path>` with a form whose part `file` holds `image`. */
export function putFile(base: string, path: string, image: Buffer, filename = 'picture.png', type = 'image/png', headers: Record<string, string> = {}): Promise<HttpResponse> {
  return http(base, 'PUT', path, { raw: formOf({ file: { data: image, filename, type } }), headers });
}

/** A GraphQL multipart request (operations, map, files), with the preflight header unless `headers` says otherwise. */
export function gqlMultipart(
  base: string,
  query: string,
  variables: Record<string, unknown>,
  files: Readonly<Record<string, { readonly path: string; readonly part: FilePart }>>,
  headers: Record<string, string> = { 'graphql-require-preflight': '1' },
): Promise<HttpResponse> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query, variables }));
  form.append('map', JSON.stringify(Object.fromEntries(Object.entries(files).map(([name, file]) => [name, [file.path]]))));
  for (const [name, file] of Object.entries(files)) {
    form.append(name, new Blob([new Uint8Array(file.part.data)], { type: file.part.type ?? 'application/octet-stream' }), file.part.filename ?? 'upload.bin');
  }
  return http(base, 'POST', '/graphql', { raw: form, headers });
}

/** Every file under `directory`, as paths relative to it, sorted. */
export function filesUnder(directory: string): string[] {
  if (!existsSync(directory)) return [];
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.push(relative(directory, path));
    }
  };
  walk(directory);
  return found.sort();
}

/** The keys of the stored originals. */
export function storedKeys(directory: string): string[] {
  return filesUnder(join(directory, 'originals')).map((path) => path.split('/').pop() ?? '');
}

/** Files being received (they live in tmp/ until committed or discarded). */
export function stagedFiles(directory: string): string[] {
  return filesUnder(join(directory, 'tmp'));
}

/** The key in a file URL: `/files/<key>` or `/files/<key>/<width>`. */
export function keyOf(url: string): string {
  const key = /^\/files\/([^/]+)/.exec(url)?.[1];
  if (key === undefined) throw new Error(`not a file URL: ${url}`);
  return key;
}

/** Waits (polling) until `condition` holds; fails after `ms`. For effects that finish after the response. */
export async function eventually(condition: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
