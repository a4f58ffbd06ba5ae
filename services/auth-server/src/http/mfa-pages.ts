import type { Redis } from 'ioredis';
import type { AuthConfig } from '../config';
import { createKeyEncryption } from '../domain/crypto/key-encryption';
import { deriveKey } from '../domain/crypto/secret-hasher';
import { createTotpService, type TotpService } from '../domain/mfa/totp-service';
import type { RecoveryCodesRepo, TotpRepo } from '../domain/mfa/totp-repo';
import type { AuthenticationMethod } from '../domain/sessions/authentication-methods';
import type { MfaChallengesRepo } from '../domain/sessions/mfa-challenge';
import { createMfaChallengeManager, type MfaChallengeManager } from './mfa-challenge-manager';
import { createSecondFactorThrottle, type SecondFactorThrottle } from './second-factor-throttle';
import { keyedHash } from './session-keys';

/** The MFA tables' repos, built in app.ts. */
export interface MfaRepos {
  totp: TotpRepo;
  recoveryCodes: RecoveryCodesRepo;
  challenges: MfaChallengesRepo;
}

/** What the sign-in, step-up and account pages share for multi-factor sign-in. */
export interface MfaPages {
  totp: TotpService;
  challenges: MfaChallengeManager;
  throttle: SecondFactorThrottle;
  /** The second factors the user has (RFC 8176 methods); a passkey adds its own. */
  secondFactors(userId: string): Promise<AuthenticationMethod[]>;
}

export function createMfaPages(options: {
  repos: MfaRepos;
  config: AuthConfig;
  redis?: Redis;
  throttleKeyPrefix?: string;
  clock: () => Date;
}): MfaPages {
  const { repos, config, clock } = options;
  const secret = config.TOKEN_SIGNING_SECRET;
  const recoveryKey = deriveKey(secret, 'recovery-code-hash');
  const totp = createTotpService({
    totp: repos.totp,
    recoveryCodes: repos.recoveryCodes,
    // HKDF info acme-auth/totp-secret-encryption: a key of its own (DESIGN.md, Tables).
    sealer: createKeyEncryption(secret, 'totp-secret-encryption'),
    hashRecoveryCode: (code) => keyedHash(recoveryKey, code),
    clock,
  });
  return {
    totp,
    challenges: createMfaChallengeManager({ repo: repos.challenges, secret, issuer: config.ISSUER, clock }),
    // The login's limits, counted apart (second-factor-throttle.ts).
    throttle: createSecondFactorThrottle({
      ...(options.redis ? { redis: options.redis } : {}),
      ...(options.throttleKeyPrefix ? { keyPrefix: `${options.throttleKeyPrefix}:mfa` } : {}),
      maxFailuresPerUser: config.LOGIN_MAX_FAILURES_PER_ACCOUNT,
      maxFailuresPerIp: config.LOGIN_MAX_FAILURES_PER_IP,
      windowSeconds: config.LOGIN_FAILURE_WINDOW_SECONDS,
    }),
    secondFactors: (userId) => totp.secondFactors(userId),
  };
}
