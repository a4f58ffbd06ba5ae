import { EsError } from '@acme/common';
import type { SearchRunner } from './searcher';
import type { SearchTarget } from './search-target';

/** One search of an `_msearch`: its target, its body and the query parameters it inherits. */
export interface MultiSearchItem {
  target: SearchTarget;
  body: unknown;
  params: Record<string, string | undefined>;
}

/** A search's answer with `status`, or its error envelope `{error, status}`. */
export type MultiSearchResponse = Record<string, unknown>;

/**
 * ES "Multi search API": every search runs through the same Searcher as `_search` (fast path included),
 * at most `concurrency` at a time, answers kept in request order. A search's failure is its item's
 * answer; anything that is not an Elasticsearch error fails the request. Nothing new starts once the
 * client has gone.
 */
export async function multiSearch(
  run: SearchRunner,
  items: readonly MultiSearchItem[],
  concurrency: number,
  gone?: AbortSignal,
): Promise<MultiSearchResponse[]> {
  const responses: MultiSearchResponse[] = new Array<MultiSearchResponse>(items.length);
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed && !gone?.aborted) {
      const i = next++;
      const item = items[i] as MultiSearchItem;
      try {
        const body = (await run(item.target, item.body, item.params, gone)) as Record<string, unknown>;
        responses[i] = { ...body, status: 200 };
      } catch (error) {
        if (!(error instanceof EsError)) {
          failed = true;
          throw error;
        }
        responses[i] = { ...error.toBody() };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return responses;
}
