import { useSearchStore } from '../support/use-search-store';
import { call, client8, failure } from '../support/http';

const outOfRange = (n: string, col: number) =>
  `[1:${col}] Numeric value (${n}) out of range of long (-9223372036854775808 - 9223372036854775807)\n at [Source: REDACTED (\`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION\` disabled); line: 1, column: ${col}]`;

/**
 * `long` is [-2^63, 2^63-1] (ES "Numeric field types"). JSON numbers near ±2^63 are not exact in JS
 * doubles, so the bodies here are sent as text, through the official client (string bodies pass as-is).
 */
/** A string body goes out verbatim; the client then labels it text/plain unless told. */
const JSON_TEXT = { headers: { 'content-type': 'application/json' } };

describe('long values at the edges of the range', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  beforeAll(async () => {
    await es().indices.create({ index: 'longs', mappings: { properties: { n: { type: 'long' } } } });
  });

  it('accepts -2^63 and 2^63-1 exactly and stores the text as sent', async () => {
    await es().index({ index: 'longs', id: 'min', document: '{"n":-9223372036854775808}' }, JSON_TEXT);
    await es().index({ index: 'longs', id: 'max', document: '{"n":9223372036854775807}' }, JSON_TEXT);
    const raw = await call(server.url, 'GET', '/longs/_source/max');
    expect(raw.text).toBe('{"n":9223372036854775807}');
  });

  it.each([
    ['-9223372036854775809', 26],
    ['-9223372036854776832', 26],
    ['9223372036854775808', 25],
  ])('refuses %s with ES 8 document_parsing_exception and stores nothing', async (n, col) => {
    const id = `bad${n}`;
    const refused = await failure(es().index({ index: 'longs', id, document: `{"n":${n}}` }, JSON_TEXT));
    const reason = `[1:6] failed to parse field [n] of type [long] in document with id '${id}'. Preview of field's value: '${n}'`;
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          root_cause: [{ type: 'document_parsing_exception', reason }],
          type: 'document_parsing_exception',
          reason,
          caused_by: { type: 'x_content_parse_exception', reason: outOfRange(n, col) },
        },
        status: 400,
      },
    });
    expect(await es().exists({ index: 'longs', id })).toBe(false);
  });

  it('fails only the out-of-range bulk item', async () => {
    const result = await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'longs', _id: 'b1' } },
        '{"n":-9223372036854775809}',
        { index: { _index: 'longs', _id: 'b2' } },
        '{"n":-9223372036854775807}',
      ],
    });
    expect(result.items.map((item) => item.index?.status)).toEqual([400, 201]);
    expect(result.items[0]?.index?.error).toEqual({
      type: 'document_parsing_exception',
      reason:
        "[1:6] failed to parse field [n] of type [long] in document with id 'b1'. Preview of field's value: '-9223372036854775809'",
      caused_by: { type: 'x_content_parse_exception', reason: outOfRange('-9223372036854775809', 26) },
    });
    expect(await es().exists({ index: 'longs', id: 'b1' })).toBe(false);
  });

  it('keeps documents holding the extreme longs updatable and reindexable', async () => {
    await es().index(
      {
        index: 'longs',
        id: 'edges',
        document: '{"n":[-9223372036854775808,9223372036854775807]}',
        refresh: true,
      },
      JSON_TEXT,
    );
    const updated = await es().update({ index: 'longs', id: 'edges', doc: { tag: 'x' } });
    expect(updated.result).toBe('updated');
    const copied = await es().reindex({
      source: { index: 'longs', query: { ids: { values: ['edges'] } } },
      dest: { index: 'longs-copy' },
    });
    expect({ created: copied.created, failures: copied.failures }).toEqual({ created: 1, failures: [] });
  });

  it('compares numeric strings exactly and refuses the first one past the range', async () => {
    await es().index({ index: 'longs', id: 's1', document: { n: '9223372036854775807' } });
    const refused = await failure(
      es().index({ index: 'longs', id: 's2', document: { n: '9223372036854775808' } }),
    );
    expect(refused.body.error).toMatchObject({
      type: 'document_parsing_exception',
      caused_by: {
        type: 'illegal_argument_exception',
        reason: 'Value [9223372036854775808] is out of range for a long',
      },
    });
    expect(await es().exists({ index: 'longs', id: 's2' })).toBe(false);
  });
});
