import { EsError, type EsCause } from '@acme/common';

/**
 * A shard failure of a scroll or PIT context, as ES answers it: search_phase_execution_exception
 * "all shards failed" with the shard's cause as root cause, and the cause's status.
 */
function contextFailure(cause: EsCause, status: number): EsError {
  return new EsError('search_phase_execution_exception', 'all shards failed', {
    metadata: {
      phase: 'query',
      grouped: true,
      failed_shards: [{ shard: -1, index: null, reason: cause }],
    },
    rootCause: [cause],
    causedBy: cause,
    status,
  });
}

/** ES SearchContextMissingException (404): expired, freed, or its holder ended. */
export function contextMissing(id: string): EsError {
  return contextFailure(
    { type: 'search_context_missing_exception', reason: `No search context found for id [${id}]` },
    404,
  );
}

/** ES TooManyScrollContextsException (429), past `search.max_open_scroll_context`. */
export function tooManyScrollContexts(limit: number): EsError {
  return contextFailure(
    {
      type: 'too_many_scroll_contexts_exception',
      reason: `Trying to create too many scroll contexts. Must be less than or equal to: [${limit}]. This limit can be set by changing the [search.max_open_scroll_context] setting.`,
    },
    429,
  );
}

/** ES ActionRequestValidationException: every failed check, numbered. */
export function validationFailed(messages: readonly string[]): EsError {
  return new EsError(
    'action_request_validation_exception',
    `Validation Failed: ${messages.map((m, i) => `${i + 1}: ${m};`).join('')}`,
  );
}

/** ES SearchRequest#validate: `slice` needs a scroll or a point in time. */
export function sliceWithoutContext(): EsError {
  return validationFailed(['[slice] can only be used with [scroll] or [point-in-time] requests']);
}
