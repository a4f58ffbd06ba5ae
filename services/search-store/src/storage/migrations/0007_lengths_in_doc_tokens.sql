-- Up Migration
-- No field_lengths table (issue 6, ingest). It held a row per (document, field): 25,000 of the
-- ~60,000 rows a 5,000-document batch of ~1.3 kB documents wrote, and its COPY took 60–105 ms of the
-- batch's Postgres time; without it three alternating 100,000-document loads ran 8–16% faster. Every
-- row was also elsewhere: a text or keyword field's value leaves one token stream (doc_tokens) per
-- document, which now carries the field's length (tokens for text, distinct terms for keyword), and a
-- numeric, date or boolean field's length is its number of doc values. The exists query reads
-- doc_tokens and doc_values; delete and replace subtract what they read there before removing it.
ALTER TABLE doc_tokens ADD COLUMN length int;
UPDATE doc_tokens d SET length = l.length
FROM field_lengths l
WHERE l.index_id = d.index_id AND l.doc_key = d.doc_key AND l.field_id = d.field_id;
-- A stream without a length row cannot come from the writer; its length is its terms, gaps left out.
UPDATE doc_tokens SET length = cardinality(array_remove(term_ids, 0)) WHERE length IS NULL;
ALTER TABLE doc_tokens ALTER COLUMN length SET NOT NULL;
-- The primary key leads with the field, so that exists reads a field's documents as a range, as it did
-- field_lengths' (a second index cost the token-stream COPY ~25 ms a batch). Reads by document alone
-- (delete, replace) name the index's fields: field_id = ANY(ARRAY(SELECT … FROM fields)).
ALTER TABLE doc_tokens DROP CONSTRAINT doc_tokens_pkey;
ALTER TABLE doc_tokens ADD PRIMARY KEY (index_id, field_id, doc_key);
DROP TABLE field_lengths;

-- Down Migration
CREATE TABLE field_lengths (
  index_id bigint NOT NULL,
  field_id int NOT NULL,
  doc_key bigint NOT NULL,
  length int NOT NULL,
  PRIMARY KEY (index_id, field_id, doc_key)
);
CREATE INDEX field_lengths_doc ON field_lengths (index_id, doc_key);
INSERT INTO field_lengths (index_id, field_id, doc_key, length)
SELECT index_id, field_id, doc_key, length FROM doc_tokens
UNION ALL
SELECT index_id, field_id, doc_key, count(*) FROM doc_values WHERE num IS NOT NULL
GROUP BY index_id, field_id, doc_key;
ALTER TABLE doc_tokens DROP CONSTRAINT doc_tokens_pkey;
ALTER TABLE doc_tokens ADD PRIMARY KEY (index_id, doc_key, field_id);
ALTER TABLE doc_tokens DROP COLUMN length;
