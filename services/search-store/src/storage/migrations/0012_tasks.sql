-- Up Migration
-- Tasks (issue 20): `_delete_by_query` / `_update_by_query` (and `_reindex`) with
-- `wait_for_completion=false` answer `{task: "<node>:<id>"}`; any search-store instance answers
-- GET /_tasks/<id> from this table, as Elasticsearch answers from its `.tasks` index. A row is a task
-- while it runs (progress in `status`, `heartbeat_at` renewed by its instance) and, when the caller
-- asked for it, its result afterwards (`response` or `error`). `task_number` is the `<id>` part: one
-- sequence for every instance, so an id names one task whichever node part it carries.
-- `json`, not `jsonb`: the stored bodies keep Elasticsearch's key order.
CREATE TABLE tasks (
  task_number bigserial PRIMARY KEY,
  node_id text NOT NULL,
  -- The NODE_NAME of the instance that runs it: GET /_tasks names each node.
  node_name text NOT NULL,
  action text NOT NULL,
  description text NOT NULL,
  start_time_ms bigint NOT NULL,
  cancellable boolean NOT NULL,
  cancel_requested boolean NOT NULL DEFAULT false,
  -- A finished task's row stays only when its result is stored (wait_for_completion=false).
  store_result boolean NOT NULL,
  status json NOT NULL DEFAULT '{}',
  heartbeat_at timestamptz NOT NULL DEFAULT now(),
  completed boolean NOT NULL DEFAULT false,
  running_time_ns bigint,
  completed_at timestamptz,
  response json,
  error json
);
-- GET /_tasks lists the running ones; the abandonment sweep looks at their heartbeats.
CREATE INDEX tasks_running ON tasks (heartbeat_at) WHERE NOT completed;
CREATE INDEX tasks_completed_at ON tasks (completed_at) WHERE completed;
