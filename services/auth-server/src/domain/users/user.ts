export interface User {
  userId: string;
  username: string;
  passwordHash: string;
  claims: Record<string, unknown>;
}

/** Implemented by storage/users.repo.ts. Lookups skip disabled users; usernames match case-insensitively. */
export interface UsersRepo {
  create(user: Omit<User, 'userId'>): Promise<User>;
  findById(userId: string): Promise<User | undefined>;
  findByUsername(username: string): Promise<User | undefined>;
  /** The account page's password change (change-password.ts); false when the user is gone or disabled. */
  updatePasswordHash(userId: string, passwordHash: string): Promise<boolean>;
}
