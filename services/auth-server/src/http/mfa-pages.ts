import type { Redis } from 'ioredis';
import type { AuthConfig } from '../config';
import { createKeyEncryption } from '../domain/crypto/key-encryption';
import { deriveKey } from '../domain/crypto/secret-hasher';
import { secondFactorChoices, type SecondFactorChoices } from '../domain/mfa/second-factor-choices';
import { createTotpService, type TotpService } from '../domain/mfa/totp-service';
import type { RecoveryCodesRepo, TotpRepo } from '../domain/mfa/totp-repo';
import type { Passkey, PasskeysRepo } from '../domain/passkeys/passkey';
import { passkeyMethod } from '../domain/passkeys/passkey-authentication';
import type { AuthenticationMethod } from '../domain/sessions/authentication-methods';
import type { MfaChallenge, MfaChallengesRepo } from '../domain/sessions/mfa-challenge';
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
  /**
   * The second factors the user has (RFC 8176 methods: `otp`, and `hwk`/`swk` for passkeys), whether or not
   * this issuer can check them: a user with any owes a second step after the password (a passkey the
   * issuer cannot check is never a reason to let the password alone through).
   */
  secondFactors(userId: string): Promise<AuthenticationMethod[]>;
  /** What can answer this challenge here (second-factor-choices.ts), for the page, its routes and step-up. */
  choices(
    challenge: Pick<MfaChallenge, 'userId' | 'amr' | 'wantedAcr'>,
  ): Promise<SecondFactorChoices<Passkey>>;
}

export function createMfaPages(options: {
  repos: MfaRepos;
  config: AuthConfig;
  redis?: Redis;
  throttleKeyPrefix?: string;
  clock: () => Date;
  /** The user's passkeys, a second factor too. */
  passkeys: Pick<PasskeysRepo, 'listByUser'>;
  /** false on an issuer whose host is an IP address: no WebAuthn there (passkey-page-context.ts). */
  passkeysUsable: boolean;
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
    async secondFactors(userId) {
      const passkeys = await options.passkeys.listByUser(userId);
      return [...new Set([...(await totp.secondFactors(userId)), ...passkeys.map(passkeyMethod)])];
    },
    async choices({ userId, amr, wantedAcr }) {
      return secondFactorChoices({
        amr,
        wantedAcr,
        totp: (await totp.secondFactors(userId)).length > 0,
        passkeys: await options.passkeys.listByUser(userId),
        passkeysUsable: options.passkeysUsable,
      });
    },
  };
}
