import type { RecoveryCodesRepo, TotpRepo } from '../mfa/totp-repo';
import type { PasskeysRepo } from '../passkeys/passkey';

export interface ResetMfaDeps {
  totp: TotpRepo;
  recoveryCodes: RecoveryCodesRepo;
  passkeys: Pick<PasskeysRepo, 'deleteAllOfUser'>;
}

export interface MfaResetResult {
  totpRemoved: boolean;
  recoveryCodesRemoved: number;
  passkeysRemoved: number;
}

/**
 * An operator's answer to "I lost my phone": the user's second factors (TOTP and recovery codes) go, and
 * their passkeys (the lost phone may hold one, and it signs in alone), so the next sign-in is by password
 * alone until the user enrols again. The admin API and the CLI call this.
 */
export async function resetMfa(deps: ResetMfaDeps, userId: string): Promise<MfaResetResult> {
  const totpRemoved = await deps.totp.delete(userId);
  const recoveryCodesRemoved = await deps.recoveryCodes.deleteAll(userId);
  const passkeysRemoved = await deps.passkeys.deleteAllOfUser(userId);
  return { totpRemoved, recoveryCodesRemoved, passkeysRemoved };
}
