/**
 * The console's only way to the server: fetch against the public REST API,
 * with the signed-in person's credential. Problems (RFC 9457) become
 * ApiProblem, so every page can say what went wrong in words and put a
 * validation error beside the field its JSON pointer names.
 */
import { session } from './session';

export interface ProblemItem {
  readonly pointer?: string;
  readonly code?: string;
  readonly detail?: string;
}

export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly items: readonly ProblemItem[] = [],
  ) {
    super(message);
  }

  /** Field name → message, from the problem's pointers (`/email` → `email`). */
  byField(): Map<string, string> {
    const fields = new Map<string, string>();
    for (const item of this.items) {
      const name = item.pointer?.split('/')[1];
      if (name !== undefined && name !== '' && !fields.has(name)) fields.set(name, item.detail ?? item.code ?? 'invalid');
    }
    return fields;
  }
}

export interface ApiResponse<T> {
  readonly body: T;
  readonly etag: string | undefined;
  readonly status: number;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A problem's words: its detail, else its title, else the status line. */
export async function problemFrom(response: Response): Promise<ApiProblem> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (isObject(body)) {
    const items = Array.isArray(body['errors']) ? (body['errors'] as unknown[]).filter(isObject).map((item) => item as ProblemItem) : [];
    const detail = typeof body['detail'] === 'string' ? body['detail'] : typeof body['title'] === 'string' ? body['title'] : `${response.status} ${response.statusText}`;
    return new ApiProblem(response.status, typeof body['code'] === 'string' ? body['code'] : `HTTP_${response.status}`, detail, items);
  }
  return new ApiProblem(response.status, `HTTP_${response.status}`, `The server answered ${response.status} ${response.statusText}`.trim());
}

export interface RequestOptions {
  readonly method?: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  readonly signal?: AbortSignal;
  /** Send without credentials (sign-in). */
  readonly anonymous?: boolean;
}

/** One request; refreshes an expired account session once and tries again. */
export async function api<T = unknown>(path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> {
  let response = await send(path, options);
  if (response.status === 401 && !options.anonymous && (await session.refresh())) response = await send(path, options);
  if (!response.ok) throw await problemFrom(response);
  const type = response.headers.get('content-type') ?? '';
  const body = response.status === 204 || !type.includes('json') ? undefined : ((await response.json()) as unknown);
  return { body: body as T, etag: response.headers.get('etag') ?? undefined, status: response.status };
}

async function send(path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  const token = session.token();
  if (token !== undefined && !options.anonymous) headers['authorization'] = `Bearer ${token}`;
  let body: BodyInit | undefined;
  if (options.body instanceof FormData) body = options.body;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  try {
    return await fetch(path, { method: options.method ?? 'GET', headers, body, signal: options.signal ?? null, cache: 'no-cache' });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiProblem(0, 'NETWORK', 'The server could not be reached. Is it running?');
  }
}

/** A message for any error a page catches. */
export function messageOf(error: unknown): string {
  if (error instanceof ApiProblem) return error.status === 0 ? error.message : `${error.message} (${error.code})`;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function isAbort(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** A form's text value (a file part reads as empty). */
export function formText(data: FormData, name: string): string {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
}
