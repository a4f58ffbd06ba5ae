import { isStandardLowercase } from '../analysis/analyzer';
import { isAscii, MAX_TOKEN_LENGTH, scanAsciiWords } from '../analysis/standard-tokenizer';
import type { Token } from '../analysis/token';
import type { IndexMapping } from '../mapping/mapping-types';
import { intToByte4 } from './small-float';
import { contribute, indexedValues, textAnalyzer, type FieldContribution } from './analyze-document';
import { listIndexedFields, type IndexedField } from './indexed-fields';
import { IntList } from './int-list';
import { TermHash } from './term-hash';
import { listNestedPaths, scopesOf, type NestedPath } from '../mapping/nested-mapping';
import { nestedObjectsOf, type NestedObject } from './nested-documents';

/**
 * A batch of documents analysed into what the writer stores, before it has doc keys, field ids or
 * term ids: documents are ordinals (their order in the batch), fields and terms batch-local numbers.
 * Everything per posting or per token is in flat int arrays.
 */
export interface AnalyzedBatch {
  docCount: number;
  /** The fields the batch uses, by field ordinal. */
  fields: { path: string; type: string }[];
  /** The batch dictionary: term t belongs to field ordinal termField[t]. */
  termField: Int32Array;
  termText: string[];
  docFreq: Int32Array;
  totalTermFreq: Int32Array;
  /** Postings grouped by term: term t's are [postingStart[t], postingStart[t + 1]), ascending doc ordinal. */
  postingStart: Int32Array;
  postingDoc: Int32Array;
  postingFreq: Int32Array;
  postingNorm: Int32Array;
  /** Token streams (doc_tokens rows), stream s's tokens are [streamStart[s], streamStart[s + 1]): term + 1, 0 for a gap. */
  streamDoc: Int32Array;
  streamField: Int32Array;
  streamStart: Int32Array;
  streamTokens: Int32Array;
  /** The field length of each stream: tokens for text, distinct terms for keyword (what BM25's norm encodes). */
  streamLength: Int32Array;
  /** field_stats deltas by field ordinal. */
  statDocCount: number[];
  statSumTotalTermFreq: number[];
  /** doc_values rows: a number or a keyword each. */
  valueDoc: Int32Array;
  valueField: Int32Array;
  valueNum: (number | null)[];
  valueKw: (string | null)[];
  /**
   * The documents' nested objects, ordinals `rootCount` and up (after every document of the batch,
   * so doc keys drawn for them later still ascend with the ordinal): each one's path, offset and the
   * ordinal of the document or nested object it sits in (index/nested-documents.ts).
   */
  rootCount: number;
  nested: { parent: number; path: string; offset: number }[];
}

/**
 * What a batch's documents added since the previous part brought (BatchAnalyzer#part): the fields and
 * terms first met in them (batch-local numbers from `firstField` and `firstTerm` on) and their token
 * streams (`streamStart` from 0 into this part's `streamTokens`; a token is a batch term + 1, 0 a gap).
 * The writer looks the new terms up and writes the streams while the next part is analysed.
 */
export interface AnalyzedPart {
  firstField: number;
  fields: { path: string; type: string }[];
  firstTerm: number;
  termField: Int32Array;
  termText: string[];
  streamDoc: Int32Array;
  streamField: Int32Array;
  streamStart: Int32Array;
  streamTokens: Int32Array;
  streamLength: Int32Array;
  /**
   * The part's doc_values rows (AnalyzedBatch's valueDoc… from `firstValue` on): they need no term id,
   * so the writer sends them with the part instead of after the batch.
   */
  firstValue: number;
  valueDoc: Int32Array;
  valueField: Int32Array;
  valueNum: (number | null)[];
  valueKw: (string | null)[];
}

/** Lucene's position_increment_gap between the values of a multi-valued text field. */
const POSITION_INCREMENT_GAP = 100;

export interface BatchAnalyzerOptions {
  /**
   * Text fields analysed by the standard analyzer (standard tokenizer + lowercase) are tokenised and
   * interned in one pass over ASCII values, no Token objects or strings per token (default). Off, every
   * text goes through `analyzeValues`: the tests hold the two to the same output.
   */
  fusedAscii?: boolean;
}

/** Analyses documents one at a time (so a caller can spread a batch over several turns of the event loop). */
export class BatchAnalyzer {
  private readonly indexed: IndexedField[];
  private readonly fusedAscii: boolean;
  private docCount = 0;
  private readonly fieldOrdinals = new Map<string, number>();
  private readonly fields: { path: string; type: string }[] = [];
  private readonly terms = new TermHash();
  private readonly docFreq = new IntList();
  /** Per term, the document of its latest posting and that posting's index. */
  private readonly lastDoc = new IntList();
  private readonly lastPosting = new IntList();
  /** Postings in document order, regrouped by term in finish(). */
  private readonly postingTerm = new IntList(16_384);
  private readonly postingDoc = new IntList(16_384);
  private readonly postingFreq = new IntList(16_384);
  private readonly postingNorm = new IntList(16_384);
  private readonly streamDoc = new IntList();
  private readonly streamField = new IntList();
  private readonly streamStart = new IntList();
  private readonly streamTokens = new IntList(65_536);
  private readonly streamLength = new IntList();
  private readonly statDocCount: number[] = [];
  private readonly statSumTotalTermFreq: number[] = [];
  private readonly valueDoc = new IntList();
  private readonly valueField = new IntList();
  private readonly valueNum: (number | null)[] = [];
  private readonly valueKw: (string | null)[] = [];
  /** Scratch for the fused path: word offsets in pairs, and where each value's words end. */
  private readonly words = new IntList(4096);
  private readonly valueEnds = new IntList(16);
  /** Fields by the nested scope ('' = root document) whose documents index them. */
  private readonly scoped = new Map<string, IndexedField[]>();
  private readonly nestedPaths: NestedPath[];
  /** Nested objects seen so far, analysed after the last document (finish). */
  private readonly pending: { root: number; objects: NestedObject[] }[] = [];
  /** Where the previous part ended: fields, terms and streams counted so far. */
  private partFields = 0;
  private partTerms = 0;
  private partStreams = 0;
  private partValues = 0;

  constructor(
    mappings: IndexMapping,
    private readonly settings: Record<string, unknown>,
    options: BatchAnalyzerOptions = {},
  ) {
    this.indexed = listIndexedFields(mappings);
    this.fusedAscii = options.fusedAscii ?? true;
    this.nestedPaths = listNestedPaths(mappings);
    for (const field of this.indexed) {
      for (const scope of scopesOf(field.nested ?? '', this.nestedPaths)) {
        const list = this.scoped.get(scope) ?? [];
        list.push(field);
        this.scoped.set(scope, list);
      }
    }
  }

  /** Adds the next document (ordinal = the number added before it). */
  add(source: Record<string, unknown>): void {
    const doc = this.docCount++;
    this.addFields(doc, '', source);
    if (this.nestedPaths.length > 0) {
      const objects = nestedObjectsOf(this.nestedPaths, source);
      if (objects.length > 0) this.pending.push({ root: doc, objects });
    }
  }

  /** The nested objects, as documents after the batch's last one (ordinals ascend with their doc keys). */
  private addNested(): { rootCount: number; nested: AnalyzedBatch['nested'] } {
    const rootCount = this.docCount;
    const nested: AnalyzedBatch['nested'] = [];
    for (const { root, objects } of this.pending) {
      const first = this.docCount;
      for (const object of objects) {
        const doc = this.docCount++;
        nested.push({
          parent: object.parent === -1 ? root : first + object.parent,
          path: object.path,
          offset: object.offset,
        });
        this.addFields(doc, object.path, object.source);
      }
    }
    this.pending.length = 0;
    return { rootCount, nested };
  }

  private addFields(doc: number, scope: string, source: Record<string, unknown>): void {
    for (const field of this.scoped.get(scope) ?? []) {
      const values = indexedValues(field, source);
      if (values === undefined) continue;
      if (
        this.fusedAscii &&
        field.type === 'text' &&
        isStandardLowercase(textAnalyzer(field, this.settings))
      ) {
        const texts = values.map(String);
        if (texts.every(isAscii)) {
          this.addAsciiText(doc, field, texts);
          continue;
        }
      }
      const c = contribute(field, values, this.settings);
      if (c) this.addContribution(doc, c);
    }
  }

  /**
   * The fields, terms, token streams and doc values of the documents added since the previous call
   * (the first call: since the start). Nested objects are analysed in finish() only: a writer of parts takes
   * mappings without nested paths.
   */
  part(): AnalyzedPart {
    const firstField = this.partFields;
    const firstTerm = this.partTerms;
    const firstStream = this.partStreams;
    const firstValue = this.partValues;
    this.partValues = this.valueDoc.length;
    this.partFields = this.fields.length;
    this.partTerms = this.terms.size;
    this.partStreams = this.streamDoc.length;
    const tokenFrom =
      firstStream < this.streamStart.length ? this.streamStart.at(firstStream) : this.streamTokens.length;
    const streams = this.partStreams - firstStream;
    const streamStart = new Int32Array(streams + 1);
    for (let s = 0; s < streams; s++) streamStart[s] = this.streamStart.at(firstStream + s) - tokenFrom;
    streamStart[streams] = this.streamTokens.length - tokenFrom;
    return {
      firstField,
      fields: this.fields.slice(firstField),
      firstTerm,
      termField: this.terms.fields().slice(firstTerm, this.partTerms),
      termText: this.terms.texts.slice(firstTerm),
      streamDoc: this.streamDoc.view().slice(firstStream),
      streamField: this.streamField.view().slice(firstStream),
      streamStart,
      streamTokens: this.streamTokens.view().slice(tokenFrom),
      streamLength: this.streamLength.view().slice(firstStream),
      firstValue,
      valueDoc: this.valueDoc.view().slice(firstValue),
      valueField: this.valueField.view().slice(firstValue),
      valueNum: this.valueNum.slice(firstValue),
      valueKw: this.valueKw.slice(firstValue),
    };
  }

  finish(): AnalyzedBatch {
    const { rootCount, nested } = this.addNested();
    const terms = this.terms.size;
    // Counting sort of the postings by term, stable, so each term's run stays in document order.
    const postingStart = new Int32Array(terms + 1);
    for (let t = 0; t < terms; t++) postingStart[t + 1] = postingStart[t]! + this.docFreq.at(t);
    const next = postingStart.slice(0, terms);
    const count = this.postingTerm.length;
    const postingDoc = new Int32Array(count);
    const postingFreq = new Int32Array(count);
    const postingNorm = new Int32Array(count);
    const totalTermFreq = new Int32Array(terms);
    for (let p = 0; p < count; p++) {
      const term = this.postingTerm.at(p);
      totalTermFreq[term] = totalTermFreq[term]! + this.postingFreq.at(p);
      const at = next[term]!++;
      postingDoc[at] = this.postingDoc.at(p);
      postingFreq[at] = this.postingFreq.at(p);
      postingNorm[at] = this.postingNorm.at(p);
    }
    const streamStart = new Int32Array(this.streamStart.length + 1);
    streamStart.set(this.streamStart.view());
    streamStart[this.streamStart.length] = this.streamTokens.length;
    return {
      docCount: this.docCount,
      fields: this.fields,
      termField: this.terms.fields().slice(),
      termText: this.terms.texts,
      docFreq: this.docFreq.view().slice(),
      totalTermFreq,
      postingStart,
      postingDoc,
      postingFreq,
      postingNorm,
      streamDoc: this.streamDoc.view().slice(),
      streamField: this.streamField.view().slice(),
      streamStart,
      streamTokens: this.streamTokens.view().slice(),
      streamLength: this.streamLength.view().slice(),
      statDocCount: this.statDocCount,
      statSumTotalTermFreq: this.statSumTotalTermFreq,
      valueDoc: this.valueDoc.view().slice(),
      valueField: this.valueField.view().slice(),
      valueNum: this.valueNum,
      valueKw: this.valueKw,
      rootCount,
      nested,
    };
  }

  private addContribution(doc: number, c: FieldContribution): void {
    const field = this.fieldOrdinal(c.path, c.type);
    if (c.tokens) this.addTokens(doc, field, c.tokens, c.norm);
    else if (c.terms) this.addKeywords(doc, field, c.terms);
    else if (c.features) this.addFeatures(doc, field, c.features);
    this.addStats(field, c.length);
    for (const num of c.numbers) this.addValue(doc, field, num, null);
    for (const kw of c.keywords) this.addValue(doc, field, null, kw);
  }

  /**
   * A text field under the standard analyzer whose values are all ASCII, fused: each value lowercased
   * once, then the standard tokenizer's ASCII word boundaries (`scanAsciiWords`), pieces of
   * max_token_length and the term lookup over its code units, with no string per token. Positions as
   * `analyzeValues` gives them: one per token, a gap of 100 between values.
   */
  private addAsciiText(doc: number, field: IndexedField, texts: string[]): void {
    const { words, valueEnds } = this;
    // IntLists reset by count keep their storage; `array.length = 0` dropped an array's, which then
    // grew again, as garbage, for every value.
    words.length = 0;
    valueEnds.length = 0;
    let count = 0;
    for (let v = 0; v < texts.length; v++) {
      // Lowercased once, natively: for ASCII, `toLowerCase` maps A–Z to a–z only, so offsets and the
      // word boundaries (letters of either case are one class) are the same as in the value.
      const text = texts[v]!.toLowerCase();
      texts[v] = text;
      const from = words.length;
      scanAsciiWords(text, words);
      for (let w = from; w < words.length; w += 2)
        count += Math.ceil((words.at(w + 1) - words.at(w)) / MAX_TOKEN_LENGTH);
      valueEnds.push(words.length);
    }
    if (count === 0) return;
    const f = this.fieldOrdinal(field.path, field.type);
    const norm = intToByte4(count);
    this.startStream(doc, f, count);
    let position = 0; // the next position of the stream
    let base = 0; // the first position of the current value
    let w = 0;
    for (let v = 0; v < texts.length; v++) {
      const text = texts[v]!;
      if (v > 0) base += POSITION_INCREMENT_GAP;
      let p = base;
      for (; w < valueEnds.at(v); w += 2) {
        const end = words.at(w + 1);
        for (let start = words.at(w); start < end; start += MAX_TOKEN_LENGTH) {
          const term = this.counted(
            this.terms.internSlice(f, text, start, Math.min(end, start + MAX_TOKEN_LENGTH)),
          );
          while (position < p) {
            this.streamTokens.push(0);
            position++;
          }
          this.streamTokens.push(term + 1);
          position++;
          p++;
          this.addOccurrence(doc, term, norm);
        }
      }
      base = p;
    }
    this.addStats(f, count);
  }

  /** field_stats: one more document with the field, `length` more tokens, terms or values. */
  private addStats(field: number, length: number): void {
    this.statDocCount[field]! += 1;
    this.statSumTotalTermFreq[field]! += length;
  }

  private fieldOrdinal(path: string, type: string): number {
    let field = this.fieldOrdinals.get(path);
    if (field === undefined) {
      field = this.fields.length;
      this.fieldOrdinals.set(path, field);
      this.fields.push({ path, type });
      this.statDocCount.push(0);
      this.statSumTotalTermFreq.push(0);
    }
    return field;
  }

  /** A text field's tokens: a posting per distinct term, and the token stream (term at each position). */
  private addTokens(doc: number, field: number, tokens: readonly Token[], norm: number): void {
    const at = this.startStream(doc, field, tokens.length);
    // Positions ascend; gaps (removed stop words, between the values of an array) hold 0.
    const size = tokens[tokens.length - 1]!.position + 1;
    for (let i = 0; i < size; i++) this.streamTokens.push(0);
    for (const token of tokens) {
      const term = this.counted(this.terms.intern(field, token.term));
      this.streamTokens.set(at + token.position, term + 1);
      this.addOccurrence(doc, term, norm);
    }
  }

  /** A keyword field's distinct values: a posting each (norm 1), and the stream in source order. */
  private addKeywords(doc: number, field: number, terms: readonly string[]): void {
    this.startStream(doc, field, terms.length);
    for (const text of terms) {
      const term = this.counted(this.terms.intern(field, text));
      this.streamTokens.push(term + 1);
      this.addOccurrence(doc, term, 1);
    }
  }

  /** A sparse_vector's tokens: a posting each whose freq is the encoded weight (sparse-features.ts). */
  private addFeatures(doc: number, field: number, features: readonly (readonly [string, number])[]): void {
    this.startStream(doc, field, features.length);
    for (const [text, freq] of features) {
      const term = this.counted(this.terms.intern(field, text));
      this.streamTokens.push(term + 1);
      this.addOccurrence(doc, term, 1);
      this.postingFreq.set(this.lastPosting.at(term), freq);
    }
  }

  private startStream(doc: number, field: number, length: number): number {
    this.streamDoc.push(doc);
    this.streamField.push(field);
    this.streamLength.push(length);
    this.streamStart.push(this.streamTokens.length);
    return this.streamTokens.length;
  }

  /** A term number from the TermHash, with per-term counters from its first occurrence on. */
  private counted(term: number): number {
    if (term === this.docFreq.length) {
      this.docFreq.push(0);
      this.lastDoc.push(-1);
      this.lastPosting.push(-1);
    }
    return term;
  }

  /** One occurrence of a term in a document's field: a new posting, or one more freq on the last. */
  private addOccurrence(doc: number, term: number, norm: number): void {
    if (this.lastDoc.at(term) === doc) {
      const posting = this.lastPosting.at(term);
      this.postingFreq.set(posting, this.postingFreq.at(posting) + 1);
    } else {
      this.lastDoc.set(term, doc);
      this.lastPosting.set(term, this.postingTerm.length);
      this.docFreq.set(term, this.docFreq.at(term) + 1);
      this.postingTerm.push(term);
      this.postingDoc.push(doc);
      this.postingFreq.push(1);
      this.postingNorm.push(norm);
    }
  }

  private addValue(doc: number, field: number, num: number | null, kw: string | null): void {
    this.valueDoc.push(doc);
    this.valueField.push(field);
    this.valueNum.push(num);
    this.valueKw.push(kw);
  }
}

/** Analyses a whole batch at once. */
export function analyzeBatch(
  mappings: IndexMapping,
  settings: Record<string, unknown>,
  sources: Record<string, unknown>[],
  options: BatchAnalyzerOptions = {},
): AnalyzedBatch {
  const analyzer = new BatchAnalyzer(mappings, settings, options);
  for (const source of sources) analyzer.add(source);
  return analyzer.finish();
}
