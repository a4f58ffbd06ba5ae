-- Up Migration
-- ES "Close index API" (issue 20): a closed index keeps its data and metadata but refuses reads and
-- writes (index_closed_exception) until it is opened. The state lives on the catalog row so every
-- instance sees a close at once, and writers that lock the row FOR UPDATE see it before they write.
ALTER TABLE indices ADD COLUMN closed boolean NOT NULL DEFAULT false;
-- An alias's `is_hidden` (ES "Aliases"): null when never set, as ES shows it only when set.
ALTER TABLE aliases ADD COLUMN is_hidden boolean;

-- Down Migration
ALTER TABLE aliases DROP COLUMN is_hidden;
ALTER TABLE indices DROP COLUMN closed;
