import { consoleTable } from './console-table.view';
import { Router } from 'express';
import { formatAuditCursor, listAuditEvents, parseAuditCursor } from '../../domain/admin/audit-events';
import { html } from '../views/html';
import type { ConsoleContext } from './console-context';
import { frameOf, type ConsoleHandlers } from './console-frame';
import { renderConsole, when } from './console.view';

const PAGE = 50;

/** The audit log, newest first, a page of 50 at a time (keyset: `?before=` the last row of the page). */
export function consoleAuditRoute(cc: ConsoleContext, { guard }: ConsoleHandlers): Router {
  const router = Router();
  router.get('/admin/console/audit', guard, async (req, res) => {
    const before = parseAuditCursor(req.query.before);
    const events = await listAuditEvents(cc.auth, { limit: PAGE, ...(before ? { before } : {}) });
    const frame = await frameOf(cc, req, res, 'audit');
    const { t } = frame.chrome.i18n;
    const last = events.at(-1);
    const content = html`${consoleTable({
        caption: t('Admin actions, newest first'),
        headers: [t('Time'), t('Actor'), t('Action'), t('Target'), t('Details'), t('Source address')],
        rows: events.map(
          (e) =>
            html`<tr>
              <td>${when(e.at)}</td>
              <td>${e.actor}</td>
              <td><code>${e.action}</code></td>
              <td>${e.targetType}${e.targetId ? html` <code>${e.targetId}</code>` : ''}</td>
              <td>
                <code class="console-details">${JSON.stringify(e.details).slice(0, 500)}</code>
              </td>
              <td>${e.sourceIp ?? '–'}</td>
            </tr>`,
        ),
        empty: t('No events.'),
      })}
      <nav class="console-pager" aria-label="${t('Pages')}">
        ${before ? html`<a href="/admin/console/audit">${t('Newest')}</a>` : ''}
        ${
          last && events.length === PAGE
            ? html`<a href="/admin/console/audit?before=${encodeURIComponent(formatAuditCursor(last))}"
                >${t('Older')}</a
              >`
            : ''
        }
      </nav>`;
    res.type('html').send(renderConsole(frame, t('Audit log'), content));
  });
  return router;
}
