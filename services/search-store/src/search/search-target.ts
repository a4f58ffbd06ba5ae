/** What a search reads: the index expression of the path (undefined: all) and ignore_unavailable. */
export interface SearchTarget {
  index: string | undefined;
  ignoreUnavailable: boolean;
}
