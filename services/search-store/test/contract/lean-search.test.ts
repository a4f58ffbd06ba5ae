import express from 'express';
import type { AddressInfo } from 'node:net';
import { EsError, esErrorHandler, createLogger, frontHandler, requestPrelude } from '@acme/common';
import { searchFrontRoute } from '../../src/api/lean-search';
import type { SearchTarget } from '../../src/search/search-target';
import { formatResponse } from '../../src/http/format-response';
import { fullAccessPrincipal } from '../support/full-access-principal';
import { startSearchStore, type RunningSearchStore } from '../support/start-search-store';
import { call, client8 } from '../support/http';

/**
 * POST /<index>/_search in front of express (api/lean-search.ts) must answer exactly as the express
 * route does: the same body, status and headers for hits and for every kind of error.
 */
describe('the lean search path', () => {
  describe('which requests it takes', () => {
    const seen: { target: SearchTarget; body: unknown }[] = [];
    let base: string;
    let close: () => Promise<void>;
    beforeAll(async () => {
      const app = express();
      const search = searchFrontRoute(app, {
        run: async (target, body) => {
          seen.push({ target, body });
          if (target.index === 'boom')
            throw new EsError('index_not_found_exception', 'no such index [boom]', { status: 404 });
          return { lean: true };
        },
        authenticate: (req, _res, next) => {
          if (req.get('authorization') === 'Bearer bad')
            throw new EsError('security_exception', 'bad token', { status: 401 });
          expect(req.path).toMatch(/_search$/);
          fullAccessPrincipal(req, _res, next);
        },
        maxBytes: 100,
      });
      app.use((_req, res) => res.status(418).json({ express: true }));
      const front = frontHandler(app, {
        prelude: requestPrelude({ headers: { 'X-Elastic-Product': 'Elasticsearch' }, observers: [] }),
        routes: [search],
        errorHandler: esErrorHandler(createLogger({ service: 'test', silent: true })),
        beforeError: [formatResponse()],
      });
      const server = front.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () => new Promise((resolve) => server.close(() => resolve()));
    });
    afterAll(() => close());

    it('takes POST /_search and /<index>/_search with a JSON body or none, index decoded', async () => {
      for (const [path, body, index] of [
        ['/_search', { size: 1 }, undefined],
        ['/logs-%2A,other/_search', { query: { match_all: {} } }, 'logs-*,other'],
        ['/one/_search', undefined, 'one'],
      ] as const) {
        seen.length = 0;
        const response = await call(base, 'POST', path, body);
        expect(response.status).toBe(200);
        expect(response.json).toEqual({ lean: true });
        expect(response.headers.get('content-type')).toBe('application/json; charset=UTF-8');
        expect(response.headers.get('x-elastic-product')).toBe('Elasticsearch');
        expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
        expect(seen).toEqual([{ target: { index, ignoreUnavailable: false }, body }]);
      }
      const opaque = await call(
        base,
        'POST',
        '/one/_search',
        {},
        { 'x-opaque-id': 'abc', 'x-request-id': 'req-1' },
      );
      expect(opaque.headers.get('x-opaque-id')).toBe('abc');
      expect(opaque.headers.get('x-request-id')).toBe('req-1');
    });

    it('leaves query strings, GET, other media types and other paths to express', async () => {
      seen.length = 0;
      for (const [method, path, body, headers] of [
        ['POST', '/one/_search?pretty', {}, {}],
        ['GET', '/one/_search', undefined, {}],
        ['POST', '/one/_search', 'q', { 'content-type': 'text/plain' }],
        ['POST', '/one/_count', {}, {}],
        ['POST', '/one/two/_search', {}, {}],
      ] as const) {
        const response = await call(base, method, path, body, headers);
        expect(response.status).toBe(418);
      }
      expect(seen).toEqual([]);
    });

    it('answers errors in the Elasticsearch envelope: authentication, the runner, JSON, the size limit', async () => {
      const unauthorized = await call(base, 'POST', '/one/_search', {}, { authorization: 'Bearer bad' });
      expect(unauthorized.status).toBe(401);
      expect(unauthorized.json).toMatchObject({
        error: { type: 'security_exception', reason: 'bad token' },
        status: 401,
      });
      expect(unauthorized.headers.get('content-type')).toBe('application/json; charset=UTF-8');
      const missing = await call(base, 'POST', '/boom/_search', {});
      expect(missing.status).toBe(404);
      expect(missing.json).toMatchObject({ error: { type: 'index_not_found_exception' }, status: 404 });
      const malformed = await call(base, 'POST', '/one/_search', '{"query": ');
      expect(malformed.status).toBe(400);
      expect(malformed.json).toMatchObject({
        error: { type: expect.stringMatching(/^x_content_/) as string },
        status: 400,
      });
      const large = await call(base, 'POST', '/one/_search', { query: 'x'.repeat(200) });
      expect(large.status).toBe(413);
      expect(large.json).toMatchObject({ error: { type: 'content_too_long_exception' }, status: 413 });
    });
  });

  describe('against the express route of the real app', () => {
    let store: RunningSearchStore;
    const index = 'lean-search';
    beforeAll(async () => {
      store = await startSearchStore();
      const es = client8(store.url);
      await es.indices.create({
        index,
        mappings: { properties: { body: { type: 'text' }, tag: { type: 'keyword' } } },
      });
      await es.bulk({
        refresh: true,
        operations: Array.from({ length: 30 }, (_, i) => [
          { index: { _index: index, _id: String(i) } },
          { body: `alpha ${i % 2 ? 'beta' : 'gamma'} delta${i % 4}`, tag: `t${i % 3}` },
        ]).flat(),
      });
    });
    afterAll(() => store.stop());

    const requests: unknown[] = [
      { query: { match: { body: { query: 'alpha beta', operator: 'and' } } } },
      { query: { match: { body: 'beta delta1' } }, size: 3, from: 2, _source: ['tag'] },
      { query: { term: { tag: 't1' } }, sort: [{ tag: 'asc' }], aggs: { tags: { terms: { field: 'tag' } } } },
      { query: { match: { body: 'beta' } }, highlight: { fields: { body: {} } }, version: true },
      { query: { bogus: {} } },
      { query: { match: { body: 'x' } }, size: 10001 },
      '{"query": {"match": {"body": "alpha"}}',
      { query: { match: { missing_field: 'alpha' } } },
    ];

    it('gives the same status, body and headers as the route for hits and errors', async () => {
      for (const body of requests) {
        // Any query parameter sends the request through express; ignore_unavailable=false changes nothing.
        const lean = await call(store.url, 'POST', `/${index}/_search`, body);
        const routed = await call(store.url, 'POST', `/${index}/_search?ignore_unavailable=false`, body);
        const strip = (text: string) => text.replace(/"took":\d+/, '"took":0');
        expect({ status: lean.status, text: strip(lean.text) }).toEqual({
          status: routed.status,
          text: strip(routed.text),
        });
        for (const header of ['content-type', 'x-elastic-product', 'www-authenticate'])
          expect(lean.headers.get(header)).toBe(routed.headers.get(header));
      }
      for (const path of ['/nothing-here/_search', '/_search']) {
        const lean = await call(store.url, 'POST', path, { query: { match_all: {} } });
        const routed = await call(store.url, 'POST', `${path}?ignore_unavailable=false`, {
          query: { match_all: {} },
        });
        expect({ status: lean.status, json: { ...(lean.json as object), took: 0 } }).toEqual({
          status: routed.status,
          json: { ...(routed.json as object), took: 0 },
        });
      }
    });

    it('counts the searches it answers in the metrics under the route pattern', async () => {
      const count = async () => {
        const metrics = await call(store.url, 'GET', '/metrics');
        const line =
          /http_requests_total\{method="POST",route="\/:index\/_search",status="200"[^}]*\} (\d+)/.exec(
            metrics.text,
          );
        return Number(line?.[1] ?? 0);
      };
      const before = await count();
      await call(store.url, 'POST', `/${index}/_search`, { query: { match: { body: 'alpha' } } });
      expect(await count()).toBe(before + 1);
    });
  });
});
