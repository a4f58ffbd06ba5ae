import type { SessionSummary } from '../../domain/sessions/session';
import { html, type SafeHtml } from './html';
import { csrfField, type PageChrome } from './layout.view';

/** A moment as people read it in any language: ISO date and minutes, UTC said outright. */
export function renderMoment(at: Date): SafeHtml {
  return html`<time datetime="${at.toISOString()}"
    >${at.toISOString().slice(0, 16).replace('T', ' ')} UTC</time
  >`;
}

/**
 * The account page's "Where you are signed in": each live session of the user with when it signed in,
 * when it was last used and its browser; this one marked, every other with "End this session" (a CSRF
 * form naming its public sid, never the cookie).
 */
export function renderAccountSessions(
  chrome: PageChrome,
  csrfToken: string,
  sessions: readonly SessionSummary[],
  currentSid: string,
): SafeHtml {
  const { t, tHtml } = chrome.i18n;
  const items = sessions.map((session) => {
    const device = session.device ?? t('Unknown browser');
    const current = session.sid === currentSid;
    return html`<li>
      <h3 class="device">
        ${device} ${current ? html`<span class="badge">${t('This session')}</span>` : ''}
      </h3>
      <p class="muted">
        ${tHtml('Signed in {signed_in}, last seen {last_seen}.', {
          signed_in: renderMoment(session.authTime),
          last_seen: renderMoment(session.lastSeenAt),
        })}
      </p>
      ${
        current
          ? ''
          : html`<form method="post" action="/account/sessions/end">
              ${csrfField(csrfToken)}
              <input type="hidden" name="sid" value="${session.sid}" />
              <button
                type="submit"
                class="secondary"
                aria-label="${t('End this session ({device}, signed in {date})', {
                  device,
                  date: `${session.authTime.toISOString().slice(0, 16).replace('T', ' ')} UTC`,
                })}"
              >
                ${t('End this session')}
              </button>
            </form>`
      }
    </li> `;
  });
  return html`<h2 id="sessions-heading">${t('Where you are signed in')}</h2>
    <ul class="sessions" aria-labelledby="sessions-heading">
      ${items}
    </ul>`;
}
