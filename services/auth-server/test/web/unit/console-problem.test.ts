import { isOAuthError, OAuthError } from '@acme/common';
import type { AuthContext } from '../../../src/domain/auth-context';
import { createUser } from '../../../src/domain/admin/create-user';
import { registerResourceServer } from '../../../src/domain/admin/register-resource-server';
import { checkBackchannelLogoutUri } from '../../../src/domain/clients/check-backchannel-logout-uri';
import { checkAdminLogoUri } from '../../../src/domain/clients/client-logo';
import { checkRedirectUriForRegistration } from '../../../src/domain/clients/check-redirect-uri';
import { registerClient } from '../../../src/domain/clients/register-client';
import { consoleProblem } from '../../../src/http/console/console-problem';
import { loadMessageCatalogue } from '../../../src/http/i18n/message-catalogue';

const german = loadMessageCatalogue().translator('de').t;
const english = loadMessageCatalogue().translator('en').t;

/** The OAuthError the domain throws for this call (the test fails when it throws none). */
async function refusal(call: () => unknown): Promise<OAuthError> {
  try {
    await call();
  } catch (error) {
    if (isOAuthError(error)) return error;
    throw error;
  }
  throw new Error('the domain accepted it');
}

// The checks below all refuse before touching storage; a resource server's conflict reads one row.
const noStorage = {} as AuthContext;
const existingResourceServer = {
  repos: { resourceServers: { findById: async () => ({ id: 'rs-1' }) } },
} as unknown as AuthContext;
const client = (extra: Record<string, unknown>) => ({
  name: 'App',
  client_type: 'confidential',
  redirect_uris: ['https://app.example/cb'],
  ...extra,
});

/**
 * Each wording the console maps, produced by the domain itself: a change of the domain's text fails here
 * instead of turning the German page back into English unnoticed.
 */
describe('console problem details', () => {
  it.each([
    [
      () => checkRedirectUriForRegistration('http://app.example/cb', 'web'),
      'Die Weiterleitungs-URI http://app.example/cb muss https verwenden (native Apps dürfen auch http auf einer Loopback-Adresse verwenden).',
    ],
    [() => checkRedirectUriForRegistration('cb', 'web'), 'cb ist keine absolute URI.'],
    [
      () => checkRedirectUriForRegistration('https://app.example/cb#x', 'web'),
      'https://app.example/cb#x darf kein Fragment (#) enthalten.',
    ],
    [
      () => registerClient(noStorage, client({ token_format: 'jwt', access_token_ttl_seconds: null })),
      'JWT-Zugriffstoken müssen ablaufen: Geben Sie ihnen eine Lebensdauer.',
    ],
    [
      () => registerClient(noStorage, client({ client_type: 'public', grant_types: ['client_credentials'] })),
      'Öffentliche Clients können keine Client-Credentials verwenden.',
    ],
    [
      () =>
        registerClient(
          noStorage,
          client({
            client_type: 'public',
            grant_types: ['urn:ietf:params:oauth:grant-type:token-exchange'],
          }),
        ),
      'Öffentliche Clients können keinen Token-Austausch verwenden.',
    ],
    [
      () => registerClient(noStorage, client({ response_types: ['token'] })),
      'Token-Antworttypen brauchen den Grant-Typ implicit.',
    ],
    [
      () => registerResourceServer(existingResourceServer, { id: 'rs-1', audience: 'rs-1' }),
      'Ein Ressourcenserver mit der ID rs-1 existiert bereits.',
    ],
    [() => createUser(noStorage, { username: 'u', password: 'short' }), 'password: mindestens 8 Zeichen.'],
    [
      () => createUser(noStorage, { username: '', password: 'x'.repeat(1025) }),
      'username: mindestens 1 Zeichen. password: höchstens 1024 Zeichen.',
    ],
    [
      () => registerClient(noStorage, client({ client_type: 'other' })),
      'client_type: Dieser Wert ist nicht zulässig.',
    ],
    [
      () => checkAdminLogoUri('https://elsewhere.example/logo.png', ['https://cdn.example']),
      'Das Logo muss von einem Ursprung kommen, den der Betreiber erlaubt (UI_LOGO_ORIGINS).',
    ],
    [
      () => checkAdminLogoUri('http://cdn.example/logo.png', ['https://cdn.example']),
      'Die Logo-URL muss eine https-URL ohne Zugangsdaten und ohne Fragment sein.',
    ],
    [
      () => checkAdminLogoUri('https://cdn.example/logo.png#x', ['https://cdn.example']),
      'Die Logo-URL muss eine https-URL ohne Zugangsdaten und ohne Fragment sein.',
    ],
    [() => checkBackchannelLogoutUri('logout'), 'Die Back-Channel-Logout-URI logout ist keine absolute URL.'],
    [
      () => checkBackchannelLogoutUri('https://app.example/logout#x'),
      'Die Back-Channel-Logout-URI https://app.example/logout#x darf kein Fragment (#) enthalten.',
    ],
    [
      () => checkBackchannelLogoutUri('http://app.example/logout'),
      'Die Back-Channel-Logout-URI http://app.example/logout muss https verwenden (oder http auf einer Loopback-Adresse).',
    ],
  ])('words a domain refusal in German (%#)', async (call, expected) => {
    expect(consoleProblem(await refusal(call), german)).toBe(expected);
  });

  it('words it in English too, and shows a wording it does not know as the domain gave it', async () => {
    const error = await refusal(() => checkRedirectUriForRegistration('http://a.example/', 'web'));
    expect(consoleProblem(error, english)).toBe(
      'Redirect URI http://a.example/ must use https (native apps may also use http on a loopback address).',
    );
    expect(consoleProblem(new OAuthError('invalid_request', 'something new'), german)).toBe('something new');
    expect(consoleProblem(new OAuthError('invalid_request'), german)).toBe('invalid_request');
    expect(consoleProblem(new OAuthError('conflict', 'resource server is odd'), german)).toBe(
      'resource server is odd',
    );
    // Bounded: a long list of issues is shown as it came, not worded issue by issue.
    const many = Array.from({ length: 30 }, (_, i) => `f${i}: bad`).join('; ');
    expect(consoleProblem(new OAuthError('invalid_request', many), german)).toBe(many);
  });
});
