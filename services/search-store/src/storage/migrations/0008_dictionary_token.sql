-- Up Migration
-- A token per index that every transaction changing its term dictionary replaces (issue 6): an
-- instance's cache of the dictionary (index/term-dictionary-cache.ts) is current only while the index
-- still holds the token of the last transaction that wrote through that cache.
ALTER TABLE indices ADD COLUMN dictionary_token uuid;

-- Down Migration
ALTER TABLE indices DROP COLUMN dictionary_token;
