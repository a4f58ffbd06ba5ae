import { generateKeyPairSync, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { basic, createClient, createUser, pkce, postForm, type Json } from '../support/oauth-helpers';
import { inputValue, WebClient } from './support/web-client';

const CALLBACK = 'https://app.example/cb';
const PASSWORD = 'correct horse battery';
/** The browser asks for English: only the request's own ui_locales can make the pages German. */
const ENGLISH_BROWSER = { 'accept-language': 'en' };

/**
 * OIDC Core §3.1.2.1 ui_locales carried inside a pushed request (RFC 9126) or a signed request object
 * (RFC 9101) chooses the pages' language as the plain query parameter does: the login page, its error
 * after a wrong password, and the consent page. The query's own ui_locales is ignored for such a request.
 */
describe('ui_locales inside a pushed request or a request object', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let signer: { clientId: string };
  let user: { username: string };
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });

  beforeAll(async () => {
    server = await startAuthServer({}, { issuerIsUrl: true });
    client = await createClient(server, { grant_types: ['authorization_code'] });
    signer = await createClient(server, {
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ ...publicKey.export({ format: 'jwk' }), kid: 'lang-1' }] },
      grant_types: ['authorization_code'],
    });
    user = await createUser(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  const codeRequest = (extra: Json = {}): Json => ({
    redirect_uri: CALLBACK,
    response_type: 'code',
    scope: 'openid email',
    state: 'lang-state',
    prompt: 'consent', // a consent page every time, though an earlier test approved these scopes
    code_challenge: pkce().challenge,
    code_challenge_method: 'S256',
    ...extra,
  });

  async function pushed(uiLocales: string): Promise<string> {
    const form = codeRequest({ ui_locales: uiLocales }) as Record<string, string>;
    const response = await postForm(`${server.url}/par`, form, {
      authorization: basic(client.clientId, client.secret!),
    });
    expect(response.status).toBe(201);
    return response.body.request_uri as string;
  }

  function signedObject(uiLocales: string): string {
    const now = Math.floor(Date.now() / 1000);
    return jwt.sign(
      {
        iss: signer.clientId,
        aud: server.config.ISSUER,
        exp: now + 60,
        nbf: now - 5,
        jti: randomUUID(),
        client_id: signer.clientId,
        ...codeRequest({ ui_locales: uiLocales }),
      },
      privateKey,
      { algorithm: 'RS256', header: { alg: 'RS256', kid: 'lang-1' } },
    );
  }

  /** Login page, a wrong password, the right one, then the consent page: every one in `lang`. */
  async function expectLanguageThroughout(
    path: string,
    lang: string,
    words: { signIn: string; allow: string },
  ) {
    const browser = new WebClient(server.url);
    const login = await browser.get(path, ENGLISH_BROWSER);
    expect(login.status).toBe(200);
    const loginHtml = await login.text();
    expect(loginHtml).toContain(`<html lang="${lang}">`);
    expect(loginHtml).toContain(`<h1>${words.signIn}</h1>`);
    const form = {
      csrf_token: inputValue(loginHtml, 'csrf_token'),
      return_to: inputValue(loginHtml, 'return_to'),
      username: user.username,
    };
    const wrong = await browser.post('/login', { ...form, password: 'wrong password' }, ENGLISH_BROWSER);
    expect(wrong.status).toBe(400);
    const wrongHtml = await wrong.text();
    expect(wrongHtml).toContain(`<html lang="${lang}">`);
    const signedIn = await browser.post(
      '/login',
      { ...form, csrf_token: inputValue(wrongHtml, 'csrf_token'), password: PASSWORD },
      ENGLISH_BROWSER,
    );
    expect(signedIn.status).toBe(303);
    const consent = await browser.get(signedIn.headers.get('location')!, ENGLISH_BROWSER);
    expect(consent.status).toBe(200);
    const consentHtml = await consent.text();
    expect(consentHtml).toContain(`<html lang="${lang}">`);
    expect(consentHtml).toContain(`>${words.allow}</button>`);
    return { browser, consentHtml };
  }

  const GERMAN = { signIn: 'Anmelden', allow: 'Erlauben' };

  it('speaks the pushed request ui_locales, whatever the query says, up to the consent decision', async () => {
    const requestUri = await pushed('de-CH fr');
    const path = `/authorize?${new URLSearchParams({
      client_id: client.clientId,
      request_uri: requestUri,
      ui_locales: 'en', // RFC 9126 §4: ignored beside request_uri
    }).toString()}`;
    const { browser, consentHtml } = await expectLanguageThroughout(path, 'de', GERMAN);
    // The decision itself still completes the pushed request (the carried ui_locales changes nothing).
    const decided = await browser.post('/consent', {
      csrf_token: inputValue(consentHtml, 'csrf_token'),
      authorize_query: inputValue(consentHtml, 'authorize_query'),
      decision: 'allow',
    });
    expect(decided.status).toBe(303);
    expect(new URL(decided.headers.get('location')!).searchParams.get('code')).toBeTruthy();
  });

  it('speaks a signed request object ui_locales, whatever the query says', async () => {
    const path = `/authorize?${new URLSearchParams({
      client_id: signer.clientId,
      request: signedObject('de'),
      ui_locales: 'en', // RFC 9101 §6.3: only the object's parameters are used
    }).toString()}`;
    await expectLanguageThroughout(path, 'de', GERMAN);
  });

  it('keeps English for a pushed request without ui_locales or with one we do not speak', async () => {
    const requestUri = await pushed('fr');
    const path = `/authorize?${new URLSearchParams({ client_id: client.clientId, request_uri: requestUri }).toString()}`;
    await expectLanguageThroughout(path, 'en', { signIn: 'Sign in', allow: 'Allow' });
  });
});
