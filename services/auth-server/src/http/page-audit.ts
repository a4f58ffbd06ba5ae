import type { Request } from 'express';
import type { Logger } from '@acme/common';

export type PageAuditEvent =
  | 'login.success'
  | 'login.failure'
  | 'login.password_ok'
  | 'login.throttled'
  | 'login.second_factor_missing'
  | 'logout'
  | 'logout.everywhere'
  | 'consent.granted'
  | 'consent.denied'
  | 'grant.revoked'
  | 'device.approved'
  | 'device.denied'
  | 'device.code_failure'
  | 'device.throttled'
  | 'mfa.success'
  | 'mfa.failure'
  | 'mfa.throttled'
  | 'mfa.recovery_code_used'
  | 'mfa.step_up'
  | 'totp.enrolled'
  | 'totp.disabled'
  | 'password.changed'
  | 'password.change_failure'
  | 'password.change_throttled'
  | 'session.ended'
  | 'passkey.registered'
  | 'passkey.registration_refused'
  | 'passkey.renamed'
  | 'passkey.deleted'
  | 'passkey.login.success'
  | 'passkey.login.failure'
  | 'passkey.login.throttled'
  | 'passkey.sign_count_regression';

/**
 * One audit line per security event. Fields are ids, names and the client IP (req.ip: the socket
 * address unless `trust proxy` is on, so a forged X-Forwarded-For cannot change it, RFC 9700 §4.13).
 * Never a password, cookie, code or token.
 */
export function auditPageEvent(
  logger: Logger,
  req: Request,
  event: PageAuditEvent,
  fields: Record<string, string | number | string[] | undefined>,
): void {
  logger.info('audit', { kind: 'audit', event, ip: clientIp(req), requestId: req.id, ...fields });
}

/** The client address used for audit and throttling keys: req.ip honours `trust proxy`, nothing else. */
export function clientIp(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
