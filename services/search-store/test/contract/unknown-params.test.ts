import { useSearchStore } from '../support/use-search-store';
import { esErrorBody } from '../support/es-error-body';
import { call, client8, failure } from '../support/http';

const envelope = (reason: string) => esErrorBody('illegal_argument_exception', reason);

describe('unknown URL parameters', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().index({ index: 'idx', id: '1', document: { a: 1 }, refresh: true });
  });

  it('refuses an unknown parameter on GET /<index>/_doc/<id> with ES reason, and writes nothing on PUT', async () => {
    const get = await call(server.url, 'GET', '/idx/_doc/1?foo=1');
    expect(get.status).toBe(400);
    expect(get.json).toEqual(envelope('request [/idx/_doc/1] contains unrecognized parameter: [foo]'));
    const put = await call(server.url, 'PUT', '/idx/_doc/2?foo', { a: 2 });
    expect(put.json).toEqual(envelope('request [/idx/_doc/2] contains unrecognized parameter: [foo]'));
    expect(await es().exists({ index: 'idx', id: '2' })).toBe(false);
  });

  it('suggests the closest known parameter for a typo, and lists several unknown ones sorted', async () => {
    const typo = await call(server.url, 'POST', '/idx/_doc/3?refesh=true', { a: 3 });
    expect(typo.json).toEqual(
      envelope('request [/idx/_doc/3] contains unrecognized parameter: [refesh] -> did you mean [refresh]?'),
    );
    const several = await call(server.url, 'DELETE', '/idx/_doc/1?zzz=1&aaa=2');
    expect(several.json).toEqual(
      envelope('request [/idx/_doc/1] contains unrecognized parameters: [aaa], [zzz]'),
    );
    expect(await es().exists({ index: 'idx', id: '1' })).toBe(true);
  });

  it('refuses unknown parameters on the index and search APIs, through the official client too', async () => {
    const create = await call(server.url, 'PUT', '/other?nope=1');
    expect(create.json).toEqual(envelope('request [/other] contains unrecognized parameter: [nope]'));
    expect((await call(server.url, 'HEAD', '/other')).status).toBe(404);
    const search = await failure(es().search({ index: 'idx' }, { querystring: { sizee: 1 } }));
    expect(search).toEqual({
      status: 400,
      body: envelope(
        'request [/idx/_search] contains unrecognized parameter: [sizee] -> did you mean [size]?',
      ),
    });
    const count = await call(server.url, 'POST', '/_count?bogus');
    expect(count.json).toEqual(envelope('request [/_count] contains unrecognized parameter: [bogus]'));
    const head = await call(server.url, 'HEAD', '/idx?bogus');
    expect(head.status).toBe(400);
  });

  it('accepts the standard parameters and the ones the official client sends', async () => {
    const pretty = await call(
      server.url,
      'GET',
      '/idx/_doc/1?pretty&human&error_trace=false&filter_path=_id,found',
    );
    expect(pretty.status).toBe(200);
    expect(pretty.json).toEqual({ _id: '1', found: true });
    await es().index({ index: 'idx', id: '4', document: { a: 4 }, refresh: 'wait_for', timeout: '1m' });
    expect(
      await es().get({
        index: 'idx',
        id: '4',
        _source_includes: ['a'],
        realtime: true,
        preference: '_local',
      }),
    ).toMatchObject({ _source: { a: 4 } });
    const result = await es().search({
      index: 'idx',
      q: 'a:4',
      track_total_hits: true,
      ignore_unavailable: true,
      typed_keys: true,
      rest_total_hits_as_int: false,
    });
    expect(result.hits.hits.map((h) => h._id)).toEqual(['4']);
    expect(
      await es().indices.get({ index: 'idx', flat_settings: true, master_timeout: '30s' }),
    ).toHaveProperty('idx');
  });
});
