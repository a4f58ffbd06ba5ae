import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export interface DevSecrets {
  TOKEN_SIGNING_SECRET: string;
  ADMIN_TOKEN: string;
}

/**
 * The services have no default secrets. For the local quick start we generate them once and keep
 * them (mode 0600) beside the data, so a restart keeps working with the same tokens and clients.
 */
export function loadOrCreateSecrets(path: string): DevSecrets {
  if (existsSync(path)) return JSON.parse(readFileSync(path, 'utf8')) as DevSecrets;
  const secrets: DevSecrets = {
    TOKEN_SIGNING_SECRET: randomBytes(32).toString('base64url'),
    ADMIN_TOKEN: randomBytes(32).toString('base64url'),
  };
  writeFileSync(path, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}
