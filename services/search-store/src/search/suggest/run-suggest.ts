import { newDictionary } from '@acme/common';
import type { IndexReader } from '../../query/index-reader';
import type { Suggestion } from '../../query/parse/parse-suggest';
import { formatFloat } from '../../query/score/bm25';
import { countDocuments } from '../../storage/documents.repo';
import type { Queryable } from '../../storage/queryable';
import type { CompletionSuggester } from '../../query/parse/parse-completion-suggester';
import { completionSuggest, type CompletionOption } from './completion-suggest';
import { phraseSuggest, type PhraseOption } from './phrase-suggest';
import { compareOptions, shardIllegal, termSuggest, type TermEntry } from './term-suggest';

/**
 * The `suggest` section of a search response (ES SuggestPhase, then Suggest.reduce): each named
 * suggestion runs on every searched index (one shard each) and the per-index entries are merged
 * position by position, options of the same text merged (freq summed, the best score kept: ES
 * TermSuggestion.Entry.Option.mergeInto), sorted and cut to `size`.
 */
export async function runSuggest(
  db: Queryable,
  readers: IndexReader[],
  suggestions: Suggestion[],
): Promise<Record<string, unknown[]>> {
  const out = newDictionary<unknown[]>(); // keyed by the request's suggestion names
  if (suggestions.length === 0) return out;
  const maxDocs = await countDocuments(
    db,
    readers.map((r) => r.indexId),
  );
  for (const suggestion of suggestions) {
    // SuggestBuilder.build: a suggestion without its own text takes the global one, else fails.
    if (suggestion.text === undefined) throw shardIllegal('The required text option is missing');
    const s = suggestion.suggester;
    if (s.kind === 'completion') {
      out[suggestion.name] = await runCompletion(db, readers, suggestion, s);
      continue;
    }
    if (s.kind === 'phrase') {
      const byText = new Map<string, PhraseOption>();
      for (const reader of readers) {
        const found = await phraseSuggest(db, reader, s, suggestion.text, maxDocs.get(reader.indexId) ?? 0);
        for (const option of found) {
          const seen = byText.get(option.text);
          if (!seen || seen.score < option.score) byText.set(option.text, option);
        }
      }
      const options = [...byText.values()]
        .sort((a, b) => b.score - a.score)
        .slice(0, s.size)
        .map((o) => ({ ...o, score: formatFloat(Math.fround(o.score)) }));
      const text = suggestion.text;
      out[suggestion.name] = [{ text, offset: 0, length: text.length, options }];
      continue;
    }
    const perIndex: TermEntry[][] = [];
    for (const reader of readers)
      perIndex.push(await termSuggest(db, reader, s, suggestion.text, maxDocs.get(reader.indexId) ?? 0));
    out[suggestion.name] = mergeTermEntries(perIndex, s.size, compareOptions(s.sort));
  }
  return out;
}

function mergeTermEntries(
  perIndex: TermEntry[][],
  size: number,
  compare: ReturnType<typeof compareOptions>,
): TermEntry[] {
  const first = perIndex[0] ?? [];
  return first.map((entry, i) => {
    const byText = new Map<string, { text: string; score: number; freq: number }>();
    for (const entries of perIndex) {
      for (const option of entries[i]?.options ?? []) {
        const seen = byText.get(option.text);
        if (seen) {
          seen.freq += option.freq;
          seen.score = Math.max(seen.score, option.score);
        } else byText.set(option.text, { ...option });
      }
    }
    const options = [...byText.values()]
      .sort(compare)
      .slice(0, size)
      .map((o) => ({ text: o.text, score: formatFloat(o.score), freq: o.freq }));
    return { text: entry.text, offset: entry.offset, length: entry.length, options };
  });
}

/** CompletionSuggestion.reduce: the indices' options by score, duplicates of text dropped if asked, `size` kept. */
async function runCompletion(
  db: Queryable,
  readers: IndexReader[],
  suggestion: Suggestion,
  s: CompletionSuggester,
): Promise<unknown[]> {
  const text = suggestion.text!;
  const all: CompletionOption[] = [];
  for (const reader of readers)
    all.push(...(await completionSuggest(db, reader, s, suggestion.prefix ?? text, suggestion.regex)));
  all.sort((a, b) => b._score - a._score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const seen = new Set<string>();
  const options = [];
  for (const option of all) {
    if (options.length >= s.size) break;
    if (s.skipDuplicates && seen.has(option.text)) continue;
    seen.add(option.text);
    const { key: _key, ...rendered } = option;
    options.push(rendered);
  }
  return [{ text, offset: 0, length: text.length, options }];
}
