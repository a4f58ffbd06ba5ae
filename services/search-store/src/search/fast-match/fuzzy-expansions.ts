import type { Pool, PoolClient } from 'pg';
import { scanTermTextsOfPath } from '../../index/term-dictionary-reader';
import { expandFuzzy } from '../../query/compile/compile-fuzzy';
import type { ScoredTerm } from '../../query/compile/multi-term-rewrite';
import { fuzzinessEdits } from '../../query/parse/parse-fuzziness';

/**
 * The dictionary terms each fuzzy term of a fast plan expands to (compile-fuzzy.ts expandFuzzy, the
 * same walk the SQL path makes), read before the plan: planning asks, records what it lacks, and
 * plans again once `load` has read them. Keyed by index, field, term and the fuzzy options.
 */
export interface FuzzyTermOptions {
  fuzziness: string;
  prefixLength: number;
  transpositions: boolean;
}

export class FuzzyExpansions {
  private readonly found = new Map<string, ScoredTerm[]>();
  private readonly wanted = new Map<
    string,
    { indexId: string; path: string; term: string; options: FuzzyTermOptions }
  >();

  /** The expansions, or undefined (recorded as wanted) when they still have to be read. */
  get(indexId: string, path: string, term: string, options: FuzzyTermOptions): ScoredTerm[] | undefined {
    // FuzzyQuery.getTermsEnum: no edits, or a prefix covering the term, is the term alone.
    if (fuzzinessEdits(options.fuzziness, term) === 0 || options.prefixLength >= term.length)
      return [{ term, boost: 1 }];
    const key = [indexId, path, term, options.fuzziness, options.prefixLength, options.transpositions].join(
      '\u0000',
    );
    const found = this.found.get(key);
    if (!found) this.wanted.set(key, { indexId, path, term, options });
    return found;
  }

  get missing(): number {
    return this.wanted.size;
  }

  async load(db: Pool | PoolClient): Promise<void> {
    for (const [key, { indexId, path, term, options }] of this.wanted) {
      this.found.set(
        key,
        await expandFuzzy((page) => scanTermTextsOfPath(db, indexId, path, page), path, term, options),
      );
    }
    this.wanted.clear();
  }
}
