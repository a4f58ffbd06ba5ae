import type { RecoveryCodesRepo, TotpRepo } from '../mfa/totp-repo';

export interface ResetMfaDeps {
  totp: TotpRepo;
  recoveryCodes: RecoveryCodesRepo;
}

export interface MfaResetResult {
  totpRemoved: boolean;
  recoveryCodesRemoved: number;
}

/**
 * An operator's answer to "I lost my phone": the user's second factors (TOTP and recovery codes) go, so the
 * next sign-in is by password alone until the user enrols again. The admin API and the CLI call this.
 */
export async function resetMfa(deps: ResetMfaDeps, userId: string): Promise<MfaResetResult> {
  const totpRemoved = await deps.totp.delete(userId);
  const recoveryCodesRemoved = await deps.recoveryCodes.deleteAll(userId);
  return { totpRemoved, recoveryCodesRemoved };
}
