import type { KeyEncryption } from '../crypto/key-encryption';
import type { AuthenticationMethod } from '../sessions/authentication-methods';
import { generateRecoveryCodes, normalizeRecoveryCode } from './recovery-codes';
import { generateTotpSecret, matchTotpStep } from './totp-code';
import type { RecoveryCodesRepo, TotpRepo } from './totp-repo';

export interface TotpServiceDeps {
  totp: TotpRepo;
  recoveryCodes: RecoveryCodesRepo;
  /** Seals the TOTP secret (HKDF info acme-auth/totp-secret-encryption). */
  sealer: KeyEncryption;
  /** Keyed hash of a normalized recovery code (HKDF info acme-auth/recovery-code-hash). */
  hashRecoveryCode(code: string): Buffer;
  clock: () => Date;
}

export type SecondFactorResult = { method: 'otp'; recoveryCode: boolean } | null;

export interface TotpStatus {
  enabled: boolean;
  /** The secret of an enrolment in progress (for the QR code and manual entry). */
  pendingSecret?: string;
  recoveryCodesLeft: number;
}

/**
 * TOTP (RFC 6238) as a second factor: enrolment (a secret generated here, sealed at rest, on only after a
 * valid code), recovery codes (shown once, keyed hashes, single use), verification (each time step accepted
 * once), removal.
 */
export function createTotpService(deps: TotpServiceDeps) {
  const { totp, recoveryCodes, sealer, clock } = deps;

  async function status(userId: string): Promise<TotpStatus> {
    const record = await totp.find(userId);
    if (!record) return { enabled: false, recoveryCodesLeft: 0 };
    if (record.confirmedAt)
      return { enabled: true, recoveryCodesLeft: await recoveryCodes.countUnused(userId) };
    return { enabled: false, pendingSecret: sealer.decrypt(record.secretCiphertext), recoveryCodesLeft: 0 };
  }

  /** Checks a current code of the enabled authenticator and uses its time step up. */
  async function acceptCode(userId: string, code: string): Promise<boolean> {
    const record = await totp.find(userId);
    if (!record?.confirmedAt) return false;
    const step = matchTotpStep(sealer.decrypt(record.secretCiphertext), code.trim(), clock());
    return step !== null && totp.acceptTimeStep(userId, step, { confirm: false });
  }

  return {
    status,
    /** A new secret for an enrolment (replacing an unfinished one); null when TOTP is already on. */
    async startEnrolment(userId: string): Promise<string | null> {
      const secret = generateTotpSecret();
      return (await totp.savePending(userId, sealer.encrypt(secret))) ? secret : null;
    },
    /**
     * Turns the pending authenticator on when `code` is valid for it; returns the new recovery codes
     * (shown once), or null when the code is wrong or nothing is pending.
     */
    async activate(userId: string, code: string): Promise<string[] | null> {
      const record = await totp.find(userId);
      if (!record || record.confirmedAt) return null;
      const step = matchTotpStep(sealer.decrypt(record.secretCiphertext), code.trim(), clock());
      if (step === null) return null;
      const codes = generateRecoveryCodes();
      // Codes first: if turning on loses a race, unused codes without a factor check nothing.
      await recoveryCodes.replace(
        userId,
        codes.map((c) => deps.hashRecoveryCode(normalizeRecoveryCode(c)!)),
      );
      return (await totp.acceptTimeStep(userId, step, { confirm: true })) ? codes : null;
    },
    acceptCode,
    /** A TOTP code or, failing that, an unused recovery code (used up now). */
    async verifySecondFactor(userId: string, input: string): Promise<SecondFactorResult> {
      if (/^\s*\d{6}\s*$/.test(input))
        return (await acceptCode(userId, input)) ? { method: 'otp', recoveryCode: false } : null;
      const code = normalizeRecoveryCode(input);
      if (!code || !(await status(userId)).enabled) return null;
      return (await recoveryCodes.use(userId, deps.hashRecoveryCode(code)))
        ? { method: 'otp', recoveryCode: true }
        : null;
    },
    /** The second factors the user can sign in with (RFC 8176 methods). */
    async secondFactors(userId: string): Promise<AuthenticationMethod[]> {
      const record = await totp.find(userId);
      return record?.confirmedAt ? ['otp'] : [];
    },
    /** Removes the authenticator and the recovery codes. */
    async disable(userId: string): Promise<void> {
      await totp.delete(userId);
      await recoveryCodes.deleteAll(userId);
    },
  };
}

export type TotpService = ReturnType<typeof createTotpService>;
