import { z } from 'zod';
import { ES_ERROR_STATUS } from '../errors/es-error';
import { OAUTH_ERROR_STATUS } from '../errors/oauth-error';

/** RFC 6749 §5.2 error response. */
export const oauthErrorEnvelopeSchema = z.object({
  error: z.enum(Object.keys(OAUTH_ERROR_STATUS) as [keyof typeof OAUTH_ERROR_STATUS]),
  error_description: z.string().optional(),
  error_uri: z.string().optional(),
});

const esCauseSchema: z.ZodType<{ type: string; reason: string | null; caused_by?: unknown }> = z.lazy(() =>
  z
    .object({
      type: z.string(),
      reason: z.string().nullable(),
      caused_by: esCauseSchema.optional(),
    })
    .catchall(z.unknown()),
);

/** Elasticsearch's error envelope: `{error:{root_cause[], type, reason, …}, status}`. */
export const esErrorEnvelopeSchema = z.object({
  error: z
    .object({
      root_cause: z.array(esCauseSchema),
      type: z.enum(Object.keys(ES_ERROR_STATUS) as [keyof typeof ES_ERROR_STATUS]),
      reason: z.string().nullable(),
    })
    .catchall(z.unknown()),
  status: z.number().int(),
});
