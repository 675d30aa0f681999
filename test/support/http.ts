/** A real HTTP round trip (Node's fetch over a socket), with the body read as text and, where it parses, as JSON. */
export interface HttpResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  // The body's JSON, unknown shape: tests narrow it with expect().
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience: assertions check the shape
  readonly json: any;
}

export async function http(
  base: string,
  method: string,
  path: string,
  options: { readonly headers?: Record<string, string>; readonly body?: unknown; readonly raw?: string | FormData } = {},
): Promise<HttpResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body: string | FormData | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}
