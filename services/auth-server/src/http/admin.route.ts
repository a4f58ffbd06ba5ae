import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import { safeEqual } from '../domain/crypto/secret-hasher';
import { presentClient, registerClient } from '../domain/clients/register-client';
import { presentResourceServer, registerResourceServer } from '../domain/admin/register-resource-server';
import { createUser, presentUser } from '../domain/admin/create-user';
import { revokeGrants } from '../domain/revocation/revoke';
import { issueInitialAccessToken } from '../domain/clients/dynamic-registration';
import { resetMfa } from '../domain/users/reset-mfa';

const revokeSchema = z.union([
  z.object({ user_id: z.string().uuid() }).strict(),
  z.object({ client_id: z.string().min(1) }).strict(),
  z.object({ grant_id: z.string().uuid() }).strict(),
]);

/**
 * The admin API (Bearer ADMIN_TOKEN, compared in constant time): clients, resource servers, users,
 * revocation by user, client or grant, and signing-key rotation. Secrets appear once, in the 201.
 */
export function adminRouter(ctx: AuthContext): Router {
  const router = express.Router();
  router.use('/admin', express.json({ limit: '64kb' }), (req: Request, res: Response, next: NextFunction) => {
    res.set('Cache-Control', 'no-store');
    const token = req.headers.authorization?.match(/^Bearer (.+)$/i)?.[1];
    if (!token || !safeEqual(token, ctx.config.ADMIN_TOKEN))
      throw new OAuthError('invalid_token', 'admin credential required', {
        'WWW-Authenticate': 'Bearer realm="admin", error="invalid_token"',
      });
    next();
  });

  router.post('/admin/clients', async (req, res) => {
    const { client, clientSecret } = await registerClient(ctx, req.body);
    res
      .status(201)
      .json({ ...presentClient(client), ...(clientSecret ? { client_secret: clientSecret } : {}) });
  });
  router.get('/admin/clients', async (_req, res) => {
    res.json((await ctx.repos.clients.list()).map(presentClient));
  });
  router.get('/admin/clients/:id', async (req, res) => {
    const client = await ctx.repos.clients.findById(req.params.id);
    if (!client) throw new OAuthError('not_found', 'no such client');
    res.json(presentClient(client));
  });
  router.delete('/admin/clients/:id', async (req, res) => {
    // Revoke first: the tokens' hashes are needed to clear the introspection cache before the rows go.
    await revokeGrants(ctx, { client_id: req.params.id }, 'client_deleted');
    if (!(await ctx.repos.clients.delete(req.params.id))) throw new OAuthError('not_found', 'no such client');
    res.status(204).end();
  });

  // RFC 7591 §3: the token a dynamic registration presents (shown once here, stored hashed).
  router.post('/admin/initial-access-tokens', async (req, res) => {
    res.status(201).json(await issueInitialAccessToken(ctx, req.body));
  });

  router.post('/admin/resource-servers', async (req, res) => {
    const { resourceServer, secret } = await registerResourceServer(ctx, req.body);
    res.status(201).json({ ...presentResourceServer(resourceServer), secret });
  });
  router.get('/admin/resource-servers', async (_req, res) => {
    res.json((await ctx.repos.resourceServers.list()).map(presentResourceServer));
  });
  router.delete('/admin/resource-servers/:id', async (req, res) => {
    if (!(await ctx.repos.resourceServers.delete(req.params.id)))
      throw new OAuthError('not_found', 'no such resource server');
    res.status(204).end();
  });

  router.post('/admin/users', async (req, res) => {
    res.status(201).json(presentUser(await createUser(ctx, req.body)));
  });
  router.get('/admin/users/:id', async (req, res) => {
    const user = z.string().uuid().safeParse(req.params.id).success
      ? await ctx.repos.users.findById(req.params.id)
      : undefined;
    if (!user) throw new OAuthError('not_found', 'no such user');
    res.json(presentUser(user));
  });

  // A user who lost their second factor: it goes, and the next sign-in is by password alone.
  router.post('/admin/users/:id/mfa/reset', async (req, res) => {
    const user = z.string().uuid().safeParse(req.params.id).success
      ? await ctx.repos.users.findById(req.params.id)
      : undefined;
    if (!user) throw new OAuthError('not_found', 'no such user');
    const result = await resetMfa(ctx.repos, user.userId);
    ctx.audit('mfa_reset', {
      user_id: user.userId,
      totp_removed: result.totpRemoved,
      recovery_codes_removed: result.recoveryCodesRemoved,
    });
    res.json({
      user_id: user.userId,
      totp_removed: result.totpRemoved,
      recovery_codes_removed: result.recoveryCodesRemoved,
    });
  });

  router.post('/admin/revocations', async (req, res) => {
    const parsed = revokeSchema.safeParse(req.body);
    if (!parsed.success)
      throw new OAuthError('invalid_request', 'send exactly one of user_id, client_id, grant_id');
    const [by, value] = Object.entries(parsed.data)[0] as ['user_id' | 'client_id' | 'grant_id', string];
    const result = await revokeGrants(ctx, { [by]: value }, 'admin');
    res.json({ revoked_grants: result.grants, revoked_tokens: result.tokens });
  });

  router.post('/admin/signing-keys/rotate', async (req, res) => {
    const alg = z.object({ alg: z.enum(['RS256', 'ES256']) }).safeParse(req.body);
    if (!alg.success) throw new OAuthError('invalid_request', 'alg must be RS256 or ES256');
    // Retired keys stay published until every token they may have signed has expired.
    const keep = Math.max(ctx.config.ID_TOKEN_TTL_SECONDS, await ctx.repos.clients.maxJwtAccessTtl());
    await ctx.keys.rotate(alg.data.alg, keep);
    res.json(ctx.keys.jwks());
  });
  return router;
}
