import { newDictionary } from '@acme/common';
import { findAnalyzer } from '../../analysis/analyzer';
import { searchAnalyzerFor } from '../../index/analyze-document';
import { valuesAtPath } from '../../index/indexed-fields';
import { collectHighlightTerms, highlightValues } from './highlight';
import { matchFieldPattern, type IndexReader } from '../../query/index-reader';
import type { SearchRequest } from '../../query/parse/search-request';

/** The query terms to highlight, per index and field. */
export function highlightTermsFor(
  readers: IndexReader[],
  request: SearchRequest,
): Map<string, Map<string, Set<string>>> {
  const out = new Map<string, Map<string, Set<string>>>();
  for (const reader of readers) {
    const analyzerFor = (path: string) => {
      const field = reader.fields.get(path);
      if (!field) return undefined;
      return field.type === 'text' ? searchAnalyzerFor(field, reader.settings) : findAnalyzer('keyword');
    };
    const fieldsFor = (pattern: string) => [...reader.fields.keys()].filter(matchFieldPattern(pattern));
    out.set(reader.indexId, collectHighlightTerms(request.query, analyzerFor, fieldsFor));
  }
  return out;
}

export function highlightHit(
  reader: IndexReader,
  source: Record<string, unknown>,
  request: SearchRequest,
  terms: Map<string, Map<string, Set<string>>>,
): Record<string, string[]> | undefined {
  const highlight = request.highlight!;
  const perField = terms.get(reader.indexId) ?? new Map<string, Set<string>>();
  const out = newDictionary<string[]>(); // keyed by field path
  for (const [pattern, options] of Object.entries(highlight.fields)) {
    const test = matchFieldPattern(pattern);
    for (const field of reader.fields.values()) {
      if (!test(field.path) || (field.type !== 'text' && field.type !== 'keyword')) continue;
      const set = perField.get(field.path);
      if (!set || set.size === 0) continue;
      const analyzer =
        field.type === 'text' ? searchAnalyzerFor(field, reader.settings) : findAnalyzer('keyword');
      const values = valuesAtPath(source, field.sourcePath)
        .filter((v) => typeof v !== 'object')
        .map(String);
      const fragments = highlightValues(values, analyzer, set, {
        preTag: (options.preTags ?? highlight.preTags)[0]!,
        postTag: (options.postTags ?? highlight.postTags)[0]!,
        fragmentSize: options.fragmentSize ?? highlight.fragmentSize,
        numberOfFragments: options.numberOfFragments ?? highlight.numberOfFragments,
      });
      if (fragments.length > 0) out[field.path] = fragments;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}
