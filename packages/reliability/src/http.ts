export interface Reply {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, or undefined when it is not JSON. */
  json: unknown;
}

/** Client-side deadline of every call; the soak raises it (Elasticsearch clients wait 30 s). */
let defaultTimeoutMs = 15_000;
export function setDefaultTimeout(ms: number): void {
  defaultTimeoutMs = ms;
}

/** One HTTP call that never throws on a status; a refused connection or timeout becomes status 0. */
export async function call(
  url: string,
  init: {
    method?: string;
    headers?: Record<string, string>;
    body?: string | Buffer;
    timeoutMs?: number;
  } = {},
): Promise<Reply> {
  try {
    const response = await fetch(url, {
      method: init.method ?? 'GET',
      headers: init.headers,
      body: init.body,
      signal: AbortSignal.timeout(init.timeoutMs ?? defaultTimeoutMs),
    });
    const text = await response.text();
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    return { status: response.status, headers: response.headers, text, json };
  } catch (error) {
    return { status: 0, headers: new Headers(), text: String(error), json: undefined };
  }
}

export function basic(id: string, secret: string): string {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

/** A client_credentials access token for a confidential client. */
export async function clientCredentialsToken(
  authUrl: string,
  client: { clientId: string; clientSecret: string },
  scope = 'search.read search.write search.admin',
): Promise<string> {
  const reply = await call(`${authUrl}/token`, {
    method: 'POST',
    headers: {
      authorization: basic(client.clientId, client.clientSecret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }).toString(),
  });
  const body = reply.json as { access_token?: string } | undefined;
  if (reply.status !== 200 || !body?.access_token)
    throw new Error(`client_credentials failed: ${reply.status} ${reply.text}`);
  return body.access_token;
}

/** RFC 7662 introspection as a resource server. */
export async function introspect(
  authUrl: string,
  resourceServer: { id: string; secret: string },
  token: string,
): Promise<Reply> {
  return call(`${authUrl}/token_info`, {
    method: 'POST',
    headers: {
      authorization: basic(resourceServer.id, resourceServer.secret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ token }).toString(),
    timeoutMs: 5000,
  });
}

/** A JSON (or raw string) request to search-store with an Authorization header. */
export function es(
  baseUrl: string,
  authorization: string,
  method: string,
  path: string,
  body?: unknown,
  contentType = 'application/json',
): Promise<Reply> {
  return call(`${baseUrl}${path}`, {
    method,
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': contentType }) },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** NDJSON for _bulk from action/source pairs. */
export function ndjson(lines: unknown[]): string {
  return `${lines.map((line) => JSON.stringify(line)).join('\n')}\n`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until probe() is true or the deadline passes; returns the elapsed milliseconds. */
export async function eventually(
  probe: () => Promise<boolean>,
  timeoutMs: number,
  stepMs = 100,
): Promise<number> {
  const start = Date.now();
  while (Date.now() - start < timeoutMs) {
    if (await probe()) return Date.now() - start;
    await sleep(stepMs);
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}
