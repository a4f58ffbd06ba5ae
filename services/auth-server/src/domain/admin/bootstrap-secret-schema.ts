import { z } from 'zod';

/**
 * BOOTSTRAP_SEARCH_STORE_SECRET: 32–512 printable ASCII characters, no spaces (it travels in HTTP
 * Basic, RFC 7617, form-encoded per RFC 6749 §2.3.1). A refine, not a regex, so a bad value is
 * reported by the rule it breaks and never echoed.
 */
export const bootstrapSecretSchema = z
  .string()
  .min(32)
  .max(512)
  .refine((value) => /^[\x21-\x7e]*$/.test(value), 'must be printable ASCII without spaces');
