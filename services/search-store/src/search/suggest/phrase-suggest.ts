import { analyze } from '../../analysis/analyzer';
import { countFieldTerms, findTotalTermFreqs } from '../../index/term-statistics-reader';
import type { IndexReader } from '../../query/index-reader';
import type { PhraseSuggester } from '../../query/parse/parse-phrase-suggester';
import type { Queryable } from '../../storage/queryable';
import { mappedField, suggestAnalyzer, suggestSimilar } from './term-suggest';

/**
 * The phrase suggester (ES PhraseSuggester → NoisyChannelSpellChecker) on one index. Each token
 * of the analysed text has a candidate set: itself (channel score real_word_error_likelihood) and
 * the corrections of the direct generators (channel score: their string distance). A path takes one
 * candidate per token with at most max_errors corrections; its score is
 * exp(Σ log10(channel × n-gram probability)) as CandidateScorer computes it, the n-gram
 * probability from the smoothing model (WordScorer: stupid_backoff by default, laplace) over the
 * field's total term frequencies. Paths scoring above confidence × the input's score are options.
 */
export interface PhraseOption {
  text: string;
  highlighted?: string;
  score: number;
}

interface Candidate {
  term: string;
  distance: number;
  userInput: boolean;
}

/** Most paths one suggestion scores (ES bounds the search by its pruning; we stop here). */
export const MAX_PHRASE_PATHS = 200_000;

export async function phraseSuggest(
  db: Queryable,
  reader: IndexReader,
  s: PhraseSuggester,
  text: string,
  maxDoc: number,
): Promise<PhraseOption[]> {
  const field = mappedField(reader, s.field);
  const tokens = analyze(suggestAnalyzer(reader, field, s.analyzer), text);
  if (tokens.length === 0 || tokens.length > s.tokenLimit || field.fieldId === undefined) return [];
  const fieldId = field.fieldId;
  const sets: Candidate[][] = [];
  for (const token of tokens) {
    const set = new Map<string, Candidate>([
      [token.term, { term: token.term, distance: 1, userInput: true }],
    ]);
    for (const generator of s.generators) {
      const generatorField = mappedField(reader, generator.field);
      for (const option of await suggestSimilar(db, reader, generatorField, generator, token.term, maxDoc)) {
        const seen = set.get(option.text);
        if (!seen || (!seen.userInput && seen.distance < option.score))
          set.set(option.text, { term: option.text, distance: option.score, userInput: false });
      }
    }
    sets.push([...set.values()]);
  }
  const gramSize = s.gramSize ?? 1;
  const grams = new Set<string>();
  sets.forEach((set, i) => {
    for (const c of set) {
      grams.add(c.term);
      if (gramSize >= 2 && i >= 1) for (const p of sets[i - 1]!) grams.add(p.term + s.separator + c.term);
      if (gramSize >= 3 && i >= 2)
        for (const p of sets[i - 1]!)
          for (const pp of sets[i - 2]!) grams.add(pp.term + s.separator + p.term + s.separator + c.term);
    }
  });
  const ttf = await findTotalTermFreqs(db, reader.indexId, fieldId, [...grams]);
  const freq = (gram: string) => ttf.get(gram) ?? 0;
  const vocabulary = field.sumTotalTermFreq;
  const numTerms = await countFieldTerms(db, reader.indexId, fieldId);
  const scorer = wordScorer(s, freq, vocabulary, numTerms);
  const scorePath = (path: Candidate[]): number => {
    let sum = 0;
    for (let i = 0; i < path.length; i++) {
      const c = path[i]!;
      const channel = c.distance === 1 ? s.realWordErrorLikelihood : c.distance;
      const ngram =
        i === 0 || gramSize === 1
          ? scorer.unigram(c.term)
          : i === 1 || gramSize === 2
            ? scorer.bigram(c.term, path[i - 1]!.term)
            : scorer.trigram(c.term, path[i - 1]!.term, path[i - 2]!.term);
      sum += Math.log10(channel * ngram);
    }
    return Math.exp(sum);
  };
  const cutoff = s.confidence > 0 ? scorePath(sets.map((set) => set[0]!)) * s.confidence : Number.MIN_VALUE;
  const maxErrors =
    s.maxErrors >= 1 ? Math.trunc(s.maxErrors) : Math.max(1, Math.round(tokens.length * s.maxErrors));
  const found: { path: Candidate[]; score: number }[] = [];
  let budget = MAX_PHRASE_PATHS;
  const walk = (i: number, path: Candidate[], errors: number): void => {
    if (budget <= 0) return;
    if (i === sets.length) {
      budget -= 1;
      const score = scorePath(path);
      if (score > cutoff) found.push({ path: [...path], score });
      return;
    }
    for (const c of sets[i]!) {
      const e = errors + (c.userInput ? 0 : 1);
      if (e > maxErrors) continue;
      path.push(c);
      walk(i + 1, path, e);
      path.pop();
    }
  };
  walk(0, [], 0);
  found.sort((a, b) => b.score - a.score);
  return found.slice(0, s.size).map(({ path, score }) => {
    const option: PhraseOption = { text: path.map((c) => c.term).join(' '), score };
    if (s.highlight) {
      const { preTag, postTag } = s.highlight;
      option.highlighted = path.map((c) => (c.userInput ? c.term : `${preTag}${c.term}${postTag}`)).join(' ');
    }
    return option;
  });
}

/** WordScorer's n-gram probabilities (StupidBackoffScorer, LaplaceScorer). */
function wordScorer(
  s: PhraseSuggester,
  freq: (gram: string) => number,
  vocabulary: number,
  numTerms: number,
): {
  unigram(w: string): number;
  bigram(w: string, w1: string): number;
  trigram(w: string, w1: string, w2: string): number;
} {
  const sep = s.separator;
  const smoothing = s.smoothing;
  if (smoothing.kind === 'laplace') {
    const { alpha } = smoothing;
    const unigram = (w: string) => (alpha + freq(w)) / (alpha * numTerms + vocabulary);
    return {
      unigram,
      bigram: (w, w1) => (alpha + freq(w1 + sep + w)) / (alpha * numTerms + freq(w1)),
      trigram: (w, w1, w2) =>
        (alpha + freq(w2 + sep + w1 + sep + w)) / (alpha * numTerms + freq(w2 + sep + w1)),
    };
  }
  const { discount } = smoothing;
  const unigram = (w: string) => (1 + freq(w)) / (vocabulary + numTerms);
  const bigram = (w: string, w1: string) => {
    const count = freq(w1 + sep + w);
    return count < 1 ? discount * unigram(w) : count / (freq(w1) + 0.00000000001);
  };
  return {
    unigram,
    bigram,
    trigram: (w, w1, w2) => {
      const count = freq(w2 + sep + w1 + sep + w);
      return count < 1 ? discount * bigram(w, w1) : count / (freq(w2 + sep + w1) + 0.00000000001);
    },
  };
}
