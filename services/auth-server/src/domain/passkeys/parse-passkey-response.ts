import { z } from 'zod';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';

/**
 * The browser's answers to navigator.credentials.create/get as JSON (WebAuthn L3 §5.1 toJSON), parsed with
 * a bound on every field before any of it is decoded: a hostile body is refused by its size, never by
 * running out of memory in CBOR or ASN.1 decoding. Unknown fields are dropped.
 */

const b64url = (min: number, max: number) =>
  z
    .string()
    .min(min)
    .max(max)
    .regex(/^[A-Za-z0-9_-]*$/);

/** Credential ids are 16–1023 bytes (WebAuthn L3 §4 "Credential ID", §7.1 step 25): 22–1364 characters. */
export const CREDENTIAL_ID_CHARS = { min: 22, max: 1364 } as const;
const credentialId = b64url(CREDENTIAL_ID_CHARS.min, CREDENTIAL_ID_CHARS.max);

const transports = z
  .array(z.enum(['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb']))
  .max(8)
  .optional();

const extensions = z.object({ credProps: z.object({ rk: z.boolean().optional() }).optional() });

const common = {
  id: credentialId,
  rawId: credentialId,
  type: z.literal('public-key'),
  authenticatorAttachment: z.enum(['platform', 'cross-platform']).optional(),
  clientExtensionResults: extensions,
};

const registrationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url(1, 4096),
    attestationObject: b64url(1, 16_384),
    authenticatorData: b64url(1, 8192).optional(),
    transports,
    publicKeyAlgorithm: z.number().int().optional(),
    publicKey: b64url(1, 4096).optional(),
  }),
});

const authenticationSchema = z.object({
  ...common,
  response: z.object({
    clientDataJSON: b64url(1, 4096),
    authenticatorData: b64url(37, 8192),
    signature: b64url(1, 2048),
    // At most 64 bytes (WebAuthn L3 §5.4.3 user.id).
    userHandle: b64url(1, 86).optional(),
  }),
});

/** The longest credential JSON a form may carry. */
export const MAX_CREDENTIAL_JSON_CHARS = 24_576;

function parseJson(text: string | undefined): unknown {
  if (!text || text.length > MAX_CREDENTIAL_JSON_CHARS) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function parseRegistrationResponse(text: string | undefined): RegistrationResponseJSON | undefined {
  const parsed = registrationSchema.safeParse(parseJson(text));
  return parsed.success ? (parsed.data as RegistrationResponseJSON) : undefined;
}

export function parseAuthenticationResponse(
  text: string | undefined,
): AuthenticationResponseJSON | undefined {
  const parsed = authenticationSchema.safeParse(parseJson(text));
  return parsed.success ? (parsed.data as AuthenticationResponseJSON) : undefined;
}

/** A credential id from a form (rename, delete) as bytes, or undefined when it cannot be one. */
export function parseCredentialId(value: string | undefined): Buffer | undefined {
  const parsed = credentialId.safeParse(value);
  return parsed.success ? Buffer.from(parsed.data, 'base64url') : undefined;
}
