-- Up Migration
-- Read replicas (issue 23, storage/replica-set.ts): instances with DATABASE_REPLICA_URLS commit this row
-- every REPLICA_HEARTBEAT_MS, so a replica's pg_last_xact_replay_timestamp() tells how far behind the
-- primary it is even while nothing else is written. One row: the beat is the same for every instance.
CREATE TABLE search_replica_heartbeat (
  id int PRIMARY KEY CHECK (id = 1),
  beat_at timestamptz NOT NULL
);
INSERT INTO search_replica_heartbeat (id, beat_at) VALUES (1, now());

-- Down Migration
DROP TABLE search_replica_heartbeat;
