import { consoleTable } from './console-table.view';
import { Router } from 'express';
import { listSigningKeys, rotateSigningKeys } from '../../domain/admin/signing-key-admin';
import { html } from '../views/html';
import { csrfField } from '../views/layout.view';
import type { ConsoleContext } from './console-context';
import { field } from './console-form';
import { actorOf, frameOf, type ConsoleHandlers } from './console-frame';
import { renderConsole, when } from './console.view';
import { PageError } from '../page-error';

export function consoleKeysRoute(cc: ConsoleContext, { form, guard }: ConsoleHandlers): Router {
  const router = Router();

  router.get('/admin/console/keys', guard, async (req, res) => {
    await cc.ready();
    const frame = await frameOf(cc, req, res, 'keys');
    const { t } = frame.chrome.i18n;
    const keys = await listSigningKeys(cc.auth);
    const now = cc.page.clock().getTime();
    const status = (k: { retiredAt: Date | null; expiresAt: Date | null }) =>
      !k.retiredAt
        ? t('Current')
        : k.expiresAt && k.expiresAt.getTime() <= now
          ? t('Expired')
          : t('Retired, still published');
    const content = html`${consoleTable({
        caption: t('Signing keys, newest first'),
        headers: ['kid', t('Algorithm'), t('Created'), t('Retired'), t('Leaves the JWKS'), t('Status')],
        rows: keys.map(
          (k) =>
            html`<tr>
              <td><code>${k.kid}</code></td>
              <td>${k.alg}</td>
              <td>${when(k.createdAt)}</td>
              <td>${when(k.retiredAt)}</td>
              <td>${when(k.expiresAt)}</td>
              <td>${status(k)}</td>
            </tr>`,
        ),
      })}
      <h2>${t('Rotate')}</h2>
      <p>
        ${t('A new key signs from now on; the old one stays published until every token it signed has expired.')}
      </p>
      <form method="post" action="/admin/console/keys/rotate" class="console-form">
        ${csrfField(frame.csrfToken)}
        <div class="field">
          <label for="alg">${t('Algorithm')}</label>
          <select id="alg" name="alg">
            <option value="RS256">RS256</option>
            <option value="ES256">ES256</option>
          </select>
        </div>
        <div class="actions"><button type="submit">${t('Rotate signing key')}</button></div>
      </form>`;
    res.type('html').send(renderConsole(frame, t('Signing keys'), content));
  });

  router.post('/admin/console/keys/rotate', form, guard, async (req, res) => {
    const alg = field(req, 'alg');
    if (alg !== 'RS256' && alg !== 'ES256')
      throw new PageError(400, 'Bad request', 'The algorithm must be RS256 or ES256.', 'invalid_request');
    await cc.ready();
    await rotateSigningKeys(cc.auth, await actorOf(cc, req), alg);
    res.redirect(303, '/admin/console/keys?done=rotated');
  });
  return router;
}
