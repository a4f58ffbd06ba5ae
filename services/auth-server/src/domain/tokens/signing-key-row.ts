export interface SigningKeyRow {
  kid: string;
  alg: 'RS256' | 'ES256';
  privateKeySealed: string;
  publicJwk: Record<string, unknown>;
  createdAt: Date;
  retiredAt: Date | null;
  expiresAt: Date | null;
}

/** Implemented by storage/signing-keys.repo.ts. Private keys are stored sealed (crypto/key-encryption.ts). */
export interface SigningKeysRepo {
  /** Keys that still verify: current ones and retired ones whose tokens may not have expired yet. */
  listUsable(): Promise<SigningKeyRow[]>;
  save(key: Omit<SigningKeyRow, 'createdAt' | 'retiredAt' | 'expiresAt'>): Promise<void>;
  /** Retires the current keys of an algorithm; they stay published until `keepUntil`. */
  retire(alg: SigningKeyRow['alg'], keepUntil: Date): Promise<void>;
}
