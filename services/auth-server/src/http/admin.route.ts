import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { safeEqual } from '../domain/crypto/secret-hasher';
import { presentClient } from '../domain/clients/register-client';
import { presentResourceServer } from '../domain/admin/register-resource-server';
import { presentUser } from '../domain/admin/create-user';
import { issueInitialAccessToken } from '../domain/clients/dynamic-registration';
import type { LogoutService } from '../domain/logout/logout-service';
import type { AdminActor } from '../domain/admin/admin-actor';
import type { AdminUser } from '../domain/admin/admin-repo';
import {
  formatAuditCursor,
  listAuditEvents,
  parseAuditCursor,
  recordAdminEvent,
} from '../domain/admin/audit-events';
import {
  createClientAsAdmin,
  deleteClient,
  rotateClientSecret,
  updateClient,
} from '../domain/admin/client-admin';
import {
  createResourceServerAsAdmin,
  deleteResourceServer,
  rotateResourceServerSecret,
} from '../domain/admin/resource-server-admin';
import {
  createUserAsAdmin,
  listUsers,
  resetUserMfa,
  setAdminRole,
  setUserEnabled,
} from '../domain/admin/user-admin';
import { endSession, listGrants, listSessions, revokeGrantsAsAdmin } from '../domain/admin/session-admin';
import { listSigningKeys, rotateSigningKeys } from '../domain/admin/signing-key-admin';
import { isConsolePath } from './console/console-paths';
import { clientIp } from './page-audit';
import { checkAdminLogoUri } from '../domain/clients/client-logo';
import { adminClientLogoRoute } from './admin-client-logo.route';

const revokeSchema = z.union([
  z.object({ user_id: z.string().uuid() }).strict(),
  z.object({ client_id: z.string().min(1) }).strict(),
  z.object({ grant_id: z.string().uuid() }).strict(),
]);

/** The CLI says so in this header (run-admin-cli.ts); only the ADMIN_TOKEN holder can, so it is a label. */
export const ADMIN_ACTOR_HEADER = 'x-admin-actor';

/** Who calls: the token holder, or the CLI by its own account (audit events' `actor`). */
function actorOf(req: Request): AdminActor {
  return { kind: req.get(ADMIN_ACTOR_HEADER) === 'cli' ? 'cli' : 'admin-token', sourceIp: clientIp(req) };
}

const queryString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const queryNumber = (value: unknown): number | undefined => {
  const text = queryString(value);
  return text !== undefined && /^\d{1,6}$/.test(text) ? Number(text) : undefined;
};

export const presentAdminUser = (user: AdminUser) => ({
  user_id: user.userId,
  username: user.username,
  claims: user.claims,
  roles: user.roles,
  disabled: user.disabled,
  created_at: user.createdAt.toISOString(),
});

/**
 * The admin API (Bearer ADMIN_TOKEN, compared in constant time): clients, resource servers, users,
 * revocation by user, client or grant, sessions, signing keys and audit events. Secrets appear once, in
 * the answer that created or rotated them. Every change goes through domain/admin/ (the console's functions
 * too) and is recorded in audit_events. The console's paths (GET /admin, /admin/console/…) are not ours.
 */
export function adminRouter(ctx: AuthContext, logout: Pick<LogoutService, 'sessionsEnded'>): Router {
  const router = express.Router();
  router.use(
    '/admin',
    (req, _res, next) => (isConsolePath(req.originalUrl) ? next('router') : next()),
    express.json({ limit: '64kb' }),
    (req: Request, res: Response, next: NextFunction) => {
      res.set('Cache-Control', 'no-store');
      const token = req.headers.authorization?.match(/^Bearer (.+)$/i)?.[1];
      if (!token || !safeEqual(token, ctx.config.ADMIN_TOKEN))
        throw new OAuthError('invalid_token', 'admin credential required', {
          'WWW-Authenticate': 'Bearer realm="admin", error="invalid_token"',
        });
      next();
    },
  );

  router.post('/admin/clients', async (req, res) => {
    // logo_uri is display-only (client_logos, shown from UI_LOGO_ORIGINS): checked first, kept apart.
    const { logo_uri: logoUri, ...input } = (req.body ?? {}) as Record<string, unknown>;
    const logo = logoUri === undefined ? undefined : checkAdminLogoUri(logoUri, ctx.config.UI_LOGO_ORIGINS);
    const { client, clientSecret } = await createClientAsAdmin(ctx, actorOf(req), input);
    if (logo) await ctx.repos.clientLogos.saveLogoUri(client.clientId, logo);
    res.status(201).json({
      ...presentClient(client),
      ...(logo ? { logo_uri: logo } : {}),
      ...(clientSecret ? { client_secret: clientSecret } : {}),
    });
  });
  router.get('/admin/clients', async (_req, res) => {
    res.json((await ctx.repos.clients.list()).map(presentClient));
  });
  router.get('/admin/clients/:id', async (req, res) => {
    const client = await ctx.repos.clients.findById(req.params.id);
    if (!client) throw new OAuthError('not_found', 'no such client');
    res.json(presentClient(client));
  });
  // Redirect URIs, grant types, scopes, token format and lifetimes, logo_uri (null clears it); the rest
  // of a client stays.
  router.patch('/admin/clients/:id', async (req, res) => {
    const client = await updateClient(ctx, actorOf(req), req.params.id, req.body);
    const body = (req.body ?? {}) as Record<string, unknown>;
    res.json({
      ...presentClient(client),
      ...(Object.hasOwn(body, 'logo_uri') ? { logo_uri: body.logo_uri } : {}),
    });
  });
  router.post('/admin/clients/:id/secret', async (req, res) => {
    const { client, clientSecret } = await rotateClientSecret(ctx, actorOf(req), req.params.id);
    res.json({ client_id: client.clientId, client_secret: clientSecret });
  });
  router.use(adminClientLogoRoute(ctx));
  router.delete('/admin/clients/:id', async (req, res) => {
    await deleteClient(ctx, actorOf(req), req.params.id);
    res.status(204).end();
  });

  // RFC 7591 §3: the token a dynamic registration presents (shown once here, stored hashed).
  router.post('/admin/initial-access-tokens', async (req, res) => {
    const issued = await issueInitialAccessToken(ctx, req.body);
    await recordAdminEvent(ctx, actorOf(req), 'initial_access_token.create', {
      type: 'initial_access_token',
    });
    res.status(201).json(issued);
  });

  router.post('/admin/resource-servers', async (req, res) => {
    const { resourceServer, secret } = await createResourceServerAsAdmin(ctx, actorOf(req), req.body);
    res.status(201).json({ ...presentResourceServer(resourceServer), secret });
  });
  router.get('/admin/resource-servers', async (_req, res) => {
    res.json((await ctx.repos.resourceServers.list()).map(presentResourceServer));
  });
  router.post('/admin/resource-servers/:id/secret', async (req, res) => {
    const { resourceServer, secret } = await rotateResourceServerSecret(ctx, actorOf(req), req.params.id);
    res.json({ id: resourceServer.id, secret });
  });
  router.delete('/admin/resource-servers/:id', async (req, res) => {
    await deleteResourceServer(ctx, actorOf(req), req.params.id);
    res.status(204).end();
  });

  router.post('/admin/users', async (req, res) => {
    res.status(201).json(presentUser(await createUserAsAdmin(ctx, actorOf(req), req.body)));
  });
  // ?search= (username prefix), ?limit= (≤ 100), ?offset= (≤ 10000).
  router.get('/admin/users', async (req, res) => {
    const search = queryString(req.query.search);
    const limit = queryNumber(req.query.limit);
    const offset = queryNumber(req.query.offset);
    const users = await listUsers(ctx, {
      ...(search !== undefined ? { search } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(offset !== undefined ? { offset } : {}),
    });
    res.json(users.map(presentAdminUser));
  });
  router.get('/admin/users/:id', async (req, res) => {
    const user = z.string().uuid().safeParse(req.params.id).success
      ? await ctx.repos.users.findById(req.params.id)
      : undefined;
    if (!user) throw new OAuthError('not_found', 'no such user');
    res.json(presentUser(user));
  });
  router.post('/admin/users/:id/disable', async (req, res) => {
    await setUserEnabled(ctx, logout, actorOf(req), req.params.id, false);
    res.status(204).end();
  });
  router.post('/admin/users/:id/enable', async (req, res) => {
    await setUserEnabled(ctx, logout, actorOf(req), req.params.id, true);
    res.status(204).end();
  });
  // The admin role opens the console (/admin); the only role there is.
  router.put('/admin/users/:id/roles/admin', async (req, res) => {
    await setAdminRole(ctx, actorOf(req), req.params.id, true);
    res.status(204).end();
  });
  router.delete('/admin/users/:id/roles/admin', async (req, res) => {
    await setAdminRole(ctx, actorOf(req), req.params.id, false);
    res.status(204).end();
  });

  // A user who lost their second factor: it goes, and the next sign-in is by password alone.
  router.post('/admin/users/:id/mfa/reset', async (req, res) => {
    const result = await resetUserMfa(ctx, actorOf(req), req.params.id);
    res.json({
      user_id: result.userId,
      totp_removed: result.totpRemoved,
      recovery_codes_removed: result.recoveryCodesRemoved,
      passkeys_removed: result.passkeysRemoved,
    });
  });

  router.post('/admin/revocations', async (req, res) => {
    const parsed = revokeSchema.safeParse(req.body);
    if (!parsed.success)
      throw new OAuthError('invalid_request', 'send exactly one of user_id, client_id, grant_id');
    const result = await revokeGrantsAsAdmin(ctx, actorOf(req), parsed.data);
    res.json({ revoked_grants: result.grants, revoked_tokens: result.tokens });
  });
  // Active grants and live sessions by ?user_id= or ?client_id= (grants), newest first, ?limit= ≤ 100.
  router.get('/admin/grants', async (req, res) => {
    const { limit, ...filter } = req.query;
    const grants = await listGrants(ctx, filter, queryNumber(limit));
    res.json(
      grants.map((g) => ({
        grant_id: g.grantId,
        client_id: g.clientId,
        user_id: g.userId,
        username: g.username,
        scopes: g.scopes,
        sid: g.sid,
        created_at: g.createdAt.toISOString(),
      })),
    );
  });
  router.get('/admin/sessions', async (req, res) => {
    const { limit, ...filter } = req.query;
    const sessions = await listSessions(ctx, filter, queryNumber(limit));
    res.json(
      sessions.map((s) => ({
        sid: s.sid,
        user_id: s.userId,
        username: s.username,
        auth_time: s.authTime.toISOString(),
        expires_at: s.expiresAt.toISOString(),
      })),
    );
  });
  // Ends a browser session and sends the back-channel logout tokens, as the account page does.
  router.delete('/admin/users/:id/sessions/:sid', async (req, res) => {
    const { backchannelLogouts } = await endSession(ctx, logout, actorOf(req), req.params.id, req.params.sid);
    res.json({ backchannel_logouts: backchannelLogouts });
  });

  router.get('/admin/signing-keys', async (_req, res) => {
    res.json(
      (await listSigningKeys(ctx)).map((k) => ({
        kid: k.kid,
        alg: k.alg,
        created_at: k.createdAt.toISOString(),
        retired_at: k.retiredAt?.toISOString() ?? null,
        expires_at: k.expiresAt?.toISOString() ?? null,
      })),
    );
  });
  router.post('/admin/signing-keys/rotate', async (req, res) => {
    const alg = z.object({ alg: z.enum(['RS256', 'ES256']) }).safeParse(req.body);
    if (!alg.success) throw new OAuthError('invalid_request', 'alg must be RS256 or ES256');
    // Retired keys stay published until every token they may have signed has expired.
    await rotateSigningKeys(ctx, actorOf(req), alg.data.alg);
    res.json(ctx.keys.jwks());
  });

  // Newest first, ?limit= ≤ 100; `next` is the ?before= of the following page (absent on the last).
  router.get('/admin/audit-events', async (req, res) => {
    const before = req.query.before === undefined ? undefined : parseAuditCursor(req.query.before);
    if (req.query.before !== undefined && !before)
      throw new OAuthError('invalid_request', 'before is malformed');
    const limit = queryNumber(req.query.limit) ?? 50;
    const events = await listAuditEvents(ctx, { limit, ...(before ? { before } : {}) });
    const last = events.at(-1);
    res.json({
      events: events.map((e) => ({
        id: e.id,
        at: e.at.toISOString(),
        actor: e.actor,
        actor_user_id: e.actorUserId,
        action: e.action,
        target_type: e.targetType,
        target_id: e.targetId,
        details: e.details,
        source_ip: e.sourceIp,
      })),
      ...(last && events.length === Math.min(limit, 100) ? { next: formatAuditCursor(last) } : {}),
    });
  });
  return router;
}
