import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * RFC 9449 §8 server-provided nonces without state: a nonce is the HMAC of a time window's number, so
 * every instance sharing the secret issues and accepts the same ones. The current and the previous
 * window are accepted, so a nonce lives between one and two windows.
 */
export interface DpopNonces {
  /** The nonce to hand out now (`DPoP-Nonce` header). */
  current(): string;
  isValid(nonce: unknown): boolean;
}

export function createDpopNonces(options: {
  secret: Buffer;
  windowSeconds: number;
  now?: () => number;
}): DpopNonces {
  const now = options.now ?? Date.now;
  const nonceFor = (window: number) =>
    createHmac('sha256', options.secret).update(`dpop-nonce:${window}`).digest('base64url');
  const windowNow = () => Math.floor(now() / 1000 / options.windowSeconds);
  return {
    current: () => nonceFor(windowNow()),
    isValid(nonce) {
      if (typeof nonce !== 'string' || nonce.length > 64) return false;
      const given = Buffer.from(nonce);
      const window = windowNow();
      // Both compared every time, in constant time each: no timing tells which window matched.
      let ok = false;
      for (const candidate of [nonceFor(window), nonceFor(window - 1)]) {
        const expected = Buffer.from(candidate);
        ok = (expected.length === given.length && timingSafeEqual(expected, given)) || ok;
      }
      return ok;
    },
  };
}
