import fc from 'fast-check';
import { startStack, type Stack } from '../src/stack';
import { basic, call, clientCredentialsToken, es, introspect, type Reply } from '../src/http';
import { rawRequest } from '../src/raw-request';
import { snapshotDatabase } from '../src/snapshot-database';

/**
 * Property-based hostile input against both HTTP APIs (processes from dist). Every input gets a 4xx in the
 * service's own envelope, the services stay up, and the database (row counts and content hashes of every
 * table) is unchanged. RELIABILITY_FUZZ_RUNS scales the number of inputs per property (default 60).
 */
const RUNS = Number(process.env.RELIABILITY_FUZZ_RUNS ?? 60);
const MAX_BYTES = 65_536;
const tried: Record<string, number> = {};

function isEsEnvelope(reply: Reply): boolean {
  const body = reply.json as {
    status?: unknown;
    error?: { type?: unknown; reason?: unknown; root_cause?: unknown };
  };
  return (
    body?.status === reply.status &&
    typeof body.error?.type === 'string' &&
    Array.isArray(body.error.root_cause) &&
    (body.error.root_cause as unknown[]).length > 0
  );
}

function isOAuthEnvelope(reply: Reply): boolean {
  const body = reply.json as { error?: unknown; error_description?: unknown };
  return (
    typeof body?.error === 'string' &&
    /^[\x20\x21\x23-\x5B\x5D-\x7E]+$/.test(body.error) && // RFC 6749 §5.2 error charset
    (body.error_description === undefined || typeof body.error_description === 'string')
  );
}

function isUnparseable(text: string): boolean {
  if (text.trim() === '') return false;
  try {
    JSON.parse(text);
    return false;
  } catch {
    return true;
  }
}

const sqlMeta = fc.constantFrom(
  "'",
  '"',
  ';',
  '--',
  '/*',
  '*/',
  '\\',
  '%',
  '_',
  '$1',
  ' OR 1=1',
  ')',
  '(',
  '\u0000',
);
const sqlish = fc
  .array(fc.oneof(sqlMeta, fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 6 })
  .map((p) => p.join(''));
const unicodeEdge = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '\uD800',
    '\uDFFF',
    'a\uD83Dz',
    '\uFEFF',
    '\uFFFE',
    '\u202E',
    'e\u0301',
    '\u0000',
    '𝕏'.repeat(50),
  ),
);

describe('hostile input against both APIs', () => {
  let stack: Stack;
  let bearer: string;
  let before: Record<string, string>;
  let searchUrl: string;
  let authUrl: string;

  const check = async (name: string, count: number) => {
    tried[name] = count;
    for (const url of [authUrl, searchUrl]) expect((await call(`${url}/ready`)).status).toBe(200);
    expect(await snapshotDatabase(stack.databaseUrl)).toEqual(before);
  };
  const runs = (name: string) => {
    let count = 0;
    return {
      count: () => count,
      params: { numRuns: RUNS, endOnFailure: true },
      tick: () => void (count += 1),
      name,
    };
  };

  beforeAll(async () => {
    stack = await startStack({ cacheSeconds: 60, extraSearchEnv: { MAX_REQUEST_BYTES: String(MAX_BYTES) } });
    searchUrl = stack.search[0]!.url;
    authUrl = stack.auth[0]!.url;
    bearer = `Bearer ${await clientCredentialsToken(authUrl, stack.seed.webClient)}`;
    const created = await es(searchUrl, bearer, 'PUT', '/fuzz', {
      mappings: { properties: { n: { type: 'long' }, title: { type: 'text' }, at: { type: 'date' } } },
    });
    expect(created.status).toBe(200);
    for (const id of ['1', '2', '3'])
      expect(
        (await es(searchUrl, bearer, 'PUT', `/fuzz/_doc/${id}`, { n: Number(id), title: `doc ${id}` }))
          .status,
      ).toBe(201);
    // Warm the token's introspection cache entry, then freeze the picture of every table.
    await es(searchUrl, bearer, 'GET', '/fuzz/_doc/1');
    before = await snapshotDatabase(stack.databaseUrl);
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    const total = Object.values(tried).reduce((a, b) => a + b, 0);
    console.log(
      `hostile inputs tried: ${total} in total\n${Object.entries(tried)
        .map(([k, v]) => `  ${k}: ${v}`)
        .join('\n')}`,
    );
  });

  it('search-store: malformed JSON bodies get 400 in the Elasticsearch envelope', async () => {
    const r = runs('search-store malformed JSON');
    const text = fc
      .oneof(
        fc.string({ minLength: 1 }),
        fc.string({ unit: 'binary', minLength: 1 }),
        fc.json().map((s) => s.slice(0, Math.max(1, s.length - 1)) + '{'),
        fc.constantFrom('{', '{"a":', '{"a":1,}', "{'a':1}", '[1,2', '{"a":NaN}', '{"a":1}{"b":2}', '\u0000'),
      )
      .filter(isUnparseable);
    const target = fc.constantFrom(
      ['PUT', '/fuzz/_doc/x'],
      ['POST', '/fuzz/_doc'],
      ['POST', '/fuzz/_update/1'],
      ['PUT', '/fuzz/_mapping'],
      ['PUT', '/fuzz-new'],
      ['POST', '/_aliases'],
      ['PUT', '/fuzz/_settings'],
    );
    await fc.assert(
      fc.asyncProperty(text, target, async (body, [method, path]) => {
        r.tick();
        const reply = await es(searchUrl, bearer, method!, path!, body);
        expect([method, path, reply.status]).toEqual([method, path, 400]);
        expect(isEsEnvelope(reply)).toBe(true);
      }),
      r.params,
    );
    await check(r.name, r.count());
  }, 120_000);

  it('search-store: JSON of the wrong shape and documents with huge numbers get 400', async () => {
    const r = runs('search-store wrong shapes and huge numbers');
    const huge = fc.oneof(
      fc.bigInt({ min: 2n ** 63n, max: 2n ** 200n }).map((n) => `{"n":${n}}`),
      // Below -2^63 - 1024 the literal is also a double below the long range (see the report: values within
      // 1024 of the bound round onto it and are accepted).
      fc.bigInt({ min: -(2n ** 200n), max: -(2n ** 63n) - 2048n }).map((n) => `{"n":${n}}`),
      fc.constantFrom(
        '{"n":1e400}',
        '{"n":-1e400}',
        '{"n":"12345678901234567890123"}',
        '{"n":1.5e300}',
        '{"at":"99999999-99-99"}',
      ),
    );
    const notObject = fc.oneof(
      fc
        .jsonValue()
        .filter((v) => typeof v !== 'object' || v === null || Array.isArray(v))
        .map((v) => JSON.stringify(v)),
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(huge, notObject), async (body) => {
        r.tick();
        const reply = await es(searchUrl, bearer, 'PUT', '/fuzz/_doc/huge', body);
        expect([body, reply.status]).toEqual([body, 400]);
        expect(isEsEnvelope(reply)).toBe(true);
      }),
      r.params,
    );
    await check(r.name, r.count());
  }, 120_000);

  it('search-store: nesting depth bombs get 400 and the server stays up', async () => {
    const r = runs('search-store nesting depth bombs');
    await fc.assert(
      fc.asyncProperty(
        // Past Jackson's 1000 levels (ES refuses shallower ones by index.mapping.depth.limit, not implemented yet: see the report).
        fc.integer({ min: 1001, max: 20_000 }),
        fc.constantFrom('object', 'array', 'bool'),
        fc.constantFrom('/fuzz/_doc/deep', '/fuzz/_mapping', '/fuzz/_search', '/fuzz/_count'),
        async (depth, shape, path) => {
          r.tick();
          const open = shape === 'object' ? '{"a":' : shape === 'array' ? '[' : '{"bool":{"must":[';
          const close = shape === 'object' ? '}' : shape === 'array' ? ']' : ']}}';
          const inner = shape === 'bool' ? '{"match_all":{}}' : '1';
          let body = open.repeat(depth) + inner + close.repeat(depth);
          if (path.endsWith('_search') || path.endsWith('_count'))
            body = `{"query":${shape === 'bool' ? body : `{"term":${body}}`}}`;
          if (path.endsWith('_mapping')) body = `{"properties":${body}}`;
          if (body.length > MAX_BYTES) body = body.slice(0, MAX_BYTES - 10);
          const reply = await es(searchUrl, bearer, path.endsWith('_doc/deep') ? 'PUT' : 'POST', path, body);
          expect([depth, shape, path, reply.status >= 400 && reply.status < 500]).toEqual([
            depth,
            shape,
            path,
            true,
          ]);
          expect(isEsEnvelope(reply)).toBe(true);
        },
      ),
      r.params,
    );
    await check(r.name, r.count());
  }, 120_000);

  it('search-store: malformed NDJSON to _bulk gets 400 and stores nothing', async () => {
    const r = runs('search-store malformed NDJSON');
    const line = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.json(),
      fc.constantFrom('{"index":{}}', '{"delete":{"_id":"1"}}', '{"n":1}'),
    );
    const firstBad = fc.oneof(
      fc.string({ minLength: 1, maxLength: 40 }).filter(isUnparseable),
      fc.constantFrom(
        '{"index":',
        '{"explode":{"_index":"fuzz"}}',
        '[1]',
        '{"index":{"_index":"fuzz"},"delete":{}}',
        '"index"',
      ),
    );
    await fc.assert(
      fc.asyncProperty(firstBad, fc.array(line, { maxLength: 6 }), async (first, rest) => {
        r.tick();
        const body = `${[first, ...rest].join('\n')}\n`;
        const reply = await es(searchUrl, bearer, 'POST', '/fuzz/_bulk', body, 'application/x-ndjson');
        expect([body, reply.status]).toEqual([body, 400]);
        expect(isEsEnvelope(reply)).toBe(true);
      }),
      r.params,
    );
    await check(r.name, r.count());
  }, 120_000);

  it('search-store: SQL metacharacters and Unicode edge cases in index names, ids and fields change nothing', async () => {
    const r = runs('search-store SQL metacharacters and Unicode in names');
    const enc = (s: string) => {
      try {
        return encodeURIComponent(s);
      } catch {
        return Buffer.from(s, 'utf8').toString('hex'); // a lone surrogate: percent-encode its replacement bytes
      }
    };
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(sqlish, unicodeEdge),
        fc.oneof(sqlish, unicodeEdge),
        fc.nat(4),
        async (name, id, op) => {
          r.tick();
          const index = `zz${enc(name)}`; // never an existing index
          const requests: Array<[string, string, unknown?]> = [
            ['GET', `/${index}/_doc/${enc(id) || 'x'}`],
            ['DELETE', `/${index}`],
            ['GET', `/fuzz/_doc/${enc(id) || 'x'}zz`],
            ['HEAD', `/fuzz/_doc/${enc(id) || 'x'}zz`], // (a DELETE of a missing doc takes a seq_no, as in ES)
            ['POST', '/fuzz/_update/nope', { doc: { [name]: id } }],
          ];
          const [method, path, body] = requests[op]!;
          const reply = await es(searchUrl, bearer, method, path, body);
          expect([path, reply.status >= 400 && reply.status < 500]).toEqual([path, true]);
          const found = (reply.json as { found?: boolean; result?: string } | undefined) ?? {};
          // A missing document answers ES's document envelope (found:false / result:not_found), else the error envelope.
          if (method !== 'HEAD')
            expect(found.found === false || found.result === 'not_found' || isEsEnvelope(reply)).toBe(true);
        },
      ),
      r.params,
    );
    // Index names Elasticsearch forbids: created never.
    const invalidName = fc
      .tuple(
        fc.oneof(sqlish, unicodeEdge),
        fc.constantFrom('\\', '/', '*', '?', '"', '<', '>', '|', ' ', ',', '#', ':', 'A', '_'),
      )
      .map(([s, bad]) => (bad === '_' ? `_${s}` : `${s}${bad}`));
    await fc.assert(
      fc.asyncProperty(invalidName, async (name) => {
        r.tick();
        const reply = await es(
          searchUrl,
          bearer,
          'PUT',
          `/${encodeURIComponent(name.replace(/[\uD800-\uDFFF]/g, 'x'))}`,
        );
        expect([name, reply.status]).toEqual([name, 400]);
        expect(isEsEnvelope(reply)).toBe(true);
      }),
      r.params,
    );
    await check(r.name, r.count());
  }, 120_000);

  it('search-store: oversized bodies get 413 content_too_long_exception', async () => {
    const r = runs('search-store oversized bodies');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: MAX_BYTES + 1, max: MAX_BYTES * 8 }),
        fc.constantFrom('/fuzz/_doc/big', '/fuzz/_bulk'),
        async (size, path) => {
          r.tick();
          const body = path.endsWith('_bulk')
            ? `${'{"index":{}}\n{"t":"x"}\n'.repeat(Math.ceil(size / 22))}`
            : `{"t":"${'x'.repeat(size)}"}`;
          const reply = await es(
            searchUrl,
            bearer,
            path.endsWith('_bulk') ? 'POST' : 'PUT',
            path,
            body,
            path.endsWith('_bulk') ? 'application/x-ndjson' : 'application/json',
          );
          expect([size, path, reply.status]).toEqual([size, path, 413]);
          expect(reply.json).toMatchObject({ status: 413, error: { type: 'content_too_long_exception' } });
        },
      ),
      { ...r.params, numRuns: Math.min(RUNS, 20) },
    );
    await check(r.name, r.count());
  }, 120_000);

  it('both: malformed Basic and Bearer headers get 401 in each envelope', async () => {
    const r = runs('malformed Basic and Bearer headers');
    const printable = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 80,
    });
    const header = fc.oneof(
      printable.map((s) => `Bearer ${s}`),
      printable.map((s) => `Basic ${s}`),
      fc.uint8Array({ maxLength: 60 }).map((b) => `Basic ${Buffer.from(b).toString('base64')}`),
      fc.tuple(sqlish, printable).map(([u, p]) => basic(u, p)),
      fc
        .tuple(printable, printable)
        .map(([u, p]) => `Basic ${Buffer.from(`${u}%ZZ:${p}`).toString('base64')}`),
      fc.constantFrom(
        'Bearer',
        'Bearer ',
        'Basic',
        'Basic =',
        'bearer  a b',
        'Digest x',
        'Bearer a.b.c',
        'Bearer eyJhbGciOiJub25lIn0.e30.',
      ),
    );
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        r.tick();
        const search = await es(searchUrl, authorization, 'GET', '/fuzz/_doc/1');
        expect([authorization, search.status]).toEqual([authorization, 401]);
        expect(isEsEnvelope(search)).toBe(true);
        const info = await call(`${authUrl}/token_info`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/x-www-form-urlencoded' },
          body: 'token=x',
        });
        expect([authorization, info.status]).toEqual([authorization, 401]);
        expect(isOAuthEnvelope(info)).toBe(true);
      }),
      r.params,
    );
    await check(r.name, r.count());
  }, 120_000);

  it('auth-server: hostile /token and /token_info bodies get 4xx in the OAuth envelope; odd tokens are inactive', async () => {
    const r = runs('auth-server hostile token requests');
    const client = stack.seed.webClient;
    const form = fc.dictionary(
      fc.oneof(
        fc.constantFrom(
          'grant_type',
          'code',
          'refresh_token',
          'scope',
          'redirect_uri',
          'code_verifier',
          'client_id',
        ),
        sqlish,
      ),
      fc.oneof(
        sqlish,
        unicodeEdge,
        fc.constantFrom('authorization_code', 'refresh_token', 'password', 'client_credentials'),
      ),
    );
    await fc.assert(
      fc.asyncProperty(form, fc.constantFrom('form', 'json', 'garbage'), async (fields, kind) => {
        r.tick();
        if (fields.grant_type === 'client_credentials') fields.grant_type = 'password';
        const body =
          kind === 'form'
            ? new URLSearchParams(
                Object.entries(fields).map(([k, v]): [string, string] => [
                  k.replace(/[\uD800-\uDFFF]/g, ''),
                  v.replace(/[\uD800-\uDFFF]/g, ''),
                ]),
              ).toString()
            : kind === 'json'
              ? JSON.stringify(fields)
              : `${Object.keys(fields).join('%')}=%%${Object.values(fields).join('&=')}`;
        const reply = await call(`${authUrl}/token`, {
          method: 'POST',
          headers: {
            authorization: basic(client.clientId, client.clientSecret),
            'content-type': kind === 'json' ? 'application/json' : 'application/x-www-form-urlencoded',
          },
          body,
        });
        expect([body, reply.status >= 400 && reply.status < 500]).toEqual([body, true]);
        expect(isOAuthEnvelope(reply)).toBe(true);
      }),
      r.params,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(sqlish, unicodeEdge).filter((t) => t.length > 0),
        async (token) => {
          r.tick();
          const reply = await introspect(
            authUrl,
            stack.seed.resourceServer,
            token.replace(/[\uD800-\uDFFF]/g, '\uFFFD'),
          );
          expect([token, reply.status]).toEqual([token, 200]); // RFC 7662 §2.2: an unknown token is inactive
          expect(reply.json).toEqual({ active: false });
        },
      ),
      r.params,
    );
    const oversized = await call(`${authUrl}/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: `grant_type=client_credentials&x=${'a'.repeat(2_000_000)}`,
    });
    r.tick();
    expect(oversized.status).toBe(400); // RFC 6749 has no 413: invalid_request
    expect(oversized.json).toEqual({ error: 'invalid_request', error_description: 'request body too large' });
    await check(r.name, r.count());
  }, 120_000);

  it('both: header injection (CR/LF, control characters) is refused or confined to its own header, never reflected', async () => {
    const r = runs('header injection (raw HTTP)');
    const injected = fc.tuple(
      fc.constantFrom(
        '\r\nX-Injected: 1',
        '\nX-Injected: 1',
        '\rX-Injected: 1',
        '\u0000',
        '\u007f',
        '\r\n\r\nGET / HTTP/1.1',
      ),
      fc.string({
        unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 20,
      }),
    );
    await fc.assert(
      fc.asyncProperty(
        injected,
        fc.constantFrom('search', 'auth'),
        fc.constantFrom('authorization', 'content-type', 'x-opaque-id'),
        async ([bad, word], target, header) => {
          r.tick();
          const service = target === 'search' ? stack.search[0]! : stack.auth[0]!;
          const path = target === 'search' ? '/fuzz/_doc/1' : '/token_info';
          const method = target === 'search' ? 'GET' : 'POST';
          const value = header === 'authorization' ? `Bearer ${word}${bad}` : `${word}${bad}`;
          const request =
            `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n` +
            (header === 'authorization' ? '' : `authorization: ${bearer}\r\n`) +
            `${header}: ${value}\r\ncontent-length: 0\r\n\r\n`;
          const reply = await rawRequest(service.port, Buffer.from(request, 'latin1'));
          const label = JSON.stringify(value);
          // A CR/LF either makes the parser refuse the request or ends the header there (the rest is just
          // another request header): never a 5xx, never reflected into our response, and a garbage
          // Authorization is always refused.
          expect([label, reply.status >= 200 && reply.status < 500]).toEqual([label, true]);
          if (header === 'authorization')
            expect([label, [400, 401].includes(reply.status)]).toEqual([label, true]);
          expect(/\r\nx-injected:/i.test(reply.head)).toBe(false);
          if (reply.status >= 400) {
            const json = JSON.parse(reply.body) as unknown;
            const shaped = { status: reply.status, headers: new Headers(), text: reply.body, json };
            expect([label, target === 'search' ? isEsEnvelope(shaped) : isOAuthEnvelope(shaped)]).toEqual([
              label,
              true,
            ]);
          }
        },
      ),
      r.params,
    );
    await check(r.name, r.count());
  }, 120_000);
});
