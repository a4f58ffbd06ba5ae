import type { Queryable } from '../storage/queryable';

/**
 * The term dictionary as queries read it (Lucene's TermsEnum): a field's terms with their ids and
 * statistics. The `terms` relation is a view over the dictionary and each term's last posting block,
 * which carries its totals (migration 0010); callers get rows and fragments from here, never the name.
 */
export interface TermRow {
  term: string;
  term_id: string;
  doc_freq: number;
}

/** Of `terms`, those the field holds, with their ids and document frequencies. */
export async function findTerms(
  db: Queryable,
  indexId: string,
  fieldId: number,
  terms: string[],
): Promise<TermRow[]> {
  const { rows } = await db.query<TermRow>(
    'SELECT term, term_id, doc_freq FROM terms WHERE index_id = $1 AND field_id = $2 AND term = ANY($3::text[])',
    [indexId, fieldId, terms],
  );
  return rows;
}

/**
 * The first `limit` terms of the field matching a LIKE `pattern` (a prefix, escaped by the caller),
 * in byte order: the expansions of match_phrase_prefix.
 */
export async function findTermsLike(
  db: Queryable,
  indexId: string,
  fieldId: number,
  pattern: string,
  limit: number,
): Promise<TermRow[]> {
  const { rows } = await db.query<TermRow>(
    `SELECT term, term_id, doc_freq FROM terms WHERE index_id = $1 AND field_id = $2 AND term LIKE $3
     ORDER BY term LIMIT $4`,
    [indexId, fieldId, pattern, limit],
  );
  return rows;
}

/**
 * `JOIN` the dictionary entry of `term` in field `fieldId` as `<alias>`, yielding `<alias>.term`,
 * `.term_id`, `.doc_freq` and `.version` (the last block's `xmin/base_doc_key`, which the postings
 * cache compares: search/fast-match/postings-cache.ts).
 */
export function joinTerm(alias: string, indexId: string, fieldId: string, term: string): string {
  return `JOIN terms ${alias} ON ${alias}.index_id = ${indexId} AND ${alias}.field_id = ${fieldId} AND ${alias}.term = ${term}`;
}

/**
 * One page of the field's term texts in byte order (the dictionary's primary key order), after
 * `after` and starting with `prefix` (a btree range under the "C" collation), optionally only those
 * of `minLength`..`maxLength` code points: how fuzzy and regexp queries walk the dictionary (Lucene's
 * TermsEnum.intersect), a page at a time so each statement stays short. Reads the dictionary table
 * itself, not the `terms` view, whose per-term join of the last block a walk does not need.
 */
export async function scanTermTexts(
  db: Queryable,
  indexId: string,
  fieldId: number,
  page: TermPage,
): Promise<string[]> {
  return scan(db, 'd.field_id = $2::int', indexId, fieldId, page);
}

/** `scanTermTexts` with the field named by its path (the fast path knows paths, not field ids). */
export async function scanTermTextsOfPath(
  db: Queryable,
  indexId: string,
  path: string,
  page: TermPage,
): Promise<string[]> {
  return scan(
    db,
    'd.field_id = (SELECT field_id FROM fields WHERE index_id = $1 AND path = $2::text)',
    indexId,
    path,
    page,
  );
}

interface TermPage {
  prefix: string;
  after: string | null;
  minLength: number;
  maxLength: number;
  limit: number;
}

async function scan(
  db: Queryable,
  fieldCondition: string,
  indexId: string,
  field: number | string,
  page: TermPage,
): Promise<string[]> {
  const { rows } = await db.query<{ term: string }>(
    `SELECT d.term FROM term_dictionary d
     WHERE d.index_id = $1 AND ${fieldCondition} AND d.term LIKE $3 AND ($4::text IS NULL OR d.term > $4)
       AND char_length(d.term) BETWEEN $5 AND $6
     ORDER BY d.term LIMIT $7`,
    [
      indexId,
      field,
      `${page.prefix.replace(/[\\%_]/g, '\\$&')}%`,
      page.after,
      page.minLength,
      page.maxLength,
      page.limit,
    ],
  );
  return rows.map((r) => r.term);
}
