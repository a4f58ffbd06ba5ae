import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

// ES "Cluster health API": one node; every index one active primary, replicas unassigned (yellow).
describe('GET /_cluster/health', () => {
  const server = useSearchStore({ CLUSTER_NAME: 'health-cluster' });

  it('answers green with every ES field for a store without indices', async () => {
    const response = await call(server.url, 'GET', '/_cluster/health');
    expect(response.status).toBe(200);
    expect(response.json).toEqual({
      cluster_name: 'health-cluster',
      status: 'green',
      timed_out: false,
      number_of_nodes: 1,
      number_of_data_nodes: 1,
      active_primary_shards: 0,
      active_shards: 0,
      relocating_shards: 0,
      initializing_shards: 0,
      unassigned_shards: 0,
      unassigned_primary_shards: 0,
      delayed_unassigned_shards: 0,
      number_of_pending_tasks: 0,
      number_of_in_flight_fetch: 0,
      task_max_waiting_in_queue_millis: 0,
      active_shards_percent_as_number: 100,
    });
    // A Java double, as ES prints it.
    expect(response.text).toContain('"active_shards_percent_as_number":100.0}');
  });

  describe('with indices', () => {
    beforeAll(async () => {
      const es = client8(server.url);
      await es.indices.create({ index: 'index-1', settings: { number_of_replicas: 0 } });
      await es.indices.create({ index: 'index-2', settings: { number_of_replicas: 2 } });
      await es.indices.putAlias({ index: 'index-1', name: 'alias-1' });
    });

    it('is yellow while replicas are unassigned, and counts one primary per index', async () => {
      const response = await call(server.url, 'GET', '/_cluster/health?wait_for_status=yellow&timeout=1s');
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({
        status: 'yellow',
        timed_out: false,
        active_primary_shards: 2,
        active_shards: 2,
        unassigned_shards: 2,
        active_shards_percent_as_number: 50,
      });
      expect(response.text).toContain('"active_shards_percent_as_number":50.0');
    });

    it('narrows to the indices an expression names (names, aliases, wildcards)', async () => {
      const one = await call(server.url, 'GET', '/_cluster/health/index-1?wait_for_status=green');
      expect(one.status).toBe(200);
      expect(one.json).toMatchObject({ status: 'green', active_shards: 1, unassigned_shards: 0 });
      const alias = await call(server.url, 'GET', '/_cluster/health/alias-1');
      expect(alias.json).toMatchObject({ status: 'green', active_shards: 1 });
      const both = await call(server.url, 'GET', '/_cluster/health/index-*');
      expect(both.json).toMatchObject({ status: 'yellow', active_shards: 2, unassigned_shards: 2 });
    });

    it('shows the indices map at level=indices, and each shard at level=shards', async () => {
      const indices = await call(server.url, 'GET', '/_cluster/health/index-2?level=indices');
      expect((indices.json as { indices: unknown }).indices).toEqual({
        'index-2': {
          status: 'yellow',
          number_of_shards: 1,
          number_of_replicas: 2,
          active_primary_shards: 1,
          active_shards: 1,
          relocating_shards: 0,
          initializing_shards: 0,
          unassigned_shards: 2,
          unassigned_primary_shards: 0,
        },
      });
      const shards = await call(server.url, 'GET', '/_cluster/health?level=shards');
      const body = shards.json as { indices: Record<string, { shards: Record<string, unknown> }> };
      expect(Object.keys(body.indices)).toEqual(['index-1', 'index-2']);
      expect(body.indices['index-1']?.shards).toEqual({
        '0': {
          status: 'green',
          primary_active: true,
          active_shards: 1,
          relocating_shards: 0,
          initializing_shards: 0,
          unassigned_shards: 0,
          unassigned_primary_shards: 0,
        },
      });
      const cluster = await call(server.url, 'GET', '/_cluster/health?level=cluster');
      expect(cluster.json).not.toHaveProperty('indices');
    });

    it('waits up to the timeout for a status it cannot reach: 408, timed_out, the current status', async () => {
      const started = Date.now();
      const response = await call(server.url, 'GET', '/_cluster/health?wait_for_status=green&timeout=300ms');
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(response.status).toBe(408);
      expect(response.json).toMatchObject({ status: 'yellow', timed_out: true });
      const ok = await call(
        server.url,
        'GET',
        '/_cluster/health?wait_for_status=green&timeout=1ms&return_200_for_cluster_health_timeout=true',
      );
      expect(ok.status).toBe(200);
      expect(ok.json).toMatchObject({ timed_out: true });
    });

    it('sees a change made while it waits', async () => {
      const waiting = call(server.url, 'GET', '/_cluster/health/index-2?wait_for_status=green&timeout=5s');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await client8(server.url).indices.putSettings({
        index: 'index-2',
        settings: { number_of_replicas: 0 },
      });
      const response = await waiting;
      expect(response.status).toBe(200);
      expect(response.json).toMatchObject({ status: 'green', timed_out: false });
      await client8(server.url).indices.putSettings({
        index: 'index-2',
        settings: { number_of_replicas: 2 },
      });
    });

    it('waits for active shards and nodes as asked', async () => {
      const enough = await call(
        server.url,
        'GET',
        '/_cluster/health?wait_for_active_shards=2&wait_for_nodes=>=1',
      );
      expect(enough.json).toMatchObject({ timed_out: false });
      const all = await call(server.url, 'GET', '/_cluster/health?wait_for_active_shards=all&timeout=1ms');
      expect(all.status).toBe(408);
      const nodes = await call(server.url, 'GET', '/_cluster/health?wait_for_nodes=10&timeout=1ms');
      expect(nodes.status).toBe(408);
      expect(nodes.json).toMatchObject({ timed_out: true, number_of_nodes: 1 });
    });
  });

  it('is red and waits for a named index that does not exist (TransportClusterHealthAction)', async () => {
    const response = await call(server.url, 'GET', '/_cluster/health/missing?timeout=100ms');
    expect(response.status).toBe(408);
    expect(response.json).toMatchObject({ status: 'red', timed_out: true, active_shards: 0 });
  });

  it.each([
    [
      'level=bogus',
      'No enum constant org.elasticsearch.action.admin.cluster.health.ClusterHealthRequest.Level.BOGUS',
    ],
    ['wait_for_status=blue', 'unknown cluster health status [blue]'],
    ['wait_for_active_shards=-1', 'cannot parse ActiveShardCount[-1]'],
    [
      'wait_for_no_relocating_shards=maybe',
      'Failed to parse value [maybe] as only [true] or [false] are allowed.',
    ],
  ])('refuses %s with a 400 illegal_argument_exception', async (query, reason) => {
    const response = await call(server.url, 'GET', `/_cluster/health?${query}`);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: { type: 'illegal_argument_exception', reason },
      status: 400,
    });
  });

  it('refuses a timeout without a unit and an unknown parameter', async () => {
    const timeout = await call(server.url, 'GET', '/_cluster/health?timeout=30');
    expect(timeout.status).toBe(400);
    expect(timeout.json).toMatchObject({
      error: {
        type: 'parse_exception',
        reason:
          'failed to parse setting [timeout] with value [30] as a time value: unit is missing or unrecognized',
      },
    });
    const unknown = await call(server.url, 'GET', '/_cluster/health?wait_for_colour=green');
    expect(unknown.status).toBe(400);
    expect(unknown.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
  });

  it('works through the official client, which reports the 408 as an error unless told to ignore it', async () => {
    const es = client8(server.url);
    await es.indices.create({ index: 'client-index', settings: { number_of_replicas: 0 } });
    const health = await es.cluster.health({
      index: 'client-index',
      wait_for_status: 'green',
      level: 'indices',
    });
    expect(health.status).toBe('green');
    expect(health.indices?.['client-index']?.active_primary_shards).toBe(1);
    const timedOut = await failure(es.cluster.health({ index: 'nope', timeout: '1ms' }));
    expect(timedOut.status).toBe(408);
    expect(timedOut.body).toMatchObject({ status: 'red', timed_out: true });
    const ignored = await es.cluster.health({ index: 'nope', timeout: '1ms' }, { ignore: [408] });
    expect(ignored.timed_out).toBe(true);
  });
});
