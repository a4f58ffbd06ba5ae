import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

/** ES "Nodes info API": one node, the one `/` and `_cat/nodes` describe. */
describe('GET /_nodes', () => {
  const server = useSearchStore({ NODE_NAME: 'alpha', CLUSTER_NAME: 'books', PORT: '9201' });
  const es = () => client8(server.url);

  it('describes the one node with the name, version and build `/` reports', async () => {
    const info = await es().info();
    const nodes = await es().nodes.info();
    expect(nodes._nodes).toEqual({ total: 1, successful: 1, failed: 0 });
    expect(nodes.cluster_name).toBe('books');
    const [id, node] = Object.entries(nodes.nodes)[0]!;
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(node).toMatchObject({
      name: info.name,
      transport_address: '127.0.0.1:9300',
      host: '127.0.0.1',
      ip: '127.0.0.1',
      version: info.version.number,
      build_flavor: info.version.build_flavor,
      build_type: info.version.build_type,
      build_hash: info.version.build_hash,
      roles: ['data', 'ingest', 'master'],
      http: { publish_address: '127.0.0.1:9201', bound_address: ['127.0.0.1:9201'] },
      settings: { cluster: { name: 'books' }, node: { name: 'alpha' } },
      plugins: [],
      modules: [],
    });
    // _cat/nodes shows the same node: its id's first four characters, or all with full_id.
    const cat = await call(server.url, 'GET', '/_cat/nodes?h=id,name,ip,version,node.role&format=json');
    expect(cat.json).toEqual([
      {
        id: id.slice(0, 4),
        name: 'alpha',
        ip: '127.0.0.1',
        version: info.version.number,
        'node.role': 'dim',
      },
    ]);
    const full = await call(server.url, 'GET', '/_cat/nodes?h=id&full_id=true');
    expect(full.text).toBe(`${id}\n`);
    // The id is stable: the same on every call (and every instance of one cluster and node name).
    expect(Object.keys((await es().nodes.info()).nodes)).toEqual([id]);
  });

  it('answers only the asked metrics, by /_nodes/{metric} or /_nodes/{node_id}/{metric}', async () => {
    const byMetric = await call(server.url, 'GET', '/_nodes/http,os');
    const node = Object.values(
      (byMetric.json as { nodes: Record<string, Record<string, unknown>> }).nodes,
    )[0]!;
    expect(
      Object.keys(node)
        .filter((k) => ['http', 'os', 'settings', 'jvm', 'plugins'].includes(k))
        .sort(),
    ).toEqual(['http', 'os']);
    expect(node.name).toBe('alpha');
    const local = await call(server.url, 'GET', '/_nodes/_local/settings?flat_settings=true');
    const localNode = Object.values(
      (local.json as { nodes: Record<string, Record<string, unknown>> }).nodes,
    )[0]!;
    expect(localNode.settings).toMatchObject({ 'cluster.name': 'books', 'node.name': 'alpha' });
    expect(localNode.http).toBeUndefined();
    // An unknown metric is disregarded (RestNodesInfoAction's lenience): the basic fields only.
    const unknown = await call(server.url, 'GET', '/_nodes/_all/nonsense');
    expect(unknown.status).toBe(200);
    expect(
      Object.values((unknown.json as { nodes: Record<string, Record<string, unknown>> }).nodes)[0]?.os,
    ).toBeUndefined();
  });

  it('selects the node by id, name, wildcard or role, and nothing for other names', async () => {
    const id = Object.keys((await es().nodes.info()).nodes)[0]!;
    for (const spec of [id, 'alpha', 'al*', '_local', '_master', 'master:true', '127.0.0.1']) {
      const res = await call(server.url, 'GET', `/_nodes/${spec}`);
      expect([spec, Object.keys((res.json as { nodes: object }).nodes)]).toEqual([spec, [id]]);
    }
    const none = await call(server.url, 'GET', '/_nodes/beta');
    expect(none.json).toEqual({
      _nodes: { total: 0, successful: 0, failed: 0 },
      cluster_name: 'books',
      nodes: {},
    });
    expect((await call(server.url, 'GET', '/_nodes/master:false')).json).toMatchObject({ nodes: {} });
  });

  it('refuses unknown parameters and leaves the other nodes APIs unanswered', async () => {
    const bad = await call(server.url, 'GET', '/_nodes?local=true');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: { type: 'illegal_argument_exception' } });
    const stats = await call(server.url, 'GET', '/_nodes/stats');
    expect(stats.json).toEqual({
      error: 'no handler found for uri [/_nodes/stats] and method [GET]',
      status: 400,
    });
    expect((await call(server.url, 'GET', '/_nodes?timeout=x')).status).toBe(400);
  });
});
