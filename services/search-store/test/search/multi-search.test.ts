import { EsError } from '@acme/common';
import { multiSearch, type MultiSearchItem } from '../../src/search/multi-search';
import type { SearchRunner } from '../../src/search/searcher';

const items = (n: number): MultiSearchItem[] =>
  Array.from({ length: n }, (_, i) => ({
    target: { index: `i${i}`, ignoreUnavailable: false },
    body: undefined,
    params: {},
  }));

/** The runner is the Searcher's seam: a stand-in that records how many searches run at once. */
function recordingRunner(fail: (index: string) => Error | undefined = () => undefined) {
  const state = { running: 0, most: 0 };
  const run: SearchRunner = async (target) => {
    state.running += 1;
    state.most = Math.max(state.most, state.running);
    await new Promise((resolve) => setTimeout(resolve, 5));
    state.running -= 1;
    const error = fail(target.index ?? '');
    if (error) throw error;
    return { index: target.index };
  };
  return { run, state };
}

describe('multiSearch', () => {
  it('runs at most `concurrency` searches at a time and keeps request order', async () => {
    const { run, state } = recordingRunner();
    const responses = await multiSearch(run, items(12), 3);
    expect(state.most).toBe(3);
    expect(responses).toEqual(Array.from({ length: 12 }, (_, i) => ({ index: `i${i}`, status: 200 })));
  });

  it('answers an Elasticsearch error as its item, with its status', async () => {
    const { run } = recordingRunner((index) =>
      index === 'i1' ? new EsError('index_not_found_exception', 'no such index [i1]') : undefined,
    );
    const responses = await multiSearch(run, items(3), 2);
    expect(responses[1]).toEqual({
      error: {
        root_cause: [{ type: 'index_not_found_exception', reason: 'no such index [i1]' }],
        type: 'index_not_found_exception',
        reason: 'no such index [i1]',
      },
      status: 404,
    });
    expect(responses[2]).toEqual({ index: 'i2', status: 200 });
  });

  it('fails the request on an unexpected error, and starts nothing once the client is gone', async () => {
    const { run } = recordingRunner((index) => (index === 'i0' ? new Error('boom') : undefined));
    await expect(multiSearch(run, items(4), 1)).rejects.toThrow('boom');
    const gone = new AbortController();
    gone.abort();
    const idle = recordingRunner();
    await multiSearch(idle.run, items(4), 2, gone.signal);
    expect(idle.state.most).toBe(0);
  });
});
