import { Client as Client8 } from 'es8';
import { Client as Client9 } from 'es9';

export interface RawResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  json: unknown;
}

/** A raw HTTP call, for exact bodies and headers (the client hides both). */
export async function call(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<RawResponse> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = typeof body === 'string' ? body : JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, init);
  const text = await response.text();
  let json: unknown;
  try {
    json = text === '' ? undefined : (JSON.parse(text) as unknown);
  } catch {
    json = undefined;
  }
  return { status: response.status, headers: response.headers, text, json };
}

export function client8(url: string): Client8 {
  return new Client8({ node: url });
}

export function client9(url: string): Client9 {
  return new Client9({ node: url });
}

/** Runs a client call expected to fail; returns the status and Elasticsearch body it failed with. */
export async function failure(
  promise: Promise<unknown>,
): Promise<{ status: number; body: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    const meta = (error as { meta?: { statusCode?: number; body?: unknown } }).meta;
    if (meta?.statusCode !== undefined)
      return { status: meta.statusCode, body: meta.body as Record<string, unknown> };
    throw error;
  }
  throw new Error('expected the call to fail');
}
