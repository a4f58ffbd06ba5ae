import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * ES "Completion suggester" and the completion field type through the official client and raw HTTP,
 * on real Postgres: inputs with weights, prefix, fuzzy and regex suggestions, one option per
 * document, skip_duplicates, and entries that follow their documents' updates and deletes.
 */
describe('completion field and suggester', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'music';
  const suggest = async (completion: Json, extra: Json = {}) => {
    const response = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      suggest: { s: { ...extra, completion: { field: 'suggest', ...completion } } },
    });
    return { status: response.status, body: response.json as Json };
  };
  const texts = (body: Json) => body.suggest.s[0].options.map((o: Json) => `${o.text}:${o._score}`);
  beforeAll(async () => {
    await es().indices.create({
      index,
      mappings: { properties: { suggest: { type: 'completion' }, title: { type: 'keyword' } } },
    });
    await es().bulk({
      index,
      refresh: true,
      operations: [
        { index: { _id: '1' } },
        { title: 'Nevermind', suggest: { input: ['Nevermind', 'Nirvana'], weight: 34 } },
        { index: { _id: '2' } },
        {
          title: 'Nevada',
          suggest: [
            { input: 'Nevada', weight: 10 },
            { input: 'Nevada Smith', weight: 3 },
          ],
        },
        { index: { _id: '3' } },
        { title: 'Never Again', suggest: 'Never Again' },
        { index: { _id: '4' } },
        { title: 'Nevermind (copy)', suggest: { input: 'Nevermind', weight: 5 } },
      ],
    });
  });

  it('shows the completion mapping with its defaults', async () => {
    const mapping = await es().indices.getMapping({ index });
    expect(mapping[index]!.mappings.properties!.suggest).toEqual({
      type: 'completion',
      analyzer: 'simple',
      preserve_separators: true,
      preserve_position_increments: true,
      max_input_length: 50,
    });
  });

  it('reports the field searchable, not aggregatable, in _field_caps', async () => {
    const caps = await es().fieldCaps({ index, fields: 'suggest' });
    expect(caps.fields.suggest).toEqual({
      completion: { type: 'completion', metadata_field: false, searchable: true, aggregatable: false },
    });
  });

  it('suggests by prefix, heaviest first, one option per document (official client)', async () => {
    const response = await es().search({
      index,
      suggest: { s: { prefix: 'nev', completion: { field: 'suggest' } } },
    });
    const entry = (response.suggest!.s as Json[])[0]!;
    expect(entry).toMatchObject({ text: 'nev', offset: 0, length: 3 });
    expect(entry.options[0]).toEqual({
      text: 'Nevermind',
      _index: index,
      _id: '1',
      _score: 34,
      _source: { title: 'Nevermind', suggest: { input: ['Nevermind', 'Nirvana'], weight: 34 } },
    });
    // Document 2 appears once, with its heavier input; weight 1 is the default.
    expect(entry.options.map((o: Json) => `${o._id}:${o.text}:${o._score}`)).toEqual([
      '1:Nevermind:34',
      '2:Nevada:10',
      '4:Nevermind:5',
      '3:Never Again:1',
    ]);
  });

  it('analyses the prefix (simple: lower case, separators kept) and honours size and skip_duplicates', async () => {
    expect(texts((await suggest({}, { text: 'NEVER A' })).body)).toEqual(['Never Again:1']);
    expect(texts((await suggest({ size: 1 }, { prefix: 'n' })).body)).toEqual(['Nevermind:34']);
    expect(texts((await suggest({ skip_duplicates: true }, { prefix: 'nevermind' })).body)).toEqual([
      'Nevermind:34',
    ]);
    expect(texts((await suggest({}, { prefix: 'nevermind' })).body)).toEqual(['Nevermind:34', 'Nevermind:5']);
    expect(texts((await suggest({}, { prefix: 'xyz' })).body)).toEqual([]);
  });

  it('suggests with fuzzy prefixes and regular expressions', async () => {
    // The score is the weight times the exact common prefix length (Lucene's fuzzy boost).
    expect(texts((await suggest({ fuzzy: { fuzziness: 1 } }, { prefix: 'nirv' })).body)).toEqual([
      'Nirvana:136',
    ]);
    // "nevx" is one edit from "neve" and "neva"; "nirv" is two edits from "neve".
    expect(texts((await suggest({ fuzzy: { fuzziness: 1 } }, { prefix: 'nevx' })).body)).toEqual([
      'Nevermind:102',
      'Nevada:30',
      'Nevermind:15',
      'Never Again:3',
    ]);
    expect(
      texts((await suggest({ fuzzy: { fuzziness: 1, prefix_length: 2 } }, { prefix: 'nxvx' })).body),
    ).toEqual([]);
    expect(texts((await suggest({ fuzzy: true }, { prefix: 'nevad' })).body)[0]).toBe('Nevada:50');
    expect(texts((await suggest({}, { regex: 'n[ai]r.*' })).body)).toEqual(['Nirvana:34']);
    expect(texts((await suggest({}, { regex: 'ne.a' })).body)).toEqual(['Nevada:10']);
  });

  it('drops a document’s entries when it is replaced or deleted, in the same write', async () => {
    await es().index({ index, id: '3', document: { suggest: 'Nothing Else' }, refresh: true });
    expect(texts((await suggest({}, { prefix: 'never a' })).body)).toEqual([]);
    expect(texts((await suggest({}, { prefix: 'noth' })).body)).toEqual(['Nothing Else:1']);
    await es().delete({ index, id: '3', refresh: true });
    expect(texts((await suggest({}, { prefix: 'noth' })).body)).toEqual([]);
    await es().update({
      index,
      id: '4',
      doc: { suggest: { input: 'Nevermind', weight: 50 } },
      refresh: true,
    });
    expect(texts((await suggest({}, { prefix: 'nevermind' })).body)).toEqual([
      'Nevermind:50',
      'Nevermind:34',
    ]);
  });

  it('carries the entries through _reindex', async () => {
    await es().indices.create({
      index: 'music-copy',
      mappings: { properties: { suggest: { type: 'completion' } } },
    });
    await es().reindex({ source: { index }, dest: { index: 'music-copy' }, refresh: true });
    const r = await call(server.url, 'POST', '/music-copy/_search', {
      suggest: { s: { prefix: 'nevermind', completion: { field: 'suggest' } } },
    });
    expect(texts(r.json as Json)).toEqual(['Nevermind:50', 'Nevermind:34']);
  });

  it('refuses bad completion values and mappings (raw HTTP)', async () => {
    let r = await call(server.url, 'PUT', `/${index}/_doc/bad`, { suggest: { input: 'x', weight: 1.5 } });
    expect(r.status).toBe(400);
    expect((r.json as Json).error.type).toBe('document_parsing_exception');
    expect(JSON.stringify(r.json)).toContain('weight must be an integer, but was [1.5]');
    r = await call(server.url, 'PUT', `/${index}/_doc/bad`, { suggest: { input: 'x', colour: 'red' } });
    expect(JSON.stringify(r.json)).toContain(
      'unknown field name [colour], must be one of [input, weight, contexts]',
    );
    r = await call(server.url, 'PUT', `/${index}/_doc/bad`, { suggest: { input: 'x', weight: -1 } });
    expect(JSON.stringify(r.json)).toContain('weight must be in the interval [0..2147483647], but was [-1]');
    r = await call(server.url, 'PUT', '/completion-bad', {
      mappings: { properties: { s: { type: 'completion', max_input_length: 0 } } },
    });
    expect(r.status).toBe(400);
    expect((r.json as Json).error.type).toBe('mapper_parsing_exception');
    r = await call(server.url, 'PUT', '/completion-bad', {
      mappings: { properties: { s: { type: 'completion', colour: 1 } } },
    });
    expect((r.json as Json).error.reason).toContain('unknown parameter [colour]');
  });

  it('refuses a field that is not a completion field, and bad options (raw HTTP)', async () => {
    let r = await suggest({ field: 'title' }, { prefix: 'n' });
    expect(r.status).toBe(400);
    expect(r.body.error.root_cause[0]).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'Field [title] is not a completion suggest field',
    });
    r = await suggest({ size: 0 }, { prefix: 'n' });
    expect(r.body.error).toMatchObject({
      type: 'illegal_argument_exception',
      reason: 'size must be positive',
    });
    r = await suggest({ colour: 1 }, { prefix: 'n' });
    expect(r.body.error.type).toBe('parsing_exception');
    r = await suggest({ contexts: { genre: 'rock' } }, { prefix: 'n' });
    expect(r.status).toBe(400);
    r = await suggest({}, { regex: 'n[' });
    expect(r.status).toBe(400);
  });
});
