import type { AddressInfo } from 'node:net';
import { createLogger, createPgPool } from '@acme/common';
import { createApp } from '../../src/app';
import { searchConfigSchema } from '../../src/config';
import { createScriptRunner } from '../../src/script/script-runner';
import { nodeIdOf } from '../../src/tasks/task-id';
import { fullAccessPrincipal } from '../support/full-access-principal';
import { createRecordingIndexWriter } from '../support/recording-index-writer';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8, failure } from '../support/http';

/** A second search-store instance on the first one's database, as a second process would be. */
async function startSecondInstance(first: RunningSearchStore, nodeName: string) {
  const config = searchConfigSchema.parse({ ...first.config, NODE_NAME: nodeName });
  const pool = createPgPool({ connectionString: config.DATABASE_URL, statementTimeoutMs: 30_000, max: 4 });
  const app = createApp({
    config,
    pool,
    logger: createLogger({ service: 'search-store', silent: true }),
    indexWriter: createRecordingIndexWriter(),
    scriptRunner: createScriptRunner(),
    authenticate: fullAccessPrincipal,
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async stop() {
      await new Promise((resolve) => server.close(resolve));
      await pool.end();
    },
  };
}

/**
 * The task management API over Postgres (ES "Task management API", tasks.get/10_basic.yml and the
 * reindex module's wait_for_completion=false tests): any instance answers for a task another started.
 */
describe('tasks', () => {
  let server: RunningSearchStore;
  let other: Awaited<ReturnType<typeof startSecondInstance>>;
  const es = () => client8(server.url);
  const nodeId = nodeIdOf('node-1');
  let n = 0;
  const fresh = () => `tasks-${++n}`;

  async function seed(index: string, count: number): Promise<void> {
    await es().bulk({
      refresh: true,
      operations: Array.from({ length: count }, (_, i) => [
        { index: { _index: index, _id: String(i) } },
        { n: i },
      ]).flat(),
    });
  }

  beforeAll(async () => {
    server = await startSearchStore();
    other = await startSecondInstance(server, 'node-2');
  });
  afterAll(async () => {
    await other.stop();
    await server.stop();
  });

  it('answers {task} for wait_for_completion=false; another instance reports the stored result', async () => {
    const index = fresh();
    await seed(index, 3);
    const started = await call(server.url, 'POST', `/${index}/_delete_by_query?wait_for_completion=false`, {
      query: { match_all: {} },
    });
    expect(started.status).toBe(200);
    expect(started.json).toEqual({ task: expect.stringMatching(new RegExp(`^${nodeId}:\\d+$`)) });
    const taskId = (started.json as { task: string }).task;
    const got = await client8(other.url).tasks.get({ task_id: taskId, wait_for_completion: true });
    expect(got).toEqual({
      completed: true,
      task: {
        node: nodeId,
        id: Number(taskId.split(':')[1]),
        type: 'transport',
        action: 'indices:data/write/delete/byquery',
        status: expect.objectContaining({ total: 3, deleted: 3, updated: 0, created: 0, batches: 1 }),
        description: `delete-by-query [${index}]`,
        start_time_in_millis: expect.any(Number),
        running_time_in_nanos: expect.any(Number),
        cancellable: true,
        cancelled: false,
        headers: {},
      },
      response: {
        took: expect.any(Number),
        timed_out: false,
        total: 3,
        updated: 0,
        created: 0,
        deleted: 3,
        batches: 1,
        version_conflicts: 0,
        noops: 0,
        retries: { bulk: 0, search: 0 },
        throttled_millis: 0,
        requests_per_second: -1,
        throttled_until_millis: 0,
        failures: [],
      },
    });
    expect((await es().count({ index })).count).toBe(0);
    // Stored: asked again later, the same answer.
    expect((await es().tasks.get({ task_id: taskId })).completed).toBe(true);
  });

  it('runs _reindex with wait_for_completion=false as a stored task', async () => {
    const index = fresh();
    await seed(index, 2);
    const started = await es().reindex({
      source: { index },
      dest: { index: `${index}-copy` },
      wait_for_completion: false,
    });
    expect(started).toEqual({ task: expect.stringMatching(/^.+:\d+$/) });
    const got = await client8(other.url).tasks.get({
      task_id: started.task as string,
      wait_for_completion: true,
    });
    expect(got).toMatchObject({
      completed: true,
      task: {
        action: 'indices:data/write/reindex',
        description: `reindex from [${index}] to [${index}-copy]`,
        cancellable: false,
        status: { total: 2, created: 2 },
      },
      response: { total: 2, created: 2, updated: 0, failures: [] },
    });
    expect((await es().count({ index: `${index}-copy` })).count).toBe(2);
  });

  it('stores the error of a task that failed (a missing index)', async () => {
    const started = await es().updateByQuery({ index: 'no-such-index', wait_for_completion: false });
    const got = await es().tasks.get({ task_id: started.task as string, wait_for_completion: true });
    expect(got.completed).toBe(true);
    expect(got.error).toMatchObject({
      type: 'index_not_found_exception',
      reason: 'no such index [no-such-index]',
    });
    expect(got.response).toBeUndefined();
  });

  it('does not keep a task that was waited for', async () => {
    const index = fresh();
    await seed(index, 1);
    await es().deleteByQuery({ index, query: { match_all: {} } });
    const { rows } = await server.pool.query(
      'SELECT count(*)::int AS c FROM tasks WHERE description LIKE $1',
      [`%[${index}]%`],
    );
    expect(rows[0]).toEqual({ c: 0 });
  });

  it('lists a running by-query on every instance, cancels it between batches from another instance', async () => {
    const index = fresh();
    await seed(index, 6);
    // One document a batch, one batch a second: the task runs for several seconds.
    const started = await es().deleteByQuery({
      index,
      query: { match_all: {} },
      scroll_size: 1,
      requests_per_second: 1,
      wait_for_completion: false,
    });
    const taskId = started.task as string;
    const listTasks = async () => {
      const listed = await client8(other.url).tasks.list({ actions: '*byquery', detailed: true });
      const tasks = (listed.nodes?.[nodeId]?.tasks ?? {}) as unknown as Record<
        string,
        Record<string, unknown>
      >;
      return { listed, tasks };
    };
    let { listed, tasks } = await listTasks();
    // Until its scroll is open and its first batch written.
    for (let i = 0; i < 100 && (tasks[taskId]?.status as { batches?: number })?.batches !== 1; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ({ listed, tasks } = await listTasks());
    }
    expect(listed.nodes?.[nodeId]).toMatchObject({ name: 'node-1' });
    expect(tasks[taskId]).toMatchObject({
      node: nodeId,
      action: 'indices:data/write/delete/byquery',
      description: `delete-by-query [${index}]`,
      status: expect.objectContaining({ total: 6, batches: 1, deleted: 1 }),
      cancellable: true,
      cancelled: false,
    });
    const plain = await es().tasks.list({ actions: 'indices:data/write/update/*' });
    expect(plain.nodes ?? {}).toEqual({});
    const brief = (await call(server.url, 'GET', '/_tasks?group_by=none')).json as {
      tasks: Record<string, unknown>[];
    };
    const mine = brief.tasks.find((t) => `${String(t.node)}:${String(t.id)}` === taskId);
    expect(mine).toBeDefined();
    expect(mine).not.toHaveProperty('description');
    expect(mine).not.toHaveProperty('status');

    const cancelled = await client8(other.url).tasks.cancel({ task_id: taskId });
    expect(
      (cancelled.nodes?.[nodeId]?.tasks as unknown as Record<string, Record<string, unknown>>)[taskId],
    ).toMatchObject({
      cancelled: true,
    });
    const done = await es().tasks.get({ task_id: taskId, wait_for_completion: true, timeout: '20s' });
    expect(done.completed).toBe(true);
    const response = done.response as Record<string, number | string>;
    expect(response.canceled).toBe('by user request');
    expect(response.deleted).toBeGreaterThanOrEqual(1);
    expect(response.deleted).toBeLessThan(6);
    expect(response.throttled_millis).toBeGreaterThan(0);
    expect((await es().count({ index })).count).toBe(6 - Number(response.deleted));
    // No longer running: cancelling again is a node failure, as Elasticsearch answers.
    const again = await call(server.url, 'POST', `/_tasks/${taskId}/_cancel`);
    expect(again.status).toBe(200);
    expect(again.json).toEqual({
      node_failures: [
        {
          type: 'failed_node_exception',
          reason: `Failed node [${nodeId}]`,
          node_id: nodeId,
          caused_by: { type: 'resource_not_found_exception', reason: `task [${taskId}] is not found` },
        },
      ],
      nodes: {},
    });
  }, 30_000);

  it("answers ES's errors for unknown and malformed task ids", async () => {
    const foreign = await failure(es().tasks.get({ task_id: 'foo:1' }));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({
      error: {
        type: 'resource_not_found_exception',
        reason:
          "task [foo:1] belongs to the node [foo] which isn't part of the cluster and there is no record of the task",
      },
    });
    const own = await failure(es().tasks.get({ task_id: `${nodeId}:987654321` }));
    expect(own.status).toBe(404);
    expect(own.body).toMatchObject({
      error: { reason: `task [${nodeId}:987654321] isn't running and hasn't stored its results` },
    });
    for (const bad of ['foo', 'foo:bar', 'a:1:2']) {
      const response = await call(server.url, 'GET', `/_tasks/${bad}`);
      expect([bad, response.status, response.json]).toMatchObject([
        bad,
        400,
        { error: { type: 'illegal_argument_exception', reason: `malformed task id ${bad}` } },
      ]);
    }
    const badParam = await call(server.url, 'GET', `/_tasks/${nodeId}:1?colour=red`);
    expect(badParam.status).toBe(400);
    const badGroup = await call(server.url, 'GET', '/_tasks?group_by=colour');
    expect(badGroup.status).toBe(400);
  });

  it('finishes as failed a task whose instance stopped renewing it', async () => {
    const { rows } = await server.pool.query<{ task_number: string }>(
      `INSERT INTO tasks (node_id, node_name, action, description, start_time_ms, cancellable, store_result, heartbeat_at)
       VALUES ('gone-node', 'gone', 'indices:data/write/update/byquery', 'update-by-query [x]', $1, true, true,
               now() - interval '5 minutes')
       RETURNING task_number`,
      [Date.now() - 400_000],
    );
    const taskId = `gone-node:${rows[0]!.task_number}`;
    const got = await es().tasks.get({ task_id: taskId });
    expect(got.completed).toBe(true);
    expect(got.error).toMatchObject({ type: 'exception', reason: expect.stringContaining('was abandoned') });
    const listed = await es().tasks.list({ group_by: 'none' });
    expect((listed.tasks as unknown as Record<string, unknown>[]).map((t) => t.node)).not.toContain(
      'gone-node',
    );
  });
});
