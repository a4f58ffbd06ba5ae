import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

// Issue 19: api/ holds routes only (parse the request, call one use case, render). SQL belongs in
// storage/*.repo.ts and index/, reached through the use cases in catalog/, write/ and search/.
const API_DIR = join(__dirname, '../../src/api');

/** What a file may not contain: a statement run, or SQL text in code (comments are prose). */
const SQL_PATTERNS: [string, RegExp][] = [
  ['a .query( call', /\.query\s*(<[^>]*>)?\s*\(/],
  ['SELECT … FROM', /\bSELECT\b[\s\S]{0,400}?\bFROM\b/],
  ['INSERT INTO', /\bINSERT\s+INTO\b/],
  ['UPDATE … SET', /\bUPDATE\s+\w+(\s+\w+)?\s+SET\b/],
  ['DELETE FROM', /\bDELETE\s+FROM\b/],
  ['COPY … FROM STDIN', /\bFROM\s+STDIN\b/],
];

function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}

function findSql(source: string): string[] {
  const code = withoutComments(source);
  return SQL_PATTERNS.filter(([, pattern]) => pattern.test(code)).map(([what]) => what);
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return tsFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

describe('search-store layout', () => {
  it.each([
    ["await db.query('SELECT 1')", ['a .query( call']],
    ['client.query<{ doc_key: string }>(sql, [id])', ['a .query( call']],
    ["const sql = 'SELECT settings, mappings FROM indices WHERE name = $1';", ['SELECT … FROM']],
    ['`INSERT INTO documents (id) VALUES ($1)`', ['INSERT INTO']],
    ["'UPDATE documents d SET source = $1'", ['UPDATE … SET']],
    ["'DELETE FROM aliases WHERE alias = $1'", ['DELETE FROM']],
    ["'COPY documents (id) FROM STDIN'", ['COPY … FROM STDIN']],
    ['const flat = isTruthyParam(req.query.flat_settings);', []],
    ['// copies with one INSERT … SELECT inside Postgres\nconst x = 1;', []],
    ['/** runs SELECT doc_key FROM documents */\nconst x = 1;', []],
  ])('finds SQL in %j', (source, found) => {
    expect(findSql(source)).toEqual(found);
  });

  it('runs no SQL in api/: routes call use cases, which call repos', () => {
    const offenders = tsFiles(API_DIR)
      .map((path) => ({ file: relative(API_DIR, path), found: findSql(readFileSync(path, 'utf8')) }))
      .filter(({ found }) => found.length > 0);
    expect(offenders).toEqual([]);
  });
});
