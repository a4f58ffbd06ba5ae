/** One bucket before formatting: its group id (for sub-aggregations), doc count and wire fields. */
export interface Bucket {
  bg: string;
  docCount: number;
  /** Wire fields that precede doc_count (key, key_as_string, from, to …). */
  head: Record<string, unknown>;
  /** Sub-aggregation results by the client's names, filled by attachSubs (null prototype: byName()). */
  subs: Record<string, unknown>;
}

/**
 * A dictionary keyed by the client's aggregation names: with no prototype, `__proto__` or `constructor`
 * is an ordinary key (on `{}`, assigning `__proto__` would replace the prototype and lose the result).
 */
export function byName(): Record<string, unknown> {
  return Object.create(null) as Record<string, unknown>;
}

/** Renders buckets as Elasticsearch lists them: head fields, doc_count, then sub-aggregations. */
export function renderBucket(bucket: Bucket): Record<string, unknown> {
  return { ...bucket.head, doc_count: bucket.docCount, ...bucket.subs };
}
