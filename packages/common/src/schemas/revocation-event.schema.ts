import { z } from 'zod';

/** auth-server's `event: revocation` data on GET /revocations/stream (issue 7). */
export const revocationEventSchema = z.object({
  jti: z.array(z.string()),
  sub: z.string().optional(),
  client_id: z.string().optional(),
  reason: z.string().optional(),
});
export type RevocationEventData = z.infer<typeof revocationEventSchema>;
