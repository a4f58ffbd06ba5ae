import { randomBytes } from 'node:crypto';
import { assert } from '../support/soft-authenticator';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { createClient, createUser } from '../support/oauth-helpers';
import { codeFlowPages } from './support/code-flow-pages';
import { answerWithPasskey, FLAGS, registerPasskey, secondFactorOptions } from './support/passkey-helpers';
import { enrolTotp, signInAtLogin, totpCode } from './support/totp-helpers';
import { inputValue, WebClient } from './support/web-client';

const PASSWORD = 'correct horse battery';

/**
 * acr_values step-up (OIDC Core §3.1.2.1) with a passkey as the second factor: a one-factor session of a
 * user whose only second factor is a passkey is raised by it; a level a code cannot reach (phr) is offered
 * the passkey alone and a code is refused; `unmet_authentication_requirements` only when no factor of the
 * user reaches the level here.
 */
describe('acr_values with a passkey as the second factor', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  let origin: string;
  beforeAll(async () => {
    // WebAuthn refuses IP addresses as RP IDs: the issuer is http://localhost:<port>.
    server = await startAuthServer({}, { issuerHost: 'localhost' });
    origin = server.config.ISSUER;
    client = await createClient(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  /** A user whose browser signed in with the password alone (one factor), then registered a passkey. */
  async function oneFactorUserWithPasskey(options: { synced?: boolean; totp?: boolean } = {}) {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    expect((await signInAtLogin(browser, user.username, PASSWORD)).status).toBe(303);
    const credential = await registerPasskey(browser, origin, options);
    const totp = options.totp ? await enrolTotp(browser) : undefined;
    return { ...user, browser, credential, totp };
  }

  it('steps a one-factor session up with the passkey when it is the only second factor', async () => {
    const { userId, browser, credential } = await oneFactorUserWithPasskey();
    const flow = codeFlowPages(server, client, { acr_values: 'urn:acme:acr:mfa' });
    const asked = await browser.get(flow.path);
    expect(asked.status).toBe(303);
    expect(asked.headers.get('location')).toBe('/login/second-factor');
    const page = await (await browser.get('/login/second-factor')).text();
    expect(page).toContain('Use a passkey');
    expect(page).not.toContain('name="code"');

    const { csrf, options } = await secondFactorOptions(browser);
    expect(options.allowCredentials.map((item) => item.id)).toEqual([credential.id.toString('base64url')]);
    const raised = await answerWithPasskey(browser, csrf, assert(credential, options, origin));
    expect(raised.status).toBe(303);
    expect(raised.headers.get('location')).toMatch(/^\/authorize\?/);
    const { idToken } = await flow.redeem(await flow.follow(browser, raised));
    expect(idToken).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: 'phrh' });
    const { rows } = await server.pool.query('SELECT amr, acr FROM sessions WHERE user_id = $1', [userId]);
    expect(rows).toEqual([{ amr: ['pwd', 'hwk', 'mfa'], acr: 'phrh' }]);
  });

  it('offers only the passkey for phr to a user who also has TOTP, and refuses a valid code there', async () => {
    const { browser, credential, totp } = await oneFactorUserWithPasskey({ totp: true });
    const flow = codeFlowPages(server, client, { acr_values: 'phr' });
    expect((await browser.get(flow.path)).headers.get('location')).toBe('/login/second-factor');
    const page = await (await browser.get('/login/second-factor')).text();
    expect(page).not.toContain('name="code"');
    expect(page).toContain('Use a passkey');
    // A code reaches urn:acme:acr:mfa only: accepting it would send the browser round the step-up again.
    const coded = await browser.post('/login/second-factor', {
      csrf_token: inputValue(page, 'csrf_token'),
      code: totpCode(totp!.secret, 1),
    });
    expect(coded.status).toBe(400);
    expect(await coded.text()).toContain('A code cannot be used for this step.');

    const { csrf, options } = await secondFactorOptions(browser);
    const raised = await answerWithPasskey(browser, csrf, assert(credential, options, origin));
    expect(raised.status).toBe(303);
    const { idToken } = await flow.redeem(await flow.follow(browser, raised));
    expect(idToken).toMatchObject({ amr: ['pwd', 'hwk', 'mfa'], acr: 'phrh' });
  });

  it('phrh with a synced passkey alone is unmet; phr is reached by it (swk)', async () => {
    const { browser, credential } = await oneFactorUserWithPasskey({ synced: true });
    const hardware = await browser.get(codeFlowPages(server, client, { acr_values: 'phrh' }).path);
    expect(hardware.status).toBe(303);
    expect(new URL(hardware.headers.get('location')!).searchParams.get('error')).toBe(
      'unmet_authentication_requirements',
    );

    const flow = codeFlowPages(server, client, { acr_values: 'phr' });
    expect((await browser.get(flow.path)).headers.get('location')).toBe('/login/second-factor');
    const { csrf, options } = await secondFactorOptions(browser);
    const answer = assert(credential, options, origin, { flags: FLAGS.UP | FLAGS.UV | FLAGS.BE });
    const raised = await answerWithPasskey(browser, csrf, answer);
    expect(raised.status).toBe(303);
    const { idToken } = await flow.redeem(await flow.follow(browser, raised));
    expect(idToken).toMatchObject({ amr: ['pwd', 'swk', 'mfa'], acr: 'phr' });
  });
});

describe('acr_values and passkeys on an issuer whose host is an IP address', () => {
  let server: RunningAuthServer;
  let client: { clientId: string; secret?: string };
  beforeAll(async () => {
    server = await startAuthServer();
    client = await createClient(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it('answers unmet_authentication_requirements when a passkey, unusable here, is the only second factor', async () => {
    const user = await createUser(server);
    const browser = new WebClient(server.url);
    expect((await signInAtLogin(browser, user.username, PASSWORD)).status).toBe(303);
    await server.pool.query(
      `INSERT INTO passkeys (credential_id, user_id, user_handle, public_key, name, aaguid, backup_eligible, backed_up)
       VALUES ($1, $2, $3, $4, 'Laptop', '', false, false)`,
      [randomBytes(32), user.userId, randomBytes(32), randomBytes(77)],
    );
    const back = await browser.get(codeFlowPages(server, client, { acr_values: 'urn:acme:acr:mfa' }).path);
    expect(back.status).toBe(303);
    expect(new URL(back.headers.get('location')!).searchParams.get('error')).toBe(
      'unmet_authentication_requirements',
    );
  });
});
