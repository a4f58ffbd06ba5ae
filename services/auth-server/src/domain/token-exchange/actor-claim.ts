import { OAuthError } from '@acme/common';
import type { ActClaim, TokenRecord } from '../tokens/token-record';

/** Actors in one chain, the current one included: each exchange may add one, so the chain is bounded. */
export const MAX_ACTORS = 5;

/**
 * RFC 8693 §4.1: `act` names the current actor (the actor token's user as `sub`, and the client it was
 * issued to); the subject token's own `act` nests inside it as the prior actors. Without an actor token
 * the subject's chain is kept as it is (the new token still represents the same delegation). The actor
 * token must have been issued to the client asking: a client may name itself as actor, never another
 * party whose token it happens to hold (§2.2.2: unacceptable by policy, invalid_request).
 */
export function actorClaim(
  subject: TokenRecord,
  actor: TokenRecord | undefined,
  clientId: string,
): ActClaim | undefined {
  if (!actor) return subject.act ?? undefined;
  if (actor.clientId !== clientId)
    throw new OAuthError('invalid_request', 'actor_token was issued to another client');
  const act: ActClaim = {
    ...(actor.userId ? { sub: actor.userId } : {}),
    client_id: actor.clientId,
    ...(subject.act ? { act: subject.act } : {}),
  };
  let depth = 0;
  for (let link: ActClaim | undefined = act; link; link = link.act) {
    depth += 1;
    if (depth > MAX_ACTORS)
      throw new OAuthError('invalid_request', `a delegation chain holds at most ${MAX_ACTORS} actors`);
  }
  return act;
}
