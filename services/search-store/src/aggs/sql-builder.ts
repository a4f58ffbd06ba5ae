/** Collects parameters for one SQL statement; fragments with their own `$n` are renumbered on the way in. */
export class SqlBuilder {
  readonly params: unknown[] = [];

  /** Adds a value and returns its placeholder (with an explicit cast when given). */
  param(value: unknown, cast?: string): string {
    this.params.push(value);
    return cast ? `$${this.params.length}::${cast}` : `$${this.params.length}`;
  }

  /** Embeds SQL written against its own parameter list (`$1…$n`), shifting the numbers. */
  fragment(sql: string, params: readonly unknown[]): string {
    const offset = this.params.length;
    this.params.push(...params);
    return sql.replace(/\$(\d+)/g, (_m, n: string) => `$${Number(n) + offset}`);
  }
}

/** A relation (doc_key bigint, g text): the documents of each bucket group, emitted into a builder. */
export type DocSet = ((b: SqlBuilder) => string) & {
  /** Marks the root set when it holds every document of the searched indices, in the one group ''. */
  allDocs?: boolean;
};

/** The separator between bucket keys in a group id (unit separator: never in a rendered key of ours). */
export const GROUP_SEP = '\u001f';
