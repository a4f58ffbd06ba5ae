import { EsError } from '@acme/common';
import { type Router, type Request, type Response } from 'express';
import type { Pool } from 'pg';
import {
  analyzeValues,
  findAnalyzer,
  findTokenFilter,
  findTokenizer,
  type Analyzer,
} from '../analysis/analyzer';
import { indexAnalyzerFor } from '../index/analyze-document';
import { findIndexedField } from '../index/indexed-fields';
import type { IndexMapping } from '../mapping/mapping-types';
import { queryParams, searchBodyOf } from './search-body';
import { indexNotFound } from '../es-errors';
import { checkParams } from '../http/check-params';
import { ROUTE_PARAMS } from './route-params';
import { scopedRouter } from '../http/scoped-router';

type Json = Record<string, unknown>;

/**
 * GET|POST /_analyze and /<index>/_analyze: `{tokens:[{token, start_offset, end_offset, type, position}]}`.
 * As in Elasticsearch 8 (indices.analyze.json), the request is the body; the only URL parameter is
 * `index` (the path's alternative), so `?text=` is refused like any unknown parameter.
 */
export function analyzeRouter(deps: { pool: Pool }): Router {
  const { router, route } = scopedRouter();
  const handle = async (req: Request, res: Response): Promise<void> => {
    const raw = searchBodyOf(req, res);
    const params = queryParams(req);
    const body: Json = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Json) : {};
    const text = body.text;
    if (text === undefined || (Array.isArray(text) && text.length === 0)) {
      throw new EsError('action_request_validation_exception', 'Validation Failed: 1: text is missing;');
    }
    const indexName = (req.params.index as string | undefined) ?? params.index;
    let settings: Json = {};
    let mappings: IndexMapping = {};
    if (indexName) {
      const { rows } = await deps.pool.query<{ settings: Json; mappings: IndexMapping }>(
        'SELECT settings, mappings FROM indices WHERE name = $1',
        [indexName],
      );
      if (!rows[0]) throw indexNotFound(indexName);
      ({ settings, mappings } = rows[0]);
    }
    const analyzer = chooseAnalyzer(body, settings, mappings, indexName !== undefined);
    const values = (Array.isArray(text) ? text : [text]).map(String);
    const tokens = analyzeValues(analyzer, values).map((t) => ({
      token: t.term,
      start_offset: t.startOffset,
      end_offset: t.endOffset,
      type: t.type,
      position: t.position,
    }));
    res.json({ tokens });
  };
  const allowed = checkParams(ROUTE_PARAMS.analyze);
  route(['GET', 'POST'], '/_analyze', 'search.read', 'indices:admin/analyze', allowed, handle);
  route(['GET', 'POST'], '/:index/_analyze', 'search.read', 'indices:admin/analyze', allowed, handle);
  return router;
}

function chooseAnalyzer(body: Json, settings: Json, mappings: IndexMapping, inIndex: boolean): Analyzer {
  const field = body.field as string | undefined;
  if (field !== undefined) {
    const mapped = findIndexedField(mappings, field);
    if (mapped?.type === 'text') return indexAnalyzerFor(mapped, settings);
    if (mapped) return findAnalyzer('keyword');
    return findAnalyzer('standard');
  }
  const name = body.analyzer as string | undefined;
  if (name !== undefined) {
    try {
      return findAnalyzer(String(name), settings);
    } catch {
      throw new EsError(
        'illegal_argument_exception',
        inIndex ? `failed to find analyzer [${name}]` : `failed to find global analyzer [${name}]`,
      );
    }
  }
  const tokenizerSpec = body.tokenizer;
  const filterSpecs = body.filter;
  if (tokenizerSpec === undefined && filterSpecs === undefined) return findAnalyzer('standard');
  const inline: Json = { ...settings };
  const tokenizer =
    tokenizerSpec !== null && typeof tokenizerSpec === 'object'
      ? findTokenizer(
          '_inline_tokenizer',
          withInline(inline, 'tokenizer', '_inline_tokenizer', tokenizerSpec as Json),
        )
      : findTokenizer(String(tokenizerSpec ?? 'keyword'), settings);
  const filters = (
    Array.isArray(filterSpecs) ? filterSpecs : filterSpecs === undefined ? [] : [filterSpecs]
  ).map((spec, i) =>
    spec !== null && typeof spec === 'object'
      ? findTokenFilter(`_inline_${i}`, withInline(inline, 'filter', `_inline_${i}`, spec as Json))
      : findTokenFilter(String(spec), settings),
  );
  return { name: '_custom', tokenizer, filters };
}

function withInline(settings: Json, kind: string, name: string, spec: Json): Json {
  for (const [key, value] of Object.entries(spec)) settings[`index.analysis.${kind}.${name}.${key}`] = value;
  return settings;
}
