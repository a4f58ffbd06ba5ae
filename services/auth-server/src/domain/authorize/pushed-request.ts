/** RFC 9126 §2.2: the `request_uri` of a pushed request is this URN followed by its random part. */
export const REQUEST_URI_PREFIX = 'urn:ietf:params:oauth:request_uri:';

/**
 * How long a pushed request stays usable once /authorize has first loaded it: the time a person may take
 * to sign in and consent (the login and consent pages carry `client_id` and `request_uri` only). Keycloak's
 * login timeout is 30 min too; until its first use the short PAR_TTL_SECONDS applies.
 */
export const PUSHED_REQUEST_INTERACTION_SECONDS = 1800;

/** The authorization parameters of a pushed request, as they were validated at POST /par. */
export type PushedParams = Record<string, string | string[]>;

/** Implemented by storage/pushed-authorization-requests.repo.ts (migration 0009). */
export interface PushedRequestsRepo {
  save(request: {
    requestHash: Buffer;
    clientId: string;
    params: PushedParams;
    ttlSeconds: number;
  }): Promise<void>;
  /**
   * The parameters of an unexpired, unconsumed request of this client; its first use extends its life to
   * PUSHED_REQUEST_INTERACTION_SECONDS. undefined for an unknown, expired, used or other client's request.
   */
  load(requestHash: Buffer, clientId: string): Promise<PushedParams | undefined>;
  /** Uses the request up (single use, RFC 9126 §4); false when it was already used or has expired. */
  consume(requestHash: Buffer): Promise<boolean>;
  deleteExpired(before: Date): Promise<number>;
}
