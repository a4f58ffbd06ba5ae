import { html } from '../views/html';
import { renderConsole, type ConsoleFrame } from './console.view';

export interface ConsoleCounts {
  clients: number;
  resourceServers: number;
}

/** GET /admin: where each section is and what it is for. */
export function renderConsoleHome(frame: ConsoleFrame, counts: ConsoleCounts): string {
  const { t } = frame.chrome.i18n;
  const content = html`<ul class="console-cards">
    <li>
      <h2><a href="/admin/console/clients">${t('Clients')}</a></h2>
      <p>${t('{count} registered. Create, edit, rotate secrets, delete.', { count: counts.clients })}</p>
    </li>
    <li>
      <h2><a href="/admin/console/resource-servers">${t('Resource servers')}</a></h2>
      <p>${t('{count} registered. Create, rotate secrets, delete.', { count: counts.resourceServers })}</p>
    </li>
    <li>
      <h2><a href="/admin/console/users">${t('Users')}</a></h2>
      <p>${t('Search, create, disable and enable users.')}</p>
    </li>
    <li>
      <h2><a href="/admin/console/grants">${t('Grants and sessions')}</a></h2>
      <p>${t('Revoke grants, end browser sessions.')}</p>
    </li>
    <li>
      <h2><a href="/admin/console/keys">${t('Signing keys')}</a></h2>
      <p>${t('See the keys and rotate them.')}</p>
    </li>
    <li>
      <h2><a href="/admin/console/audit">${t('Audit log')}</a></h2>
      <p>${t('Every admin action, newest first.')}</p>
    </li>
  </ul>`;
  return renderConsole(frame, t('Admin console'), content);
}
