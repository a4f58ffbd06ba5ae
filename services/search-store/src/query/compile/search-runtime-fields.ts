import type { Pool, PoolClient } from 'pg';
import { newDictionary } from '@acme/common';
import type { DocKeySet } from '../../aggs/agg-context';
import { DEFAULT_MAX_RUNTIME_DOCS } from '../../aggs/load-document-values';
import { keywordNormalizer } from '../../index/analyze-document';
import { parseDateValue } from '../../index/date-value';
import { valuesAtPath } from '../../index/indexed-fields';
import { isIntegerType, isNumericType } from '../../mapping/field-types';
import { compileRuntimeFields, type DocumentValues, type RuntimeFields } from '../../script/runtime-fields';
import type { DocValueType } from '../../script/script-values';
import type { IndexReader, ReaderField } from '../index-reader';
import { loadRuntimeRelation, type RuntimeRelation } from './runtime-relation';

/**
 * The runtime fields of one search (its `runtime_mappings` over the mappings' `runtime` sections),
 * bound to the searched indices.
 */
export interface SearchRuntimeFields {
  /** The compiled fields (script/runtime-fields.ts); aggregations evaluate them over their matches. */
  fields: RuntimeFields;
  /** Field names this request defines, with their types (keyword, long, double, date, boolean). */
  types: Map<string, string>;
  /** Values per document, computed from `_source`; for `fields` in the hits. */
  valuesFor(indexId: string, source: Record<string, unknown>): Promise<Record<string, unknown[]>>;
  /**
   * A runtime field's values over one index's documents as SQL yielding `(doc_key bigint, v)` (`v` text
   * for keyword, float8 otherwise: dates as epoch ms, booleans 1/0) with its own `$1…$n`; for queries
   * and sort. Over every document of the index, or only over `matched` (a sort needs only the
   * documents the query matched). Refused beyond the per-request evaluation limit.
   */
  relation(
    client: Pool | PoolClient,
    reader: IndexReader,
    name: string,
    matched?: DocKeySet,
  ): Promise<RuntimeRelation>;
}

/** Script time budget of one search's runtime fields (ES has no per-request budget; this bounds a loop). */
const SCRIPT_BUDGET_MS = 5_000;

/** Compiles a search's runtime fields once; every query leaf, sort key, hit and aggregation shares them. */
export function compileSearchRuntimeFields(
  runtimeMappings: Record<string, unknown>,
  readers: IndexReader[],
  options: { maxRuntimeDocs?: number } = {},
): SearchRuntimeFields {
  const fields = compileRuntimeFields(runtimeMappings);
  const byId = new Map(readers.map((r) => [r.indexId, r]));
  const deadline = Date.now() + SCRIPT_BUDGET_MS;
  const limits = {
    maxRuntimeDocs: options.maxRuntimeDocs ?? DEFAULT_MAX_RUNTIME_DOCS,
    scriptDeadline: deadline,
  };
  // One evaluation per index and field per request, shared by every query leaf and sort key.
  const relations = new Map<string, Promise<RuntimeRelation>>();
  return {
    fields,
    types: new Map([...fields].map(([name, field]) => [name, field.type])),
    async valuesFor(indexId, source) {
      const reader = byId.get(indexId);
      const doc: DocumentValues = {
        source,
        docValues: (path) => (reader ? docValuesOf(reader, path, source) : undefined),
      };
      const out = newDictionary<unknown[]>(); // keyed by runtime field name
      for (const [name, field] of fields) out[name] = field.evaluate(doc, deadline);
      return out;
    },
    relation(client, reader, name, matched) {
      // A restricted relation is keyed by its SQL too: a query leaf and a sort on the same field
      // need different documents.
      const key = `${reader.indexId}\u0000${name}\u0000${matched?.sql ?? ''}`;
      let relation = relations.get(key);
      if (!relation) {
        relation = loadRuntimeRelation(client, reader, fields, name, limits, matched);
        relations.set(key, relation);
      }
      return relation;
    },
  };
}

function kindOf(field: ReaderField): DocValueType | undefined {
  if (field.type === 'keyword') return 'keyword';
  if (field.type === 'boolean') return 'boolean';
  if (field.type === 'date') return 'date';
  if (isIntegerType(field.type)) return 'long';
  if (isNumericType(field.type)) return 'double';
  return undefined; // text has no doc values
}

/**
 * `doc['f']` for a script evaluated on a hit: the document's mapped values as doc values would hold
 * them (keyword strings after the normalizer, numbers, dates as epoch ms, booleans), sorted.
 */
export function docValuesOf(
  reader: IndexReader,
  path: string,
  source: Record<string, unknown>,
): { type: DocValueType; values: unknown[] } | undefined {
  const field = reader.fields.get(path);
  const kind = field && kindOf(field);
  if (!field || !kind) return undefined;
  const raw = valuesAtPath(source, field.sourcePath).filter((v) => typeof v !== 'object');
  let values: unknown[];
  if (kind === 'keyword') {
    const normalize = keywordNormalizer(field, reader.settings);
    values = [...new Set(raw.map((v) => normalize(String(v))))].sort();
  } else if (kind === 'boolean') {
    values = raw.map((v) => v === true || v === 'true').sort((a, b) => Number(a) - Number(b));
  } else if (kind === 'date') {
    values = raw
      .map((v) => parseDateValue(v, field.mapping.format))
      .filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
  } else {
    values = raw
      .map(Number)
      .filter(Number.isFinite)
      .map((n) => (kind === 'long' ? Math.trunc(n) : n))
      .sort((a, b) => a - b);
  }
  return { type: kind, values };
}
