import jwt from 'jsonwebtoken';
import type { RunningAuthServer } from '../../support/start-auth-server';
import { pkce, redeemCode } from '../../support/oauth-helpers';
import { authorizePath, inputValue, WebClient } from './web-client';

/**
 * A code flow through the real pages (login form, consent) with a WebClient, for the MFA tests: the
 * caller drives the sign-in steps in between; `finish` consents if asked and redeems the code.
 */
export function codeFlowPages(
  server: RunningAuthServer,
  client: { clientId: string; secret?: string },
  extra: Record<string, string> = {},
) {
  const { verifier, challenge } = pkce();
  const path = authorizePath({
    client_id: client.clientId,
    redirect_uri: 'https://app.example/cb',
    response_type: 'code',
    scope: 'openid offline_access',
    state: 'st',
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...extra,
  });
  return {
    path,
    /** Follows 303s from `response` (consenting on the way) to the client's redirect; returns its URL. */
    async follow(browser: WebClient, response: Response): Promise<URL> {
      for (let hop = 0; hop < 10; hop++) {
        if (response.status === 303) {
          const location = response.headers.get('location')!;
          if (location.startsWith('https://app.example/')) return new URL(location);
          response = await browser.get(location);
          continue;
        }
        const html = await response.text();
        if (response.status !== 200 || !html.includes('name="decision"'))
          throw new Error(`unexpected page ${response.status}: ${html.slice(0, 300)}`);
        response = await browser.post('/consent', {
          csrf_token: inputValue(html, 'csrf_token'),
          authorize_query: inputValue(html, 'authorize_query'),
          decision: 'allow',
        });
      }
      throw new Error('too many hops');
    },
    /** Redeems the code of a redirect; returns the token response and the ID token's claims. */
    async redeem(redirect: URL) {
      const code = redirect.searchParams.get('code');
      if (!code) throw new Error(`no code: ${redirect.toString()}`);
      const token = await redeemCode(server, client, { code, code_verifier: verifier });
      if (token.status !== 200) throw new Error(`token ${token.status}: ${JSON.stringify(token.body)}`);
      return { token: token.body, idToken: jwt.decode(token.body.id_token as string) as jwt.JwtPayload };
    },
  };
}

/** Signs in on the login page that `page` (an /authorize or /login answer) shows. */
export async function submitPassword(
  browser: WebClient,
  page: Response,
  username: string,
  password: string,
): Promise<Response> {
  const html = await page.text();
  return browser.post('/login', {
    csrf_token: inputValue(html, 'csrf_token'),
    return_to: inputValue(html, 'return_to'),
    username,
    password,
  });
}
