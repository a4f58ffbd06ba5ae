import { useSearchStore } from '../support/use-search-store';
import { randomBytes } from 'node:crypto';
import { client8 } from '../support/http';

/** Text that does not compress: random hex, two bytes of entropy per character pair. */
const incompressible = (bytes: number) =>
  randomBytes(Math.ceil(bytes / 2))
    .toString('hex')
    .slice(0, bytes);

describe('keyword values near the stored term limit (2600 bytes)', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);

  it('stores one at the limit and refuses one over it as its own bulk item, keeping the others', async () => {
    await es().indices.create({
      index: 'long-kw',
      mappings: {
        properties: { k: { type: 'keyword' }, t: { type: 'text', fields: { raw: { type: 'keyword' } } } },
      },
    });
    const atLimit = incompressible(2600);
    const over = incompressible(3000);
    const result = await es().bulk({
      index: 'long-kw',
      refresh: true,
      operations: [
        { index: { _id: 'short' } },
        { k: 'short', t: 'short text' },
        { index: { _id: 'at-limit' } },
        { k: atLimit },
        { index: { _id: 'over' } },
        { k: over },
        { index: { _id: 'over-sub' } },
        { t: over },
        { index: { _id: 'after' } },
        { k: 'after' },
      ],
    });
    expect(result.errors).toBe(true);
    const statuses = result.items.map((item) => [
      item.index!._id,
      item.index!.status,
      item.index!.error?.type,
    ]);
    expect(statuses).toEqual([
      ['short', 201, undefined],
      ['at-limit', 201, undefined],
      ['over', 400, 'illegal_argument_exception'],
      ['over-sub', 400, 'illegal_argument_exception'],
      ['after', 201, undefined],
    ]);
    expect(result.items[2]!.index!.error!.reason).toContain(
      'Document contains at least one immense term in field="k" (whose UTF8 encoding is longer than the max length 2600)',
    );
    expect(result.items[3]!.index!.error!.reason).toContain('immense term in field="t.raw"');

    const found = await es().search({ index: 'long-kw', query: { term: { k: atLimit } } });
    expect(found.hits.hits.map((h) => h._id)).toEqual(['at-limit']);
    const sorted = await es().search({ index: 'long-kw', sort: [{ k: 'desc' }], _source: false });
    const byValueDesc = (
      [
        ['short', 'short'],
        ['at-limit', atLimit],
        ['after', 'after'],
      ] as const
    )
      .slice()
      .sort((a, b) => (a[1] < b[1] ? 1 : -1))
      .map(([id]) => id);
    expect(sorted.hits.hits.map((h) => h._id)).toEqual(byValueDesc);
    expect((await es().count({ index: 'long-kw' })).count).toBe(3);
  });
});
