import { useSearchStore } from '../support/use-search-store';
import { call, client8 } from '../support/http';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * ES "Phrase suggester" through the official client and raw HTTP, on real Postgres. The expected
 * scores are NoisyChannelSpellChecker's for this index, worked by hand: 9 tokens and 5 distinct
 * terms in `body`; a path scores exp(Σ log10(channel × P(term))), with P(term) = (1 + ttf) / (9 + 5)
 * under stupid backoff, channel 0.95 for a kept token and the correction's distance otherwise.
 */
describe('phrase suggester', () => {
  const server = useSearchStore();
  const es = () => client8(server.url);
  const index = 'suggest-phrase';
  const phrase = async (text: string, options: Json = {}) => {
    const response = await call(server.url, 'POST', `/${index}/_search`, {
      size: 0,
      suggest: { p: { text, phrase: { field: 'body', ...options } } },
    });
    return { status: response.status, body: response.json as Json };
  };
  beforeAll(async () => {
    await es().indices.create({ index, mappings: { properties: { body: { type: 'text' } } } });
    const bodies = ['noble prize', 'nobel prize winner', 'nobel prize', 'prize money'];
    await es().bulk({
      index,
      refresh: true,
      operations: bodies.flatMap((body, i) => [{ index: { _id: String(i) } }, { body }]),
    });
  });

  it('corrects a phrase, best path first, with highlighting (official client)', async () => {
    const response = await es().search({
      index,
      size: 0,
      suggest: {
        p: {
          text: 'nobl prize',
          phrase: { field: 'body', highlight: { pre_tag: '<em>', post_tag: '</em>' } },
        },
      },
    });
    expect(response.suggest!.p).toEqual([
      {
        text: 'nobl prize',
        offset: 0,
        length: 10,
        options: [
          { text: 'nobel prize', highlighted: '<em>nobel</em> prize', score: 0.2826969 },
          { text: 'noble prize', highlighted: '<em>noble</em> prize', score: 0.23705308 },
        ],
      },
    ]);
  });

  it('applies gram_size with stupid backoff, laplace smoothing, confidence and size', async () => {
    const scores = async (options: Json) =>
      (await phrase('nobl prize', options)).body.suggest.p[0].options.map(
        (o: Json) => `${o.text}:${o.score}`,
      );
    expect(await scores({ gram_size: 2 })).toEqual(['nobel prize:0.18988816', 'noble prize:0.1592291']);
    expect(await scores({ smoothing: { laplace: { alpha: 0.5 } } })).toEqual([
      'nobel prize:0.2959815',
      'noble prize:0.237092',
    ]);
    expect(await scores({ size: 1 })).toEqual(['nobel prize:0.2826969']);
    // The input scores 0.1944: confidence 2 asks for twice that; 0 lets the input itself through.
    expect(await scores({ confidence: 2 })).toEqual([]);
    expect(await scores({ confidence: 0 })).toEqual([
      'nobel prize:0.2826969',
      'noble prize:0.23705308',
      'nobl prize:0.19439971',
    ]);
  });

  it('corrects at most max_errors tokens of a path', async () => {
    const texts = async (options: Json) =>
      (await phrase('nobl prze', options)).body.suggest.p[0].options.map((o: Json) => o.text);
    expect(await texts({})).not.toContain('nobel prize');
    expect((await texts({ max_errors: 2 }))[0]).toBe('nobel prize');
    expect(await texts({ max_errors: 0.5 })).not.toContain('nobel prize');
  });

  it('takes candidates from direct generators with their own options', async () => {
    const r = await phrase('nobl prize', { direct_generator: [{ field: 'body', max_edits: 1, size: 1 }] });
    expect(r.body.suggest.p[0].options.map((o: Json) => o.text)).toEqual(['nobel prize']);
  });

  it('refuses bad options with ES errors (raw HTTP)', async () => {
    let r = await phrase('x', { bogus: 1 });
    expect(r.status).toBe(400);
    expect(r.body.error).toMatchObject({
      type: 'parsing_exception',
      reason: "suggester[phrase] doesn't support field [bogus]",
    });
    r = await phrase('x', { highlight: { pre_tag: '<b>' } });
    expect(r.body.error.reason).toBe('Pre and post tag must both be null or both not be null.');
    r = await phrase('x', { collate: { query: { source: {} } } });
    expect(r.body.error.type).toBe('illegal_argument_exception');
    r = await phrase('x', { direct_generator: [{ field: 'body', max_edits: 5 }] });
    expect(r.body.error.reason).toBe('maxEdits must be between 1 and 2');
    r = await phrase('x', { field: 'nope' });
    expect(r.body.error.root_cause[0].reason).toBe('no mapping found for field [nope]');
  });
});
