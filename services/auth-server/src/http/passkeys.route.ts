import express, { Router, type Request } from 'express';
import { finishPasskeyRegistration } from '../domain/passkeys/finish-passkey-registration';
import { MAX_PASSKEY_NAME_LENGTH, MAX_PASSKEYS_PER_USER } from '../domain/passkeys/passkey-deps';
import { parseCredentialId, parseRegistrationResponse } from '../domain/passkeys/parse-passkey-response';
import { startPasskeyRegistration } from '../domain/passkeys/start-passkey-registration';
import { auditPageEvent } from './page-audit';
import type { PageContext } from './page-context';
import { PageError } from './page-error';
import { formField } from './page-form';
import { passkeyBinding } from './passkey-binding';
import type { PasskeyPageContext } from './passkey-page-context';
import { PASSKEY_FORM_BODY_LIMIT, PASSKEY_OPTIONS_BODY_LIMIT } from './passkey-login.route';
import type { AccountPasskeysView } from './views/account-passkeys.view';
import type { PageChrome } from './views/layout.view';

const LOGIN = '/login?return_to=%2Faccount';
/** Outcomes shown back on the account page (the `passkey` query parameter after a 303). */
const OUTCOMES = ['added', 'renamed', 'deleted', 'failed', 'limit', 'duplicate', 'bad_name'] as const;
type Outcome = (typeof OUTCOMES)[number];

/**
 * The account page's passkeys: POST /account/passkeys/options (JSON creation options, the challenge kept for
 * this browser's session and user), POST /account/passkeys (the new credential, verified and saved),
 * POST /account/passkeys/rename and /delete. Every POST carries the CSRF token; each answers 303 to
 * /account with the outcome (post/redirect/get), the options request JSON.
 */
export function passkeysRoute(ctx: PageContext, passkeys: PasskeyPageContext): Router {
  const router = Router();
  const json = express.json({ limit: PASSKEY_OPTIONS_BODY_LIMIT });
  const form = express.urlencoded({ extended: false, limit: PASSKEY_FORM_BODY_LIMIT });
  const small = express.urlencoded({ extended: false, limit: '8kb' });
  const back = (outcome: Outcome) => `/account?passkey=${outcome}#passkeys`;

  router.post('/account/passkeys/options', json, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.status(401).json({ error: 'login_required' });
    const binding = passkeyBinding(passkeys.keys, ctx.config.ISSUER, req);
    if (!binding) return res.status(400).json({ error: 'invalid_request' });
    const options = await startPasskeyRegistration(passkeys.deps, session, binding);
    if (!options) return res.status(409).json({ error: 'passkey_limit' });
    res.status(200).json(options);
  });

  router.post('/account/passkeys', form, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, LOGIN);
    const name = passkeyName(formField(req, 'name'), ctx.clock());
    if (name === undefined) return res.redirect(303, back('bad_name'));
    const response = parseRegistrationResponse(formField(req, 'credential'));
    const binding = passkeyBinding(passkeys.keys, ctx.config.ISSUER, req);
    const result =
      response && binding
        ? await finishPasskeyRegistration(passkeys.deps, session, binding, response, name)
        : ({ ok: false, reason: 'invalid' } as const);
    if (!result.ok) {
      auditPageEvent(ctx.logger, req, 'passkey.registration_refused', {
        userId: session.userId,
        reason: result.reason,
      });
      return res.redirect(
        303,
        back(result.reason === 'limit' || result.reason === 'duplicate' ? result.reason : 'failed'),
      );
    }
    auditPageEvent(ctx.logger, req, 'passkey.registered', {
      userId: session.userId,
      credentialId: result.credentialId.toString('base64url'),
    });
    res.redirect(303, back('added'));
  });

  router.post('/account/passkeys/rename', small, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, LOGIN);
    const id = parseCredentialId(formField(req, 'credential_id'));
    const name = passkeyName(formField(req, 'name'), ctx.clock());
    if (!id) throw new PageError(400, 'Bad request', 'No passkey was chosen.', 'invalid_request');
    if (name === undefined || !formField(req, 'name')?.trim()) return res.redirect(303, back('bad_name'));
    if (!(await passkeys.deps.passkeys.rename(session.userId, id, name)))
      throw new PageError(404, 'Not found', 'That passkey does not exist.', 'invalid_request');
    auditPageEvent(ctx.logger, req, 'passkey.renamed', {
      userId: session.userId,
      credentialId: id.toString('base64url'),
    });
    res.redirect(303, back('renamed'));
  });

  router.post('/account/passkeys/delete', small, ctx.csrf.require(), async (req, res) => {
    const session = await ctx.sessions.current(req);
    if (!session) return res.redirect(303, LOGIN);
    const id = parseCredentialId(formField(req, 'credential_id'));
    if (!id) throw new PageError(400, 'Bad request', 'No passkey was chosen.', 'invalid_request');
    if (!(await passkeys.deps.passkeys.delete(session.userId, id)))
      throw new PageError(404, 'Not found', 'That passkey does not exist.', 'invalid_request');
    auditPageEvent(ctx.logger, req, 'passkey.deleted', {
      userId: session.userId,
      credentialId: id.toString('base64url'),
    });
    res.redirect(303, back('deleted'));
  });
  return router;
}

/**
 * A passkey's name as typed: trimmed, at most MAX_PASSKEY_NAME_LENGTH characters, no control or format
 * characters (they would garble the list, or reverse text around it); empty: "Passkey" and the date.
 * undefined: refused.
 */
function passkeyName(value: string | undefined, now: Date): string | undefined {
  const name = (value ?? '').trim();
  if (name.length > MAX_PASSKEY_NAME_LENGTH || /[\p{Cc}\p{Cf}]/u.test(name)) return undefined;
  return name || `Passkey ${now.toISOString().slice(0, 10)}`;
}

/** The account page's passkeys section: the list, whether one more may be added, the last outcome. */
export async function accountPasskeysView(
  passkeys: PasskeyPageContext,
  chrome: PageChrome,
  req: Request,
  userId: string,
): Promise<AccountPasskeysView> {
  const list = await passkeys.deps.passkeys.listByUser(userId);
  const { t } = chrome.i18n;
  const outcome = typeof req.query.passkey === 'string' ? req.query.passkey : '';
  const notices: Record<Outcome, { notice?: string; alert?: string }> = {
    added: { notice: t('Passkey added.') },
    renamed: { notice: t('Passkey renamed.') },
    deleted: { notice: t('Passkey deleted.') },
    failed: { alert: t('The passkey could not be added. Try again.') },
    limit: {
      alert: t('You have {max} passkeys, the most allowed. Delete one first.', {
        max: MAX_PASSKEYS_PER_USER,
      }),
    },
    duplicate: { alert: t('This passkey is already registered.') },
    bad_name: {
      alert: t('A passkey name has at most {max} characters and no control characters.', {
        max: MAX_PASSKEY_NAME_LENGTH,
      }),
    },
  };
  const shown = (OUTCOMES as readonly string[]).includes(outcome) ? notices[outcome as Outcome] : {};
  return {
    passkeys: list.map((passkey) => ({
      id: passkey.credentialId.toString('base64url'),
      name: passkey.name,
      createdAt: passkey.createdAt,
      lastUsedAt: passkey.lastUsedAt,
      synced: passkey.backupEligible,
    })),
    canAdd: list.length < MAX_PASSKEYS_PER_USER,
    max: MAX_PASSKEYS_PER_USER,
    maxNameLength: MAX_PASSKEY_NAME_LENGTH,
    ...shown,
  };
}
