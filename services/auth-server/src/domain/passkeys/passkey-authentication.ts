import {
  authenticationOf,
  type Authentication,
  type AuthenticationMethod,
} from '../sessions/authentication-methods';

/**
 * How a passkey sign-in is recorded (RFC 8176 through authenticationOf, the one rule for amr and acr):
 * `hwk` (proof of possession of a hardware-secured key) for a device-bound passkey, `swk` (a
 * software-secured key) for a synced one (BE flag: a sync service copies its private key between devices);
 * `user` (a user presence test: the UP flag, always required); and `mfa` when the authenticator verified
 * the user (UV flag: the device's PIN or biometric with possession of the key, NIST SP 800-63B §5.1.9 "multi-
 * factor cryptographic authenticator"). Which of PIN or biometric it was, WebAuthn does not say, so
 * neither `pin` nor `fpt` is claimed. acr follows: phrh for a device-bound key, phr for a synced one.
 */
export function passkeyAuthentication(assertion: {
  userVerified: boolean;
  backupEligible: boolean;
}): Authentication {
  const methods: AuthenticationMethod[] = [passkeyMethod(assertion), 'user'];
  if (assertion.userVerified) methods.push('mfa');
  return authenticationOf(methods);
}

/** The RFC 8176 method a passkey proves: `swk` when synced (BE flag), else `hwk` (bound to its device). */
export function passkeyMethod(passkey: { backupEligible: boolean }): 'hwk' | 'swk' {
  return passkey.backupEligible ? 'swk' : 'hwk';
}
