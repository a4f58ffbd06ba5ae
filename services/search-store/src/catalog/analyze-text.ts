import { EsError } from '@acme/common';
import {
  analyzeValues,
  findAnalyzer,
  findTokenFilter,
  findTokenizer,
  type Analyzer,
} from '../analysis/analyzer';
import type { Token } from '../analysis/token';
import { indexAnalyzerFor } from '../index/analyze-document';
import { findIndexedField } from '../index/indexed-fields';
import type { IndexMapping } from '../mapping/mapping-types';
import { findIndicesByName } from '../storage/indices.repo';
import type { Queryable } from '../storage/queryable';
import { indexNotFound } from '../es-errors';

type Json = Record<string, unknown>;

/**
 * ES "Analyze API" (TransportAnalyzeAction): the tokens of `text` under the analyzer the request
 * names: a field's (of `index`), a named one (the index's own or a built-in), or one built from
 * `tokenizer` and `filter` (named or inline); `standard` when none is named.
 */
export async function analyzeText(
  db: Queryable,
  indexName: string | undefined,
  body: Json,
  values: string[],
): Promise<Token[]> {
  let settings: Json = {};
  let mappings: IndexMapping = {};
  if (indexName) {
    const [index] = await findIndicesByName(db, [indexName]);
    if (!index) throw indexNotFound(indexName);
    ({ settings, mappings } = index);
  }
  return analyzeValues(chooseAnalyzer(body, settings, mappings, indexName !== undefined), values);
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
