import { startSearchStore, type RunningSearchStore } from './start-search-store';

/**
 * A search-store for the enclosing describe block: started (startSearchStore with these arguments) in
 * beforeAll, stopped in afterAll. The object answers for the running instance (its url, config, pool,
 * …) from the first beforeAll on; before that, reading it throws.
 */
export function useSearchStore(...args: Parameters<typeof startSearchStore>): RunningSearchStore {
  let running: RunningSearchStore | undefined;
  beforeAll(async () => {
    running = await startSearchStore(...args);
  });
  afterAll(async () => {
    await running?.stop();
  });
  const now = (): RunningSearchStore => {
    if (!running) throw new Error('useSearchStore: the store starts in beforeAll');
    return running;
  };
  return {
    get url() {
      return now().url;
    },
    get config() {
      return now().config;
    },
    get pool() {
      return now().pool;
    },
    get logger() {
      return now().logger;
    },
    get indexWriterCalls() {
      return now().indexWriterCalls;
    },
    stop: () => now().stop(),
  };
}
