import { html } from '../views/html';
import { renderLayout, type PageChrome } from '../views/layout.view';
import { renderPasswordForm } from '../views/password-form.view';

/** The console's own sign-in page: an admin's username and password (the page session counts for nothing). */
export function renderConsoleLogin(view: {
  chrome: PageChrome;
  csrfToken: string;
  username?: string;
  error?: string;
}): string {
  const { t } = view.chrome.i18n;
  const body = html`<h1>${t('Admin console')}</h1>
    <p>${t('Sign in with an account that holds the admin role.')}</p>
    ${renderPasswordForm({
      chrome: view.chrome,
      action: '/admin/console/login',
      csrfToken: view.csrfToken,
      username: view.username,
      error: view.error,
    })}`;
  return renderLayout({ title: t('Admin console'), body, chrome: view.chrome });
}
