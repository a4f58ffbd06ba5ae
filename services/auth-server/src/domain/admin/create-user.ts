import { z } from 'zod';
import { OAuthError } from '@acme/common';
import type { AuthContext } from '../auth-context';
import type { User } from '../users/user';
import { hashPassword } from '../users/hash-password';

export const createUserSchema = z
  .object({
    username: z.string().min(1).max(200),
    password: z.string().min(8).max(1024),
    claims: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

/** A user with an argon2id password hash (hashPassword: the one parameter set) and profile claims. */
export async function createUser(ctx: AuthContext, input: unknown): Promise<User> {
  const parsed = createUserSchema.safeParse(input);
  if (!parsed.success)
    throw new OAuthError(
      'invalid_request',
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    );
  if (await ctx.repos.users.findByUsername(parsed.data.username))
    throw new OAuthError('conflict', 'username is taken');
  const passwordHash = await hashPassword(parsed.data.password);
  return ctx.repos.users.create({ username: parsed.data.username, passwordHash, claims: parsed.data.claims });
}

export const presentUser = (user: User) => ({
  user_id: user.userId,
  username: user.username,
  claims: user.claims,
});
