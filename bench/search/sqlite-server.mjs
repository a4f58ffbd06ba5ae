// The SQLite FTS5 peer (issue 23) behind a small node:http server, run as a child process of run.mjs so
// that it pays HTTP and JSON as search-store does, on its own core time. Env: SQLITE_FILE, PORT,
// SQLITE_CACHE_MB.
//
// The recipe SQLite's FTS5 documentation gives for an indexed table of rows: an ordinary `docs` table and
// an external-content FTS5 table over its title and body (`content='docs'`, so the text is stored once),
// kept in step by an AFTER INSERT trigger; tokenizer unicode61 (lower-cased, Unicode-aware words, no
// stemming: the closest to Elasticsearch's standard analyzer); WAL journal, synchronous off (as the
// testkit's Postgres runs with fsync off); a page cache of SQLITE_CACHE_MB (run.mjs gives it Postgres's
// shared_buffers, so both peers hold the same memory); ranking by `bm25()` (FTS5's built-in `rank`).
//
// Routes (JSON bodies):
//   POST /bulk    NDJSON, one document a line: inserted in one transaction
//   POST /search  {words, operator: 'or'|'and', size}: the top `size` of `body : (w1 OR w2 …)` by bm25
//   POST /agg     the terms + avg aggregation as SQL: count and avg(words) GROUP BY category
//   POST /size    checkpoints the WAL into the database file and answers its size in bytes
import { createServer } from 'node:http';
import { statSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Database = require('better-sqlite3');

const file = process.env.SQLITE_FILE;
const db = new Database(file);
db.pragma('journal_mode = WAL');
db.pragma('synchronous = OFF');
if (process.env.SQLITE_CACHE_MB) db.pragma(`cache_size = -${Number(process.env.SQLITE_CACHE_MB) * 1024}`);
db.exec(`
  CREATE TABLE IF NOT EXISTS docs (
    rowid INTEGER PRIMARY KEY, id TEXT NOT NULL UNIQUE, title TEXT, body TEXT, category TEXT,
    words INTEGER, year INTEGER);
  CREATE VIRTUAL TABLE IF NOT EXISTS fts USING fts5(
    title, body, content='docs', content_rowid='rowid', tokenize='unicode61');
  CREATE TRIGGER IF NOT EXISTS docs_ai AFTER INSERT ON docs BEGIN
    INSERT INTO fts (rowid, title, body) VALUES (new.rowid, new.title, new.body);
  END;
`);

const insert = db.prepare(
  'INSERT INTO docs (id, title, body, category, words, year) VALUES (@id, @title, @body, @category, @words, @year)',
);
const insertAll = db.transaction((documents) => {
  for (const document of documents) insert.run(document);
});
const search = db.prepare(
  'SELECT d.id, fts.rank AS score FROM fts JOIN docs d ON d.rowid = fts.rowid WHERE fts MATCH ? ORDER BY fts.rank LIMIT ?',
);
const agg = db.prepare(
  'SELECT category, count(*) AS doc_count, avg(words) AS words FROM docs GROUP BY category ORDER BY doc_count DESC',
);

/** FTS5 query syntax: each word a quoted string, so no word is read as an operator (`AND`, `NOT`, `NEAR`). */
const ftsQuery = (words, operator) =>
  `body : (${words
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => `"${w.replace(/"/g, '""')}"`)
    .join(operator === 'and' ? ' AND ' : ' OR ')})`;

async function readBody(req) {
  const chunks = [];
  for await (const chunk of req) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

function send(res, status, body) {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

const server = createServer(async (req, res) => {
  try {
    const text = await readBody(req);
    if (req.method === 'GET' && req.url === '/health') return send(res, 200, { ok: true });
    if (req.method !== 'POST') return send(res, 405, { error: 'POST only' });
    switch (req.url) {
      case '/bulk': {
        const documents = text
          .split('\n')
          .filter(Boolean)
          .map((line) => JSON.parse(line));
        insertAll(documents);
        return send(res, 200, { items: documents.length });
      }
      case '/search': {
        const { words, operator, size } = JSON.parse(text);
        const hits = search.all(ftsQuery(words, operator), size ?? 10);
        return send(res, 200, { hits });
      }
      case '/agg':
        return send(res, 200, { buckets: agg.all() });
      case '/size': {
        db.pragma('wal_checkpoint(TRUNCATE)');
        const bytes = ['', '-wal', '-shm'].reduce((sum, suffix) => {
          try {
            return sum + statSync(`${file}${suffix}`).size;
          } catch {
            return sum;
          }
        }, 0);
        return send(res, 200, { bytes });
      }
      default:
        return send(res, 404, { error: req.url });
    }
  } catch (error) {
    send(res, 500, { error: String(error) });
  }
});
server.keepAliveTimeout = 60_000;
server.listen(Number(process.env.PORT), '127.0.0.1');
process.on('SIGTERM', () => {
  db.close();
  process.exit(0);
});
