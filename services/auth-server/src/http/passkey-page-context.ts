import type { Redis } from 'ioredis';
import type { AuthConfig } from '../config';
import type { PasskeyChallengesRepo, PasskeysRepo } from '../domain/passkeys/passkey';
import type { PasskeyDeps } from '../domain/passkeys/passkey-deps';
import { relyingPartyOf } from '../domain/passkeys/relying-party';
import { failureSource } from './failure-source';
import { derivePasskeyKeys, type PasskeyKeys } from './passkey-binding';
import { createSourceThrottle } from './source-throttle';

/** The passkey tables, wired in app.ts. */
export interface PasskeyStores {
  passkeys: PasskeysRepo;
  challenges: PasskeyChallengesRepo;
}

export interface PasskeyThrottle {
  /** Seconds until assertions from this address (for this credential) may be tried again; 0: now. */
  retryAfter(credentialId: string, ip: string): Promise<number>;
  recordFailure(credentialId: string, ip: string): Promise<void>;
  recordSuccess(credentialId: string, ip: string): Promise<void>;
}

/** What the passkey routes share: the ceremonies' deps, the keys, the failed-assertion throttle. */
export interface PasskeyPageContext {
  deps: PasskeyDeps;
  keys: PasskeyKeys;
  throttle: PasskeyThrottle;
}

/**
 * The passkey routes' context; undefined when the issuer's host is an IP address, which WebAuthn refuses
 * as an RP ID: there the pages offer no passkeys (and link no script), and their routes are not mounted.
 * Failed assertions back off as failed passwords do (source-throttle.ts, the login's limits, counted apart):
 * per credential at an address and per address; never per account, so nobody can lock an owner out.
 */
export function createPasskeyPageContext(options: {
  config: AuthConfig;
  stores: PasskeyStores;
  brand: string;
  clock: () => Date;
  redis?: Redis;
  throttleKeyPrefix?: string;
}): PasskeyPageContext | undefined {
  const { config } = options;
  const rp = relyingPartyOf(config.ISSUER, options.brand);
  if (!rp) return undefined;
  const keys = derivePasskeyKeys(config.TOKEN_SIGNING_SECRET);
  const throttle = createSourceThrottle({
    ...(options.redis ? { redis: options.redis } : {}),
    prefix: options.throttleKeyPrefix ? `${options.throttleKeyPrefix}:passkey` : 'auth:passkey-fail',
    keyName: 'credential',
    maxFailuresPerKey: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
    maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
    windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
  });
  const key = (credentialId: string, ip: string) => JSON.stringify([credentialId, failureSource(ip)]);
  return {
    deps: {
      passkeys: options.stores.passkeys,
      challenges: options.stores.challenges,
      rp,
      clock: options.clock,
      userHandleKey: keys.userHandle,
    },
    keys,
    throttle: {
      retryAfter: (credentialId, ip) => throttle.retryAfter(key(credentialId, ip), ip),
      recordFailure: (credentialId, ip) => throttle.recordFailure(key(credentialId, ip), ip),
      recordSuccess: (credentialId, ip) => throttle.clear(key(credentialId, ip)),
    },
  };
}
