import type { IncomingMessage } from 'node:http';
import type { Request } from 'express';
import { BasicStrategy } from 'passport-http';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../domain/auth-context';
import type { ResourceServer } from '../domain/clients/resource-server';
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
  const rows = new Map<string, { rs: Promise<ResourceServer | undefined>; until: number }>();
  // One lookup per id in flight: when the entry expires under load, the waiting calls share it.
  const findRs = (id: string) => {
    const hit = rows.get(id);
    if (hit && hit.until > Date.now()) return hit.rs;
    const rs = ctx.repos.resourceServers.findById(id);
    if (rows.size > 10_000) rows.clear();
    rows.set(id, { rs, until: Date.now() + RS_CACHE_MS });
    rs.catch(() => rows.get(id)?.rs === rs && rows.delete(id)); // a failed lookup is not cached
    return rs;
  };
  /** The resource server of this id (form-decoded), when the secret is its own. */
  const verify = async (id: string, secret: string): Promise<ResourceServer | undefined> => {
    // Postgres text cannot hold NUL (a 500 from the lookup); no resource server id or secret contains one.
    if (id.includes('\u0000') || secret.includes('\u0000')) return undefined;
    const rs = await findRs(id);
    return ctx.hasher.verify(secret, rs?.secretHash) && rs ? rs : undefined;
  };
  const strategy = new BasicStrategy({ realm: RS_REALM }, (rawId, rawSecret, done) => {
    let id: string;
    let secret: string;
    try {
      id = formDecode(rawId);
      secret = formDecode(rawSecret);
    } catch {
      return done(null, false);
    }
    verify(id, secret).then(
      (rs) => done(null, rs ?? false),
      (error: unknown) => done(error),
    );
  });
  const unauthorized = new OAuthError('invalid_client', 'resource server authentication failed', {
    'WWW-Authenticate': `Basic realm="${RS_REALM}", charset="UTF-8"`,
  });
  // The strategy is driven the way passport.authenticate drives it (a per-request instance with the
  // action functions attached), without passport's middleware wrapper around a single strategy.
  const authenticate = (req: IncomingMessage): Promise<ResourceServer> =>
    new Promise((resolve, reject) => {
      const attempt = Object.create(strategy) as StrategyAttempt;
      attempt.success = (rs) => resolve(rs as ResourceServer);
      attempt.fail = () => reject(unauthorized);
      attempt.error = (error) => reject(error instanceof Error ? error : new Error(String(error)));
      attempt.pass = () => reject(unauthorized);
      attempt.redirect = () => reject(unauthorized);
      attempt.authenticate(req as Request); // the strategy reads req.headers only
    });
  return { authenticate, verify };
}
export type ResourceServerAuth = ReturnType<typeof createResourceServerAuth>;

/** The action functions passport attaches to a strategy instance before calling authenticate(). */
type StrategyAttempt = BasicStrategy & {
  success(user: unknown): void;
  fail(): void;
  error(error: unknown): void;
  pass(): void;
  redirect(): void;
};
