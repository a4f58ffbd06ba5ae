import type { Logger } from '@acme/common';

export type AuditEvent =
  | 'token_issued'
  | 'refresh_reuse'
  | 'refresh_race_lost'
  | 'refresh_replayed'
  | 'code_replay'
  | 'device_code_replay'
  | 'revocation'
  | 'client_auth_failure'
  | 'resource_server_auth_failure'
  | 'mfa_reset'
  | 'client_logo_uploaded'
  | 'client_logo_deleted';

/** Audit lines through winston: ids, never secrets, tokens or codes (the logger redacts those keys too). */
export function createAudit(logger: Logger) {
  return (event: AuditEvent, fields: Record<string, string | number | boolean | undefined | string[]>) => {
    logger.info(`audit ${event}`, { audit: event, ...fields });
  };
}
export type Audit = ReturnType<typeof createAudit>;
