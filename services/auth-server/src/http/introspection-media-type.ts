/** RFC 9701 §4: the media type of a JWT introspection response, asked for in Accept. */
export const JWT_INTROSPECTION_TYPE = 'application/token-introspection+jwt';

const MENTIONS_JWT = /application\/token-introspection\+jwt/i;
/** Longest Accept header read; node caps all headers at 16 kB, this keeps the split small. */
const MAX_ACCEPT_LENGTH = 1024;

/**
 * Whether a resource server asks for a JWT introspection response (RFC 9701 §4: `Accept:
 * application/token-introspection+jwt`). Everything else, no Accept included, gets JSON as before. The
 * lean path asks this of every request, so the usual answer costs one undefined check or one regex
 * test; only a header that names the type is parsed, to honour `q=0` (RFC 9110 §12.5.1: not acceptable).
 */
export function wantsJwtIntrospection(accept: string | undefined): boolean {
  if (accept === undefined || !MENTIONS_JWT.test(accept)) return false;
  for (const range of accept.slice(0, MAX_ACCEPT_LENGTH).split(',')) {
    const [type = '', ...parameters] = range.split(';').map((part) => part.trim());
    if (type.toLowerCase() !== JWT_INTROSPECTION_TYPE) continue;
    const q = parameters.find((p) => /^q=/i.test(p));
    return q === undefined || Number(q.slice(2)) > 0;
  }
  return false;
}
