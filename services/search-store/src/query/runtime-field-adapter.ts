import { newDictionary } from '@acme/common';
import { keywordNormalizer } from '../index/analyze-document';
import { parseDateValue } from '../index/date-value';
import { isNumericType, valuesAtPath } from '../index/indexed-fields';
import type { IndexReader, ReaderField } from './index-reader';
import type { RuntimeFieldCompiler } from './search-seams';

/**
 * Adapts helper "script-aggs"'s runtime fields (`compileRuntimeFields(mappings)` → fields with
 * `evaluate(doc, deadline)`) to the search engine's RuntimeFieldCompiler seam: `doc['f']` reads the
 * document's mapped values as doc values would hold them (keyword strings after the normalizer, numbers,
 * dates as epoch ms, booleans), sorted.
 */
export type DocValueKind = 'long' | 'double' | 'keyword' | 'boolean' | 'date';

export interface EngineDocumentValues {
  docValues(field: string): { type: DocValueKind; values: unknown[] } | undefined;
  source?: Record<string, unknown>;
}

export interface EngineRuntimeField {
  readonly type: string;
  evaluate(doc: EngineDocumentValues, deadline: number): (number | string | boolean)[];
}

export function adaptRuntimeFields(
  compile: (mappings: unknown) => ReadonlyMap<string, EngineRuntimeField>,
  budgetMs = 5000,
): RuntimeFieldCompiler {
  return {
    compile(runtimeMappings, readers) {
      const fields = compile(runtimeMappings);
      const byId = new Map(readers.map((r) => [r.indexId, r]));
      const deadline = Date.now() + budgetMs;
      return {
        types: new Map([...fields].map(([name, field]) => [name, field.type])),
        async valuesFor(indexId, source) {
          const reader = byId.get(indexId);
          const doc: EngineDocumentValues = {
            source,
            docValues: (path) => (reader ? docValuesOf(reader, path, source) : undefined),
          };
          const out = newDictionary<unknown[]>(); // keyed by runtime field name
          for (const [name, field] of fields) out[name] = field.evaluate(doc, deadline);
          return out;
        },
      };
    },
  };
}

function kindOf(field: ReaderField): DocValueKind | undefined {
  if (field.type === 'keyword') return 'keyword';
  if (field.type === 'boolean') return 'boolean';
  if (field.type === 'date') return 'date';
  if (['long', 'integer', 'short', 'byte'].includes(field.type)) return 'long';
  if (isNumericType(field.type)) return 'double';
  return undefined; // text has no doc values
}

function docValuesOf(
  reader: IndexReader,
  path: string,
  source: Record<string, unknown>,
): { type: DocValueKind; values: unknown[] } | undefined {
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
