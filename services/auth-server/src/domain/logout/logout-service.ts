import type { AuthContext } from '../auth-context';
import type { Client } from '../clients/client';
import type { BackchannelLogoutRepo } from './backchannel-logout-repo';
import { createBackchannelLogoutSender } from './backchannel-logout-sender';
import { verifyIdTokenHint, type IdTokenHint } from './verify-id-token-hint';

/** What the pages need for logout: the hint, the client, and telling clients a session ended. */
export interface LogoutService {
  verifyIdTokenHint(token: string): Promise<IdTokenHint | undefined>;
  findClient(clientId: string): Promise<Client | undefined>;
  /**
   * These browser sessions of the user have ended: queue a logout token (Back-Channel Logout §2.5) for
   * every client with a back-channel URI and a grant in one of them, and start delivering in the
   * background. Resolves once queued (durably), never waiting for a delivery.
   */
  sessionsEnded(userId: string, sids: string[]): Promise<number>;
  /** Delivers what a previous process left due (main.ts, at start). */
  resume(): void;
  close(): Promise<void>;
}

export function createLogoutService(ctx: AuthContext, repo: BackchannelLogoutRepo): LogoutService {
  const sender = createBackchannelLogoutSender({
    repo,
    keys: ctx.keys,
    issuer: ctx.config.ISSUER,
    logger: ctx.logger,
    timeoutMs: ctx.config.BACKCHANNEL_LOGOUT_TIMEOUT_MS,
    maxAttempts: ctx.config.BACKCHANNEL_LOGOUT_MAX_ATTEMPTS,
    retryBaseMs: ctx.config.BACKCHANNEL_LOGOUT_RETRY_BASE_MS,
  });
  return {
    verifyIdTokenHint: (token) => verifyIdTokenHint(ctx.keys, ctx.config.ISSUER, token),
    findClient: (clientId) => ctx.repos.clients.findById(clientId),
    async sessionsEnded(userId, sids) {
      const queued = await repo.enqueueForSessions(userId, sids);
      if (queued > 0) sender.kick();
      return queued;
    },
    resume: () => sender.kick(),
    close: () => sender.close(),
  };
}
