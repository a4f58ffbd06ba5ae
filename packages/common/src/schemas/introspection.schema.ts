import { z } from 'zod';

/** RFC 7662 §2.1: the request. `token_type_hint` is a hint only; a wrong one must still resolve. */
export const introspectionRequestSchema = z.object({
  token: z.string().min(1),
  token_type_hint: z.string().optional(),
});
export type IntrospectionRequest = z.infer<typeof introspectionRequestSchema>;

/**
 * RFC 7662 §2.2: the response. An inactive token is exactly `{active:false}`; an active one carries
 * the claims below (aud may be one string or several).
 */
export const activeIntrospectionSchema = z.object({
  active: z.literal(true),
  scope: z.string().optional(),
  client_id: z.string().optional(),
  username: z.string().optional(),
  token_type: z.string().optional(),
  exp: z.number().int().optional(),
  iat: z.number().int().optional(),
  nbf: z.number().int().optional(),
  sub: z.string().optional(),
  aud: z.union([z.string(), z.array(z.string())]).optional(),
  iss: z.string().optional(),
  jti: z.string().optional(),
  /** RFC 8693 §4.1: who acts for `sub` (a token exchange with an actor); nested for prior actors. */
  act: z.record(z.string(), z.unknown()).optional(),
  /** RFC 9449 §6.2: the DPoP key a bound token is confirmed by (RFC 7800 `cnf`). */
  cnf: z.object({ jkt: z.string().optional() }).passthrough().optional(),
});
export const inactiveIntrospectionSchema = z.object({ active: z.literal(false) });
export const introspectionResponseSchema = z.union([activeIntrospectionSchema, inactiveIntrospectionSchema]);
export type ActiveIntrospection = z.infer<typeof activeIntrospectionSchema>;
export type IntrospectionResponse = z.infer<typeof introspectionResponseSchema>;
