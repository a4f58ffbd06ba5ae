import argon2 from 'argon2';

/**
 * argon2id with OWASP's minimum profile (Password Storage Cheat Sheet: m=19 MiB, t=2, p=1).
 * The PHC string stores its own parameters, so raising them later keeps old hashes verifiable.
 */
export const PASSWORD_HASH_OPTIONS = {
  type: argon2.argon2id,
  memoryCost: 19456,
  timeCost: 2,
  parallelism: 1,
} as const;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, PASSWORD_HASH_OPTIONS);
}
