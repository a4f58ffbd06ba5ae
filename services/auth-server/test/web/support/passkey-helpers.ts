import { createCredential, type SoftCredential } from '../../support/soft-authenticator';
import { inputValue, type WebClient } from './web-client';

/** WebAuthn flags (WebAuthn L3 §6.1): user present, user verified, backup eligible, attested data. */
export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, AT: 0x40 } as const;

export interface RequestOptions {
  challenge: string;
  rpId: string;
  userVerification: string;
  allowCredentials: { id: string; type: string }[];
  timeout: number;
}

/** A JSON POST with the browser's cookies (WebClient posts forms), as passkeys.js sends it. */
export async function postJson(browser: WebClient, path: string, body: unknown): Promise<Response> {
  const cookie = [...browser.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  return fetch(new URL(path, browser.baseUrl), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: JSON.stringify(body),
  });
}

/** The CSRF token of the page at `path`. */
export async function csrfOf(browser: WebClient, path: string): Promise<string> {
  return inputValue(await (await browser.get(path)).text(), 'csrf_token');
}

/**
 * From a signed-in browser: registers a passkey on the account page with the soft authenticator; a synced
 * one (BE flag) when asked. Returns the credential to answer assertions with.
 */
export async function registerPasskey(
  browser: WebClient,
  origin: string,
  options: { synced?: boolean } = {},
): Promise<SoftCredential> {
  const csrf = await csrfOf(browser, '/account');
  const started = await postJson(browser, '/account/passkeys/options', { csrf_token: csrf });
  if (started.status !== 200) throw new Error(`passkey options: ${started.status}`);
  const flags = FLAGS.UP | FLAGS.UV | FLAGS.AT | (options.synced ? FLAGS.BE : 0);
  const created = createCredential((await started.json()) as Parameters<typeof createCredential>[0], origin, {
    flags,
  });
  const saved = await browser.post('/account/passkeys', {
    csrf_token: csrf,
    name: options.synced ? 'Synced' : 'Laptop',
    credential: JSON.stringify(created.response),
  });
  if (saved.headers.get('location') !== '/account?passkey=added#passkeys')
    throw new Error(`passkey not added: ${saved.status} ${saved.headers.get('location')}`);
  return created.credential;
}

/** On the second-factor page: asks for the passkey's request options; returns them and the page's token. */
export async function secondFactorOptions(
  browser: WebClient,
): Promise<{ csrf: string; response: Response; options: RequestOptions }> {
  const csrf = await csrfOf(browser, '/login/second-factor');
  const response = await postJson(browser, '/login/second-factor/passkey/options', { csrf_token: csrf });
  const options = (response.status === 200 ? await response.json() : {}) as RequestOptions;
  return { csrf, response, options };
}

/** Answers the second-factor page with an assertion (or any text as the credential field). */
export function answerWithPasskey(browser: WebClient, csrf: string, assertion: unknown): Promise<Response> {
  return browser.post('/login/second-factor/passkey', {
    csrf_token: csrf,
    credential: typeof assertion === 'string' ? assertion : JSON.stringify(assertion),
  });
}
