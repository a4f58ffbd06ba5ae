import { useSearchStore } from '../support/use-search-store';
import { esErrorBody } from '../support/es-error-body';
import { client8, failure } from '../support/http';

const illegalArgument = (reason: string) => ({
  status: 400,
  body: esErrorBody('illegal_argument_exception', reason),
});

/** `{"a1":{"a2":…{"aN":"x"}}}` as an object. */
function nested(levels: number, prefix = 'a'): Record<string, unknown> {
  let value: unknown = 'x';
  for (let i = levels; i >= 1; i -= 1) value = { [`${prefix}${i}`]: value };
  return value as Record<string, unknown>;
}

describe('mapping limits (index.mapping.total_fields/depth/field_name_length.limit)', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);

  it('refuses to create an index whose mapping exceeds its own total fields limit, creating nothing', async () => {
    const refused = await failure(
      es().indices.create({
        index: 'lim-create',
        settings: { 'index.mapping.total_fields.limit': 2 },
        mappings: { properties: { a: { type: 'keyword' }, b: { properties: { c: { type: 'long' } } } } },
      }),
    );
    expect(refused).toEqual(illegalArgument('Limit of total fields [2] has been exceeded'));
    expect(await es().indices.exists({ index: 'lim-create' })).toBe(false);
  });

  it('refuses PUT _mapping past the limit and keeps the mapping as it was', async () => {
    await es().indices.create({
      index: 'lim-put',
      settings: { index: { mapping: { total_fields: { limit: 3 }, depth: { limit: 2 } } } },
      mappings: { properties: { a: { type: 'keyword' } } },
    });
    const tooMany = await failure(
      es().indices.putMapping({
        index: 'lim-put',
        properties: { t: { type: 'text', fields: { raw: { type: 'keyword' } } }, u: { type: 'long' } },
      }),
    );
    expect(tooMany).toEqual(illegalArgument('Limit of total fields [3] has been exceeded'));
    const tooDeep = await failure(
      es().indices.putMapping({
        index: 'lim-put',
        properties: { o: { properties: { p: { properties: {} } } } },
      }),
    );
    expect(tooDeep).toEqual(
      illegalArgument('Limit of mapping depth [2] has been exceeded due to object field [o.p]'),
    );
    expect(await es().indices.getMapping({ index: 'lim-put' })).toEqual({
      'lim-put': { mappings: { properties: { a: { type: 'keyword' } } } },
    });
  });

  it('refuses a document whose dynamic fields pass the limit, storing neither it nor its fields', async () => {
    await es().indices.create({ index: 'lim-dyn', settings: { 'index.mapping.total_fields.limit': 4 } });
    await es().index({ index: 'lim-dyn', id: '1', document: { a: 1, b: 'x' }, refresh: true });
    const refused = await failure(es().index({ index: 'lim-dyn', id: '2', document: { c: true, d: 'y' } }));
    const reason =
      '[1:15] failed to parse: Limit of total fields [4] has been exceeded while adding new fields [3]';
    expect(refused).toEqual({
      status: 400,
      body: {
        error: {
          root_cause: [{ type: 'document_parsing_exception', reason }],
          type: 'document_parsing_exception',
          reason,
          caused_by: {
            type: 'illegal_argument_exception',
            reason: 'Limit of total fields [4] has been exceeded while adding new fields [3]',
          },
        },
        status: 400,
      },
    });
    expect(await es().exists({ index: 'lim-dyn', id: '2' })).toBe(false);
    const mapping = await es().indices.getMapping({ index: 'lim-dyn' });
    expect(Object.keys(mapping['lim-dyn']?.mappings.properties ?? {}).sort()).toEqual(['a', 'b']);
  });

  it('fails only the bulk item that passes the limit; the others are written', async () => {
    await es().indices.create({ index: 'lim-bulk', settings: { 'index.mapping.total_fields.limit': 2 } });
    const result = await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'lim-bulk', _id: '1' } },
        { a: 1, b: 2 },
        { index: { _index: 'lim-bulk', _id: '2' } },
        { c: 3 },
        { index: { _index: 'lim-bulk', _id: '3' } },
        { a: 4 },
      ],
    });
    expect(result.errors).toBe(true);
    expect(result.items.map((item) => item.index?.status)).toEqual([201, 400, 201]);
    expect(result.items[1]?.index?.error).toEqual({
      type: 'document_parsing_exception',
      reason:
        '[1:6] failed to parse: Limit of total fields [2] has been exceeded while adding new fields [1]',
      caused_by: {
        type: 'illegal_argument_exception',
        reason: 'Limit of total fields [2] has been exceeded while adding new fields [1]',
      },
    });
    expect((await es().count({ index: 'lim-bulk' })).count).toBe(2);
  });

  it('reindex reports the copies the destination limit refuses and keeps the rest', async () => {
    await es().bulk({
      refresh: true,
      operations: [
        { index: { _index: 'lim-src', _id: '1' } },
        { a: 1 },
        { index: { _index: 'lim-src', _id: '2' } },
        { a: 2, b: 3 },
      ],
    });
    await es().indices.create({ index: 'lim-dst', settings: { 'index.mapping.total_fields.limit': 1 } });
    const result = await failure(es().reindex({ source: { index: 'lim-src' }, dest: { index: 'lim-dst' } }));
    expect(result.status).toBe(400);
    expect(result.body).toMatchObject({
      created: 1,
      failures: [
        {
          index: 'lim-dst',
          id: '2',
          status: 400,
          cause: {
            type: 'document_parsing_exception',
            caused_by: {
              type: 'illegal_argument_exception',
              reason: 'Limit of total fields [1] has been exceeded while adding new fields [1]',
            },
          },
        },
      ],
    });
    expect(await es().exists({ index: 'lim-dst', id: '2' })).toBe(false);
    expect((await es().indices.getMapping({ index: 'lim-dst' }))['lim-dst']?.mappings).toEqual({
      properties: { a: { type: 'long' } },
    });
  });

  it('refuses a document nested past the default depth of 20 and accepts one at 20', async () => {
    await es().index({ index: 'lim-depth', id: 'ok', document: nested(20) });
    const refused = await failure(es().index({ index: 'lim-depth', id: 'deep', document: nested(21, 'b') }));
    const path = Array.from({ length: 20 }, (_, i) => `b${i + 1}`).join('.');
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({
      type: 'document_parsing_exception',
      caused_by: {
        type: 'illegal_argument_exception',
        reason: `Limit of mapping depth [20] has been exceeded due to object field [${path}]`,
      },
    });
    expect(await es().exists({ index: 'lim-depth', id: 'deep' })).toBe(false);
  });

  it('applies a field_name_length limit set later through _settings, and validates the setting', async () => {
    await es().index({ index: 'lim-name', id: '1', document: { fine: 1 } });
    await es().indices.putSettings({
      index: 'lim-name',
      settings: { 'index.mapping.field_name_length.limit': 6 },
    });
    const refused = await failure(
      es().index({ index: 'lim-name', id: '2', document: { fine: 2, tooLongName: 3 } }),
    );
    expect(refused).toEqual(
      illegalArgument('Field name [tooLongName] is longer than the limit of [6] characters'),
    );
    expect(await es().exists({ index: 'lim-name', id: '2' })).toBe(false);
    const badSetting = await failure(
      es().indices.putSettings({ index: 'lim-name', settings: { 'index.mapping.depth.limit': 0 } }),
    );
    expect(badSetting).toEqual(
      illegalArgument('Failed to parse value [0] for setting [index.mapping.depth.limit] must be >= 1'),
    );
    const settings = await es().indices.getSettings({ index: 'lim-name', flat_settings: true });
    expect(settings['lim-name']?.settings?.['index.mapping.depth.limit']).toBeUndefined();
  });
});
