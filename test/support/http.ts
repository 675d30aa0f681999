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

/** The stable error code of an answer in either style: problem+json's `code`, or GraphQL's first `extensions.code`. */
export function codeOf(response: HttpResponse): string | undefined {
  return (response.json?.code ?? response.json?.errors?.[0]?.extensions?.code) as string | undefined;
}

/**
 * Sends a request until it is answered with the error `code`, failing after `ms`: for a change another
 * process hears by a notice or a periodic look, which arrives with no bound a test could promise. Returns
 * how many answers came before it.
 */
export async function untilCode(send: () => Promise<HttpResponse>, code: string, ms = 3000): Promise<number> {
  const deadline = Date.now() + ms;
  for (let before = 0; ; before++) {
    const response = await send();
    if (codeOf(response) === code) return before;
    if (Date.now() > deadline) throw new Error(`still not ${code} after ${ms} ms and ${before + 1} requests (last: ${response.status} ${response.text.slice(0, 200)})`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
