/**
 * The C allocator's settings our launchers give search-store (npm start, the Dockerfile, bench/search):
 * glibc reads them from the environment once, at process start, so they cannot be set from inside.
 *
 * Why: glibc raises its mmap threshold to the size of each large block freed (up to 32 MB), so after a
 * bulk load's multi-megabyte bodies and COPY buffers are freed, later ones come from malloc's heap,
 * which small live blocks pin and which is never given back. Measured on the bench's 100k-document
 * load (/proc VmHWM, 2 GB of Postgres buffers): the peak while the background merge ran after the load
 * went from 467 MB to 379 MB with blocks of 1 MB and more always mapped (and unmapped when freed); RSS
 * once settled from ~320 to ~200 MB. Match searches replayed over HTTP (100k and 1M documents, alternating)
 * did not slow; the aggregation and scroll in the process that had just loaded were 10-20 % slower in one
 * series of bench runs, which a fresh server did not reproduce (bench/RESULTS.md, dcb47e2's 100k run).
 * 128 kB (glibc's starting value) did as well for memory but made warm OR searches ~15 % slower: their
 * few-hundred-kB buffers paid a map and page faults each time. Setting the value also turns glibc's
 * dynamic adjustment off (mallopt(3), M_MMAP_THRESHOLD). Other C libraries ignore it.
 */
export const MALLOC_ENV: Readonly<Record<string, string>> = Object.freeze({
  MALLOC_MMAP_THRESHOLD_: String(1 << 20),
});
