import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';
import { basic, call } from './http';

/** Debian's chromium, headless, with nothing that phones home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
}

/** A relying party's redirect endpoint on loopback: records the query of every request to /cb. */
export interface CallbackServer {
  origin: string;
  received: URLSearchParams[];
  stop(): Promise<void>;
}

export async function startCallbackServer(): Promise<CallbackServer> {
  const received: URLSearchParams[] = [];
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname === '/cb') received.push(url.searchParams);
    res.writeHead(200, { 'content-type': 'text/html' }).end('<h1>callback received</h1>');
  });
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    async stop() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export interface CodeFlowTokens {
  access_token: string;
  refresh_token?: string;
  id_token?: string;
  scope: string;
}

/**
 * A user completing the authorization code flow with PKCE in the browser context (signing in when the
 * context has no session yet, consenting when asked), then the confidential client exchanging the code.
 */
export async function completeCodeFlow(options: {
  context: BrowserContext;
  authUrl: string;
  callback: CallbackServer;
  client: { clientId: string; clientSecret: string; redirectUri: string };
  user: { username: string; password: string };
  scope: string;
  state: string;
}): Promise<CodeFlowTokens> {
  const { context, authUrl, callback, client, user } = options;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const page = await context.newPage();
  try {
    await page.goto(
      `${authUrl}/authorize?${new URLSearchParams({
        client_id: client.clientId,
        redirect_uri: client.redirectUri,
        response_type: 'code',
        scope: options.scope,
        state: options.state,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        prompt: 'consent',
      })}`,
    );
    if (await page.getByLabel('Username').count()) {
      await page.getByLabel('Username').fill(user.username);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Sign in' }).click();
    }
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(`${callback.origin}/cb?**`);
  } finally {
    await page.close();
  }
  const query = callback.received.findLast((q) => q.get('state') === options.state);
  const code = query?.get('code');
  if (!code) throw new Error(`no code for state ${options.state}`);
  const exchanged = await call(`${authUrl}/token`, {
    method: 'POST',
    headers: {
      authorization: basic(client.clientId, client.clientSecret),
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: client.redirectUri,
      code_verifier: verifier,
    }).toString(),
  });
  if (exchanged.status !== 200)
    throw new Error(`code exchange failed: ${exchanged.status} ${exchanged.text}`);
  return exchanged.json as CodeFlowTokens;
}
