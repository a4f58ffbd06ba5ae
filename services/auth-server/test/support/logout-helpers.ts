import jwt from 'jsonwebtoken';
import type { RunningAuthServer } from './start-auth-server';
import { basic, createClient, pkce, postForm, type Json } from './oauth-helpers';
import { signInAndConsent } from '../web/support/sign-in-and-consent';
import { authorizePath, WebClient } from '../web/support/web-client';

export const RP_CALLBACK = 'https://rp.example/cb';
export const RP_AFTER_LOGOUT = 'https://rp.example/signed-out';
export const PASSWORD = 'correct horse battery';

/**
 * A confidential RP that asks for back-channel logout tokens with `sid` (OIDC Back-Channel Logout 1.0
 * §2.2), its logout URI answered by nock in the tests.
 */
export async function registerBackchannelRp(
  server: RunningAuthServer,
  overrides: Json = {},
): Promise<{ clientId: string; secret: string }> {
  const registered = await createClient(server, {
    name: 'RP with back-channel',
    redirect_uris: [RP_CALLBACK],
    backchannel_logout_uri: 'https://rp.example/backchannel',
    backchannel_logout_session_required: true,
    grant_types: ['authorization_code'],
    ...overrides,
  });
  return { clientId: registered.clientId, secret: registered.secret! };
}

/** Code-flow authorization request parameters for the RP client (PKCE, openid). */
export function rpAuthorizeParams(clientId: string, challenge: string, extra: Record<string, string> = {}) {
  return {
    client_id: clientId,
    redirect_uri: RP_CALLBACK,
    response_type: 'code',
    scope: 'openid email',
    state: 'st',
    nonce: 'n-1',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  };
}

/**
 * Drives a browser through /authorize: login when needed (first time), consent when asked, then redeems
 * the code at /token. Returns the token response (with its id_token) and the decoded ID token claims.
 */
export async function signInThroughClient(
  server: RunningAuthServer,
  browser: WebClient,
  client: { clientId: string; secret: string },
  username: string,
) {
  const { verifier, challenge } = pkce();
  const path = authorizePath(rpAuthorizeParams(client.clientId, challenge));
  const response = await signInAndConsent(browser, path, { username, password: PASSWORD });
  if (response.status !== 303) throw new Error(`authorize ended with ${response.status}`);
  const code = new URL(response.headers.get('location')!).searchParams.get('code');
  if (!code) throw new Error(`no code: ${response.headers.get('location')}`);
  const token = await postForm(
    `${server.url}/token`,
    { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: RP_CALLBACK },
    { authorization: basic(client.clientId, client.secret) },
  );
  if (token.status !== 200) throw new Error(`token: ${JSON.stringify(token.body)}`);
  const idToken = token.body.id_token as string;
  return { idToken, claims: jwt.decode(idToken) as Record<string, unknown> };
}

/** /authorize with prompt=none: 'code' while the session lives, else the error it redirected. */
export async function silentAuthorize(browser: WebClient, clientId: string): Promise<string> {
  const { challenge } = pkce();
  const response = await browser.get(
    authorizePath(rpAuthorizeParams(clientId, challenge, { prompt: 'none' })),
  );
  if (response.status !== 303) throw new Error(`prompt=none answered ${response.status}`);
  const location = new URL(response.headers.get('location')!);
  return location.searchParams.get('code') ? 'code' : (location.searchParams.get('error') ?? 'none');
}

export function endSessionPath(params: Record<string, string>): string {
  return `/session/end?${new URLSearchParams(params).toString()}`;
}
