import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

/**
 * The index's physical tables are named only in src/index/ (its readers and writers) and
 * src/storage/ (migrations, repos): query/, aggs/ and the rest get relations and rows from index/,
 * so that changing the posting format edits one folder (issue 19).
 */
const SRC = join(__dirname, '..', '..', 'src');
const MIGRATIONS = join(SRC, 'storage', 'migrations');
const ALLOWED = ['index', 'storage'];

/** Names no other code has a reason to write, not even in a comment. */
const DISTINCT_NAMES = [
  'posting_blocks',
  'doc_tokens',
  'doc_values',
  'doc_value_columns',
  'field_stats',
  'field_lengths',
  'term_dictionary',
  'nested_docs',
];
/** Relations whose names are also ordinary words: flagged only where SQL names a relation. */
const WORD_NAMES = ['terms', 'postings', 'fields'];

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return walk(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/**
 * `doc_values` is also an Elasticsearch mapping parameter (`"doc_values": false`), not the table: as a
 * quoted name (the list of parameters) or a typed optional property (FieldMapping).
 */
function withoutMappingParameter(text: string): string {
  return text
    .replace(/'doc_values'/g, "'<mapping parameter>'")
    .replace(/\bdoc_values\?: boolean/g, 'docValues?: boolean');
}

function findTableNames(text: string): { line: number; name: string }[] {
  const found: { line: number; name: string }[] = [];
  const distinct = new RegExp(`\\b(${DISTINCT_NAMES.join('|')})\\b`, 'g');
  const sql = new RegExp(`\\b(?:FROM|JOIN|INTO|UPDATE|TABLE|VIEW)\\s+(${WORD_NAMES.join('|')})\\b`, 'g');
  const cleaned = withoutMappingParameter(text);
  for (const pattern of [distinct, sql]) {
    for (const match of cleaned.matchAll(pattern)) {
      found.push({ line: cleaned.slice(0, match.index).split('\n').length, name: match[1]! });
    }
  }
  return found;
}

describe('index tables layout', () => {
  it('names the index tables only in src/index and src/storage', () => {
    const offenders = walk(SRC)
      .filter((file) => !ALLOWED.includes(relative(SRC, file).split(sep)[0]!))
      .flatMap((file) =>
        findTableNames(readFileSync(file, 'utf8')).map(
          ({ line, name }) => `${relative(SRC, file)}:${line} names ${name}`,
        ),
      );
    expect(offenders).toEqual([]);
  });

  it('checks the names the migrations create, so a renamed table cannot slip past it', () => {
    const migrations = readdirSync(MIGRATIONS)
      .map((file) => readFileSync(join(MIGRATIONS, file), 'utf8'))
      .join('\n');
    for (const name of [...DISTINCT_NAMES, ...WORD_NAMES]) {
      expect({
        name,
        created: new RegExp(`(CREATE (TABLE|VIEW)|RENAME TO) ${name}\\b`).test(migrations),
      }).toEqual({
        name,
        created: true,
      });
    }
  });

  it('flags SQL naming a table and leaves prose and the doc_values mapping parameter alone', () => {
    expect(findTableNames('`SELECT doc_key FROM doc_values WHERE index_id = $1`')).toEqual([
      { line: 1, name: 'doc_values' },
    ]);
    expect(findTableNames('x\n`SELECT 1 FROM terms t\n JOIN postings p ON true`')).toEqual([
      { line: 2, name: 'terms' },
      { line: 3, name: 'postings' },
    ]);
    expect(
      findTableNames('// scored from the postings of the terms\ninterface M { doc_values?: boolean }'),
    ).toEqual([]);
    expect(findTableNames("const PARAMETERS = ['index', 'doc_values'];")).toEqual([]);
    expect(findTableNames('// aggregations in SQL over doc_values: one query')).toEqual([
      { line: 1, name: 'doc_values' },
    ]);
  });
});
