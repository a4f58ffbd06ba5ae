import { html, type SafeHtml } from '../views/html';
import { csrfField, renderLayout, type PageChrome } from '../views/layout.view';

export type ConsoleSection = 'home' | 'clients' | 'resource-servers' | 'users' | 'grants' | 'keys' | 'audit';

export interface ConsoleFrame {
  chrome: PageChrome;
  csrfToken: string;
  /** The signed-in admin. */
  username: string;
  section: ConsoleSection;
  /** Already in the page's language. */
  notice?: string;
  error?: string;
}

/**
 * The console's page: a navigation bar, the signed-in admin with a sign-out button, a status or error
 * line, then the section's content, in the pages' layout (same stylesheet, same headers, no script).
 */
export function renderConsole(frame: ConsoleFrame, title: string, content: SafeHtml): string {
  const { t } = frame.chrome.i18n;
  const links: [ConsoleSection, string, string][] = [
    ['home', '/admin', t('Overview')],
    ['clients', '/admin/console/clients', t('Clients')],
    ['resource-servers', '/admin/console/resource-servers', t('Resource servers')],
    ['users', '/admin/console/users', t('Users')],
    ['grants', '/admin/console/grants', t('Grants and sessions')],
    ['keys', '/admin/console/keys', t('Signing keys')],
    ['audit', '/admin/console/audit', t('Audit log')],
  ];
  const body = html`<nav class="console-nav" aria-label="${t('Admin console')}">
      <ul>
        ${links.map(
          ([section, href, label]) =>
            html`<li>
              <a href="${href}" ${section === frame.section ? html`aria-current="page"` : ''}>${label}</a>
            </li>`,
        )}
      </ul>
      <form method="post" action="/admin/console/logout" class="console-signout">
        ${csrfField(frame.csrfToken)}
        <span class="muted">${frame.username}</span>
        <button type="submit" class="secondary">${t('Sign out')}</button>
      </form>
    </nav>
    <h1>${title}</h1>
    ${frame.notice ? html`<p role="status" class="notice">${frame.notice}</p>` : ''}
    ${frame.error ? html`<p role="alert" class="alert" id="form-error">${frame.error}</p>` : ''} ${content}`;
  return renderLayout({ title: `${title} · ${t('Admin console')}`, body, chrome: frame.chrome, wide: true });
}

/** A date as the tables show it: ISO, to the minute, machine-readable in <time>. */
export function when(date: Date | null): SafeHtml | string {
  if (!date) return '–';
  return html`<time datetime="${date.toISOString()}"
    >${date.toISOString().slice(0, 16).replace('T', ' ')}</time
  >`;
}

/** A POST button with the CSRF field (every state change is a POST). */
export function actionButton(
  csrfToken: string,
  action: string,
  label: string,
  options: { secondary?: boolean; ariaLabel?: string; hidden?: Record<string, string> } = {},
): SafeHtml {
  return html`<form method="post" action="${action}" class="inline-form">
    ${csrfField(csrfToken)}
    ${Object.entries(options.hidden ?? {}).map(
      ([name, value]) => html`<input type="hidden" name="${name}" value="${value}" />`,
    )}
    <button
      type="submit"
      ${options.secondary ? html`class="secondary"` : ''}
      ${options.ariaLabel ? html`aria-label="${options.ariaLabel}"` : ''}
    >
      ${label}
    </button>
  </form>`;
}
