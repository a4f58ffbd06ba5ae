import { html } from '../views/html';
import { renderLayout, type PageChrome } from '../views/layout.view';
import { PASSKEY_SIGN_IN_SCRIPT, renderPasskeySignIn } from '../views/passkey-sign-in.view';
import { renderPasswordForm } from '../views/password-form.view';
import { CONSOLE_HOME, CONSOLE_LOGIN } from './console-paths';

/**
 * The console's own sign-in page (the page session counts for nothing): an admin's username and password,
 * the pages' form (password-form.view.ts); and, where the pages offer passkeys, "Sign in with a passkey"
 * posting to the console's own paths (console-passkey-login.route.ts).
 */
export function renderConsoleLogin(view: {
  chrome: PageChrome;
  csrfToken: string;
  username?: string;
  error?: string;
}): string {
  const { t } = view.chrome.i18n;
  const passkeys = view.chrome.passkeys === true;
  const body = html`<h1>${t('Admin console')}</h1>
    <p>${t('Sign in with an account that holds the admin role.')}</p>
    ${renderPasswordForm({
      chrome: view.chrome,
      action: CONSOLE_LOGIN,
      csrfToken: view.csrfToken,
      username: view.username,
      error: view.error,
    })}
    ${passkeys ? renderPasskeySignIn(view.chrome, view.csrfToken, CONSOLE_HOME, `${CONSOLE_LOGIN}/passkey`) : ''}`;
  return renderLayout({
    title: t('Admin console'),
    body,
    chrome: view.chrome,
    ...(passkeys ? { scripts: [PASSKEY_SIGN_IN_SCRIPT] } : {}),
  });
}
