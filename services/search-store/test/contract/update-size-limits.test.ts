import { useSearchStore } from '../support/use-search-store';
import { call } from '../support/http';

/**
 * Issue 17: a 200-byte update script grew a document to 524 MB and the process to 1.17 GB. Scripts
 * now run under an allocation budget, and no update may write a `_source` larger than a request may
 * be (MAX_REQUEST_BYTES, 1 MiB here); either way the answer is a 400 and the document is unchanged.
 */
describe('update size limits', () => {
  const LIMIT = 1024 * 1024;
  const server = useSearchStore({ MAX_REQUEST_BYTES: String(LIMIT) });

  const update = (id: string, body: unknown) => call(server.url, 'POST', `/limits/_update/${id}`, body);
  const sourceOf = async (id: string) => (await call(server.url, 'GET', `/limits/_source/${id}`)).text;
  /** Half a million characters, built by doubling inside the script. */
  const HALF_MEGA = "String s = 'x'; for (int i = 0; i < 19; i++) { s = s + s; }";

  it('stops a script past its allocation budget with a script_exception and keeps the document', async () => {
    await call(server.url, 'PUT', '/limits/_doc/budget', { n: 1 });
    const started = Date.now();
    const response = await update('budget', {
      script: `${HALF_MEGA} long n = 0; for (int i = 0; i < 200; i++) { String t = s + i; n += t.length(); } ctx._source.n = n;`,
    });
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: 'failed to execute script',
        caused_by: {
          type: 'script_exception',
          reason: 'runtime error',
          caused_by: {
            type: 'circuit_breaking_exception',
            reason: expect.stringMatching(
              /^\[script\] Data too large, data for \[script allocations\] would be \[\d+\/[\d.]+mb\], which is larger than the limit of \[33554432\/32mb\]$/,
            ) as string,
          },
        },
      },
      status: 400,
    });
    expect(await sourceOf('budget')).toBe('{"n":1}');
  });

  it('refuses a script result larger than MAX_REQUEST_BYTES before serialising it', async () => {
    await call(server.url, 'PUT', '/limits/_doc/copies', { n: 1 });
    // Eight references to one string: cheap to hold, 4 MB as JSON (600 made the 300 MB of issue 17).
    const response = await update('copies', {
      script: `${HALF_MEGA} List l = []; for (int i = 0; i < 8; i++) { l.add(s); } ctx._source.big = l;`,
    });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: `the updated document's [_source] would be larger than the request size limit of [${LIMIT}] bytes`,
      },
      status: 400,
    });
    expect(await sourceOf('copies')).toBe('{"n":1}');
  });

  it('stops a list nested by doubling (2^40 nodes) quickly', async () => {
    await call(server.url, 'PUT', '/limits/_doc/nested', { n: 1 });
    const started = Date.now();
    const built = await update('nested', {
      script: "List a = ['x']; for (int i = 0; i < 40; i++) { a = [a, a]; } ctx._source.a = a;",
    });
    expect(built.status).toBe(400);
    const compared = await update('nested', {
      script:
        'List a = [1]; List b = [1]; for (int i = 0; i < 40; i++) { a = [a, a]; b = [b, b]; } ctx._source.eq = a == b;',
    });
    expect(compared.status).toBe(400);
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(await sourceOf('nested')).toBe('{"n":1}');
  });

  it('refuses a partial-doc merge whose result is larger than MAX_REQUEST_BYTES', async () => {
    const half = 'y'.repeat(600 * 1024);
    expect((await call(server.url, 'PUT', '/limits/_doc/merged', { a: half })).status).toBe(201);
    const response = await update('merged', { doc: { b: half } });
    expect(response.status).toBe(400);
    const size = Buffer.byteLength(JSON.stringify({ a: half, b: half }));
    expect(response.json).toMatchObject({
      error: {
        type: 'illegal_argument_exception',
        reason: `the updated document's [_source] would be [${size}] bytes, larger than the request size limit of [${LIMIT}] bytes`,
      },
    });
    expect(await sourceOf('merged')).toBe(JSON.stringify({ a: half }));
    // Under the limit the same merge goes through.
    expect((await update('merged', { doc: { b: 'small' } })).status).toBe(200);
  });

  it('fails one bulk update item on the limit and applies the others', async () => {
    await call(server.url, 'PUT', '/limits/_doc/bulk1?refresh=true', { n: 1 });
    const lines = [
      { update: { _index: 'limits', _id: 'bulk1' } },
      {
        script: `${HALF_MEGA} List l = []; for (int i = 0; i < 8; i++) { l.add(s); } ctx._source.big = l;`,
      },
      { update: { _index: 'limits', _id: 'bulk1' } },
      { script: 'ctx._source.n += 1' },
    ];
    const response = await call(
      server.url,
      'POST',
      '/_bulk',
      `${lines.map((l) => JSON.stringify(l)).join('\n')}\n`,
      { 'content-type': 'application/x-ndjson' },
    );
    expect(response.status).toBe(200);
    const items = (response.json as { items: { update: { status: number } }[] }).items;
    expect(items.map((i) => i.update.status)).toEqual([400, 200]);
    expect(await sourceOf('bulk1')).toBe('{"n":2}');
  });
});
