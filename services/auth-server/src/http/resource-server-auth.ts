import type { Request, Response } from 'express';
import { Passport } from 'passport';
import { BasicStrategy } from 'passport-http';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import type { ResourceServer } from '../storage/resource-servers.repo';
import { formDecode } from './parse-params';

export const RS_REALM = 'token_info';
const RS_CACHE_MS = 5000;

/**
 * Resource-server Basic credentials through passport-http's BasicStrategy. The strategy does not
 * form-url-decode (RFC 6749 §2.3.1 requires it), so the verify callback does; its plain-text 401 is
 * replaced by the OAuth envelope. Secrets carry ≥256 bits, so the check is a keyed hash in constant time,
 * and the row lookup is cached for a few seconds (no slow hash, one query per few seconds per RS).
 */
export function createResourceServerAuth(ctx: AuthContext) {
  const rows = new Map<string, { rs: ResourceServer | undefined; until: number }>();
  const findRs = async (id: string) => {
    const hit = rows.get(id);
    if (hit && hit.until > Date.now()) return hit.rs;
    const rs = await ctx.repos.resourceServers.findById(id);
    if (rows.size > 10_000) rows.clear();
    rows.set(id, { rs, until: Date.now() + RS_CACHE_MS });
    return rs;
  };
  const passport = new Passport();
  passport.use(
    'rs-basic',
    new BasicStrategy({ realm: RS_REALM }, (rawId, rawSecret, done) => {
      let id: string;
      let secret: string;
      try {
        id = formDecode(rawId);
        secret = formDecode(rawSecret);
      } catch {
        return done(null, false);
      }
      findRs(id).then(
        (rs) => done(null, ctx.hasher.verify(secret, rs?.secretHash) && rs ? rs : false),
        (error: unknown) => done(error),
      );
    }),
  );
  const unauthorized = new OAuthError('invalid_client', 'resource server authentication failed', {
    'WWW-Authenticate': `Basic realm="${RS_REALM}", charset="UTF-8"`,
  });
  return (req: Request, res: Response): Promise<ResourceServer> =>
    new Promise((resolve, reject) => {
      const handler = passport.authenticate(
        'rs-basic',
        { session: false },
        (error: unknown, rs: ResourceServer | false) => {
          if (error) reject(error instanceof Error ? error : new Error(String(error)));
          else if (!rs) reject(unauthorized);
          else resolve(rs);
        },
      ) as (req: Request, res: Response, next: (error?: unknown) => void) => void;
      handler(req, res, (error) => reject(error instanceof Error ? error : unauthorized));
    });
}
