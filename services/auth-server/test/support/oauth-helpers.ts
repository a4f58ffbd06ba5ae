import { createHash, randomBytes } from 'node:crypto';
import { uniqueId } from '@acme/testkit';
import type { RunningAuthServer } from './start-auth-server';

export interface Json {
  [key: string]: unknown;
}

export async function admin(server: RunningAuthServer, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}/admin${path}`, {
    method,
    headers: { authorization: `Bearer ${server.config.ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Json };
}

export async function createClient(server: RunningAuthServer, overrides: Json = {}) {
  const { status, body } = await admin(server, 'POST', '/clients', {
    name: 'Test app',
    client_type: 'confidential',
    redirect_uris: ['https://app.example/cb'],
    grant_types: ['authorization_code', 'refresh_token', 'client_credentials'],
    scopes: ['openid', 'profile', 'email', 'offline_access', 'search.read', 'search.write', 'other.read'],
    ...overrides,
  });
  if (status !== 201) throw new Error(`client create failed: ${JSON.stringify(body)}`);
  return { clientId: body.client_id as string, secret: body.client_secret as string | undefined, body };
}

export async function createResourceServer(server: RunningAuthServer, scopes: string[], audience?: string) {
  const id = uniqueId('rs');
  const { status, body } = await admin(server, 'POST', '/resource-servers', {
    id,
    audience: audience ?? `https://${id}.example`,
    scopes,
  });
  if (status !== 201) throw new Error(`rs create failed: ${JSON.stringify(body)}`);
  return { id, secret: body.secret as string, audience: body.audience as string };
}

export async function createUser(server: RunningAuthServer) {
  const username = uniqueId('user');
  const { body } = await admin(server, 'POST', '/users', {
    username,
    password: 'correct horse battery',
    claims: { name: 'Ada Lovelace', email: `${username}@example.com`, email_verified: true },
  });
  return { userId: body.user_id as string, username };
}

export function basic(id: string, secret: string): string {
  const enc = (v: string) => encodeURIComponent(v).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${enc(id)}:${enc(secret)}`).toString('base64')}`;
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

export async function postForm(
  url: string,
  form: Record<string, string>,
  headers: Record<string, string> = {},
) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  let body: Json = {};
  try {
    body = text ? (JSON.parse(text) as Json) : {};
  } catch {
    body = { text };
  }
  return { status: response.status, headers: response.headers, body };
}

/** Drives the protocol half of /authorize (the pages are another helper's) to a code. */
export async function authorize(
  server: RunningAuthServer,
  params: Record<string, string>,
  user: { userId: string },
  approved?: string[],
) {
  const request = await server.core.flow.parse(params);
  const location = await server.core.flow.approve(
    request,
    { userId: user.userId, authTime: new Date() },
    approved ?? request.scopes,
  );
  return new URL(location);
}

/**
 * POST /token with grant_type=authorization_code and the helpers' redirect_uri: Basic for a
 * confidential client, client_id in the body for a public one. `form` adds or overrides parameters.
 */
export function redeemCode(
  server: RunningAuthServer,
  client: { clientId: string; secret?: string },
  form: Record<string, string>,
) {
  return postForm(
    `${server.url}/token`,
    {
      grant_type: 'authorization_code',
      redirect_uri: 'https://app.example/cb',
      ...(client.secret ? {} : { client_id: client.clientId }),
      ...form,
    },
    client.secret ? { authorization: basic(client.clientId, client.secret) } : {},
  );
}

/** An approved, not yet redeemed code request with PKCE: the code and its verifier. */
export async function approvedCode(
  server: RunningAuthServer,
  client: { clientId: string },
  user: { userId: string },
  scope: string,
  extra: Record<string, string> = {},
) {
  const { verifier, challenge } = pkce();
  const url = await authorize(
    server,
    {
      client_id: client.clientId,
      redirect_uri: 'https://app.example/cb',
      response_type: 'code',
      scope,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 's1',
      ...extra,
    },
    user,
  );
  return { code: url.searchParams.get('code') ?? '', verifier };
}

export async function codeFlowTokens(
  server: RunningAuthServer,
  client: { clientId: string; secret?: string },
  user: { userId: string },
  scope: string,
  extra: Record<string, string> = {},
) {
  const { code, verifier } = await approvedCode(server, client, user, scope, extra);
  const token = await redeemCode(server, client, { code, code_verifier: verifier });
  return { code, verifier, token };
}

export async function introspect(
  server: RunningAuthServer,
  rs: { id: string; secret: string },
  token: string,
  extra: Record<string, string> = {},
) {
  return postForm(
    `${server.url}/token_info`,
    { token, ...extra },
    { authorization: basic(rs.id, rs.secret) },
  );
}
