/**
 * A growable list of int32 in one typed array: a batch's postings and token streams live in a few of
 * these instead of one object or array per posting, so they cost the garbage collector nothing to
 * trace however long the batch keeps them.
 */
export class IntList {
  private items: Int32Array;
  length = 0;

  constructor(capacity = 1024) {
    this.items = new Int32Array(capacity);
  }

  push(value: number): void {
    if (this.length === this.items.length) {
      const grown = new Int32Array(this.items.length * 2);
      grown.set(this.items);
      this.items = grown;
    }
    this.items[this.length++] = value;
  }

  at(index: number): number {
    return this.items[index]!;
  }

  set(index: number, value: number): void {
    this.items[index] = value;
  }

  /** The values pushed so far (a view: valid until the next push). */
  view(): Int32Array {
    return this.items.subarray(0, this.length);
  }
}
