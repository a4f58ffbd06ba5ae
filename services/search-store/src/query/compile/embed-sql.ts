import type { SqlParams } from './sql-params';

/** Embeds SQL written against its own `$1…$n` into a statement being built, renumbering its parameters. */
export function embedSql(params: SqlParams, text: string, values: readonly unknown[]): string {
  const placeholders = new Map<number, string>();
  return text.replace(/\$(\d+)/g, (_m, n: string) => {
    const index = Number(n);
    let placeholder = placeholders.get(index);
    if (placeholder === undefined) {
      placeholder = params.add(values[index - 1]);
      placeholders.set(index, placeholder);
    }
    return placeholder;
  });
}
