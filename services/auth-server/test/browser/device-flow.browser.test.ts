import type { Browser } from 'playwright-core';
import { startAuthServer, type RunningAuthServer } from '../support/start-auth-server';
import { admin, createClient, createResourceServer, introspect, type Json } from '../support/oauth-helpers';
import { DEVICE_GRANT, pollDevice, startDevice } from '../support/device-helpers';
import { launchChromium } from './support/launch-chromium';
import { signInWithPassword } from './support/sign-in-with-password';

/**
 * RFC 8628 end to end in Debian's chromium: a device starts the flow and polls /token as §3.4 says
 * (every `interval`, 5 s more after slow_down) while a person opens verification_uri_complete, signs
 * in, checks the code and allows (or denies); the poller then gets tokens (or access_denied).
 */
describe('device authorization grant in chromium (real endpoints)', () => {
  let browser: Browser;
  let server: RunningAuthServer;
  let client: { clientId: string };
  let rs: { id: string; secret: string };
  const user = { username: 'grace', password: 'cobol compiler 1959' };

  beforeAll(async () => {
    // The issuer is the real base URL: the verification URIs the browser opens are built from it.
    server = await startAuthServer({ DEVICE_POLL_INTERVAL_SECONDS: '1' }, { issuerIsUrl: true });
    rs = await createResourceServer(server, ['search.read']);
    client = await createClient(server, {
      name: 'Terminal CLI',
      client_type: 'public',
      application_type: 'native',
      redirect_uris: [],
      grant_types: [DEVICE_GRANT, 'refresh_token'],
    });
    expect(
      (await admin(server, 'POST', '/users', { ...user, claims: { name: 'Grace Hopper' } })).status,
    ).toBe(201);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
  });

  /** The device's loop: every answer it got, the last one final. */
  async function pollUntilDone(deviceCode: string, interval: number) {
    const answers: { status: number; body: Json }[] = [];
    for (let i = 0; i < 60; i++) {
      await new Promise((resolve) => setTimeout(resolve, interval * 1000));
      const answer = await pollDevice(server, client, deviceCode);
      answers.push({ status: answer.status, body: answer.body });
      if (answer.body.error === 'slow_down') interval += 5;
      else if (answer.body.error !== 'authorization_pending') return answers;
    }
    throw new Error('the device never got an answer');
  }

  async function signInAt(url: string) {
    const context = await browser.newContext();
    const page = await context.newPage();
    const response = await page.goto(url);
    expect(response!.headers()['x-frame-options']).toBe('DENY');
    await signInWithPassword(page, user.username, user.password);
    return { context, page };
  }

  it('the user opens verification_uri_complete, signs in, allows, and the polling device gets tokens', async () => {
    const device = await startDevice(server, client, 'openid profile search.read');
    expect(device.interval).toBe(1);
    // The device's first poll, before anyone has opened the page: pending. Asked here rather than
    // taken from the loop's answers, because the browser may finish within the first interval.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await pollDevice(server, client, device.device_code)).toMatchObject({
      status: 400,
      body: { error: 'authorization_pending', error_description: expect.any(String) },
    });
    const polling = pollUntilDone(device.device_code, Number(device.interval));

    const { context, page } = await signInAt(String(device.verification_uri_complete));
    // Back on /device with the code filled in; continuing shows the consent with the code to compare.
    expect(await page.getByLabel('Code shown on your device').inputValue()).toBe(device.user_code);
    await page.getByRole('button', { name: 'Continue' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(
      'Allow Terminal CLI to access your account?',
    );
    expect(await page.locator('[data-user-code]').textContent()).toBe(device.user_code);
    expect(await page.locator('li[data-scope="search.read"]').textContent()).toBe(
      'Search and read documents',
    );
    await page.getByRole('button', { name: 'Allow' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Device connected');

    const answers = await polling;
    const final = answers.at(-1)!;
    expect(final.status).toBe(200);
    expect(final.body).toMatchObject({ token_type: 'Bearer', scope: 'openid profile search.read' });
    expect(answers.filter((a) => a.body.error === 'slow_down')).toEqual([]);
    expect((await introspect(server, rs, String(final.body.access_token))).body).toMatchObject({
      active: true,
    });
    await context.close();
  });

  it('the user types the code on verification_uri and denies: the device gets access_denied', async () => {
    const device = await startDevice(server, client, 'search.read');
    const polling = pollUntilDone(device.device_code, Number(device.interval));
    const { context, page } = await signInAt(String(device.verification_uri));
    // Typed as people do: lower case, a space instead of the dash.
    await page.getByLabel('Code shown on your device').fill(device.user_code.toLowerCase().replace('-', ' '));
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('button', { name: 'Deny' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Access denied');
    const final = (await polling).at(-1)!;
    expect(final).toEqual({
      status: 400,
      body: { error: 'access_denied', error_description: 'the user denied the authorization' },
    });
    await context.close();
  });
});
