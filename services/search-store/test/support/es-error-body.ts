/**
 * An Elasticsearch error response body with a single cause (ElasticsearchException#generateFailureXContent):
 * `{"error":{"root_cause":[{type,reason}],type,reason},"status":…}`.
 */
export function esErrorBody(type: string, reason: string, status = 400) {
  return { error: { root_cause: [{ type, reason }], type, reason }, status };
}
