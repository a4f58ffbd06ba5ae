import type { Logger } from '@acme/common';
import type { BackchannelLogoutRepo, DueDelivery } from './backchannel-logout-repo';
import type { SigningKeyStore } from '../tokens/signing-key-store';
import { signLogoutToken } from './sign-logout-token';

export interface BackchannelLogoutSenderOptions {
  repo: BackchannelLogoutRepo;
  keys: SigningKeyStore;
  issuer: string;
  logger: Logger;
  /** Each POST is abandoned (and retried) after this long. */
  timeoutMs: number;
  /** Attempts per delivery before it is dropped and logged as failed. */
  maxAttempts: number;
  /** Wait after the first failure; doubled per further failure, capped at MAX_BACKOFF_MS. */
  retryBaseMs: number;
}

export interface BackchannelLogoutSender {
  /** Delivers what is due now, in the background (never awaited by a request). */
  kick(): void;
  /** Stops the timer; deliveries in flight finish, nothing new starts. */
  close(): Promise<void>;
}

const MAX_BACKOFF_MS = 300_000;
const BATCH = 20;
/** Bound on the batches of one sweep; whatever is left is picked up by the next timer. */
const MAX_BATCHES_PER_SWEEP = 50;
/** Longest sleep between sweeps while rows are pending (rows another instance leased, say). */
const MAX_SLEEP_MS = 60_000;

/**
 * Delivers OIDC Back-Channel Logout 1.0 §2.5 logout tokens from the Postgres outbox: POST
 * `logout_token=…` to the client's backchannel_logout_uri, no redirects followed, a timeout per attempt;
 * 2xx is delivered (§2.8: 200, and some frameworks answer 204); a network error, timeout, 5xx, 408 or 429
 * is retried with exponential backoff up to maxAttempts; any other status is final (§2.8: 400 means the
 * RP refused this token, a new one would be refused too). Every outcome is logged.
 */
export function createBackchannelLogoutSender(
  options: BackchannelLogoutSenderOptions,
): BackchannelLogoutSender {
  const { repo, logger } = options;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;
  const backoff = (attempt: number) =>
    Math.min(MAX_BACKOFF_MS, options.retryBaseMs * 2 ** Math.max(0, attempt - 1));
  // The lease outlasts the attempt, so no other instance takes the row while this one is sending it.
  const lease = options.timeoutMs + 5000;

  async function deliver(delivery: DueDelivery): Promise<void> {
    const fields = { client_id: delivery.clientId, attempt: delivery.attempts };
    if (!delivery.uri) {
      await repo.remove(delivery.deliveryId); // the client removed its URI meanwhile
      return;
    }
    let failure: string;
    let final = false;
    try {
      const token = signLogoutToken(options.keys, {
        issuer: options.issuer,
        clientId: delivery.clientId,
        sub: delivery.userId,
        sid: delivery.sid,
        jti: delivery.jti,
      });
      const response = await fetch(delivery.uri, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'cache-control': 'no-store' },
        body: new URLSearchParams({ logout_token: token }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      await response.body?.cancel(); // the body is not read: an RP cannot make us buffer it
      if (response.status >= 200 && response.status < 300) {
        await repo.remove(delivery.deliveryId);
        logger.info('backchannel logout delivered', { ...fields, status: response.status });
        return;
      }
      failure = `HTTP ${response.status}`;
      final = !(response.status >= 500 || response.status === 408 || response.status === 429);
    } catch (error) {
      failure = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    }
    if (final || delivery.attempts >= options.maxAttempts) {
      await repo.remove(delivery.deliveryId);
      logger.error('backchannel logout failed', { ...fields, error: failure });
      return;
    }
    const retryInMs = backoff(delivery.attempts);
    await repo.recordFailure(delivery.deliveryId, failure, retryInMs);
    logger.warn('backchannel logout will be retried', { ...fields, error: failure, retryInMs });
  }

  async function sweep(): Promise<void> {
    for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP && !closed; batch += 1) {
      const due = await repo.claimDue(BATCH, lease);
      await Promise.all(due.map((delivery) => deliver(delivery)));
      if (due.length < BATCH) break;
    }
    if (closed) return;
    const wait = await repo.msUntilNextDue();
    if (wait !== null && !closed) schedule(Math.min(Math.max(wait, 50), MAX_SLEEP_MS));
  }

  function schedule(ms: number): void {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = undefined;
      kick();
    }, ms);
    timer.unref();
  }

  function kick(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    running = sweep()
      .catch((error: unknown) => {
        logger.warn('backchannel logout sweep failed', { error: String(error) });
        if (!closed) schedule(5000);
      })
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          kick();
        }
      });
  }

  return {
    kick,
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
