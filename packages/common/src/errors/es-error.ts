/**
 * Elasticsearch's error envelope: `{error:{root_cause:[…], type, reason, …extra, caused_by?}, status}`.
 * ES_ERROR_STATUS is the status Elasticsearch 8 answers for each exception type; a type without a
 * status does not compile. A few types carry more than one status in Elasticsearch (security_exception
 * is 401 or 403; status_exception takes whatever its thrower chose), so a caller may override it.
 */
export const ES_ERROR_STATUS = {
  action_request_validation_exception: 400,
  // AggregationExecutionException.InvalidPath (a bad buckets_path): 400 since Elasticsearch 8.8.
  aggregation_execution_exception: 400,
  aliases_not_found_exception: 404,
  circuit_breaking_exception: 429,
  cluster_block_exception: 403,
  content_too_long_exception: 413,
  document_missing_exception: 404,
  document_parsing_exception: 400,
  illegal_argument_exception: 400,
  illegal_state_exception: 500,
  // IndexClosedException: a read or write on a closed index.
  index_closed_exception: 400,
  index_not_found_exception: 404,
  // IndexTemplateMissingException: DELETE of an index template that does not exist.
  index_template_missing_exception: 404,
  invalid_alias_name_exception: 400,
  invalid_index_name_exception: 400,
  invalid_index_template_exception: 400,
  mapper_parsing_exception: 400,
  media_type_header_exception: 400,
  no_shard_available_action_exception: 503,
  number_format_exception: 400,
  // ElasticsearchParseException (e.g. an unknown key in an _mget body).
  parse_exception: 400,
  parsing_exception: 400,
  resource_already_exists_exception: 400,
  resource_not_found_exception: 404,
  script_exception: 400,
  search_phase_execution_exception: 400,
  // Elasticsearch 8's SearchTimeoutException: 429, so that clients back off instead of retrying at once.
  search_timeout_exception: 429,
  security_exception: 401,
  status_exception: 500,
  strict_dynamic_mapping_exception: 400,
  // TaskCancelledException: 400 in Elasticsearch 8 (a client asked for the cancellation).
  task_cancelled_exception: 400,
  too_many_buckets_exception: 400,
  version_conflict_engine_exception: 409,
  x_content_e_o_f_exception: 400,
  x_content_parse_exception: 400,
  exception: 500,
} as const satisfies Record<string, number>;

export type EsErrorType = keyof typeof ES_ERROR_STATUS;

/** One cause in the chain: what appears in `root_cause[]` and `caused_by`. */
export interface EsCause {
  type: string;
  reason: string | null;
  caused_by?: EsCause;
  [extra: string]: unknown;
}

export interface EsErrorBody {
  error: EsCause & { root_cause: EsCause[] };
  status: number;
}

export interface EsErrorOptions {
  /** Extra keys Elasticsearch puts beside type/reason (index, index_uuid, resource.id, line, col, …). */
  metadata?: Record<string, unknown>;
  causedBy?: EsCause;
  /** Overrides root_cause (search_phase_execution_exception lists the shard's cause there). */
  rootCause?: EsCause[];
  status?: number;
  /** Response headers; an array sends one header line per value (Elasticsearch's several WWW-Authenticate). */
  headers?: Record<string, string | readonly string[]>;
}

/** An immutable Elasticsearch error value; `with` copies it with more detail. */
export class EsError extends Error {
  readonly status: number;
  readonly metadata: Readonly<Record<string, unknown>>;
  readonly causedBy?: EsCause;
  readonly rootCause?: readonly EsCause[];
  readonly headers: Readonly<Record<string, string | readonly string[]>>;

  constructor(
    readonly type: EsErrorType,
    readonly reason: string,
    options: EsErrorOptions = {},
  ) {
    super(reason);
    this.name = 'EsError';
    this.status = options.status ?? ES_ERROR_STATUS[type];
    this.metadata = Object.freeze({ ...(options.metadata ?? {}) });
    if (options.causedBy) this.causedBy = options.causedBy;
    if (options.rootCause) this.rootCause = Object.freeze([...options.rootCause]);
    this.headers = Object.freeze({ ...(options.headers ?? {}) });
    Object.freeze(this);
  }

  with(change: EsErrorOptions & { reason?: string }): EsError {
    return new EsError(this.type, change.reason ?? this.reason, {
      metadata: { ...this.metadata, ...(change.metadata ?? {}) },
      causedBy: change.causedBy ?? this.causedBy,
      rootCause: change.rootCause ?? (this.rootCause ? [...this.rootCause] : undefined),
      status: change.status ?? this.status,
      headers: { ...this.headers, ...(change.headers ?? {}) },
    });
  }

  /** The cause object as it appears inside bulk items and `caused_by` (no root_cause). */
  toCause(): EsCause {
    const cause: EsCause = { type: this.type, reason: this.reason, ...this.metadata };
    if (this.causedBy) cause.caused_by = this.causedBy;
    return cause;
  }

  toBody(): EsErrorBody {
    const own = { type: this.type, reason: this.reason, ...this.metadata };
    const rootCause = this.rootCause ? [...this.rootCause] : [innermost(this.toCause()) ?? own];
    const error: EsErrorBody['error'] = { root_cause: rootCause, ...own };
    if (this.causedBy) error.caused_by = this.causedBy;
    return { error, status: this.status };
  }
}

/**
 * Elasticsearch lists the innermost *Elasticsearch* exception as root cause; for our errors the
 * top-level cause is that exception, and caused_by holds the lower-level detail (number_format…).
 */
function innermost(cause: EsCause): EsCause | undefined {
  const { caused_by: _ignored, ...withoutCause } = cause;
  return withoutCause;
}

export function isEsError(value: unknown): value is EsError {
  return value instanceof EsError;
}
