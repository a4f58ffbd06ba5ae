import type { Request, Response } from 'express';
import { EsError } from '@acme/common';
import { sendText } from '../../http/format-response';
import { isTruthyParam, stringParam } from '../../http/query-params';
import { bytesIn, formatBytes } from './format-bytes';
import { simpleMatch } from '../../text/simple-match';

export interface CatColumn {
  name: string;
  aliases: string[];
  /** Sizes, counts and percentages are right-aligned (ES `text-align:right`). */
  right?: boolean;
  /** Shown when `h` is not given. */
  byDefault?: boolean;
  /** Byte values are formatted per `bytes`. */
  bytes?: boolean;
}

export type CatValue = string | number | null;
export type CatRow = Record<string, CatValue>;

interface Selected {
  column: CatColumn;
  display: string;
}

/** `h=a,b,disk.*`: names, aliases and wildcards, in the order asked; unknown names dropped (RestTable). */
function selectColumns(columns: CatColumn[], h: string | undefined): Selected[] {
  if (h === undefined || h === '')
    return columns.filter((c) => c.byDefault).map((c) => ({ column: c, display: c.name }));
  const out: Selected[] = [];
  for (const wanted of h.split(',').map((x) => x.trim())) {
    if (wanted.includes('*')) {
      for (const column of columns)
        if (simpleMatch(wanted, column.name)) out.push({ column, display: column.name });
      continue;
    }
    const column = columns.find((c) => c.name === wanted || c.aliases.includes(wanted));
    if (column) out.push({ column, display: wanted });
  }
  return out;
}

function render(value: CatValue, column: CatColumn, bytesUnit: string | undefined): string | null {
  if (value === null) return null;
  if (column.bytes && typeof value === 'number') {
    return bytesUnit === undefined ? formatBytes(value) : (bytesIn(value, bytesUnit) ?? formatBytes(value));
  }
  return String(value);
}

/** JSON when asked with `format=json` or a single JSON Accept type (a list of types means text, as in ES). */
function wantsJson(req: Request): boolean {
  const format = stringParam(req.query.format);
  if (format !== undefined) {
    if (format === 'json') return true;
    if (format === 'txt' || format === 'text') return false;
    throw new EsError('illegal_argument_exception', `Unsupported format [${format}]`);
  }
  const accept = req.headers.accept ?? '';
  return !accept.includes(',') && /json/.test(accept);
}

function sortRows(rows: CatRow[], columns: CatColumn[], s: string | undefined): CatRow[] {
  if (!s) return rows;
  const keys = s.split(',').map((part) => {
    const [name = '', order] = part.split(':');
    const column = columns.find((c) => c.name === name || c.aliases.includes(name));
    if (!column)
      throw new EsError('illegal_argument_exception', `Unable to sort by unknown sort key \`${name}\``);
    return { name: column.name, desc: order === 'desc' };
  });
  return [...rows].sort((a, b) => {
    for (const key of keys) {
      const x = a[key.name] ?? null;
      const y = b[key.name] ?? null;
      let cmp = 0;
      if (x === null || y === null) cmp = x === y ? 0 : x === null ? 1 : -1;
      else if (typeof x === 'number' && typeof y === 'number') cmp = x - y;
      else cmp = String(x) < String(y) ? -1 : String(x) > String(y) ? 1 : 0;
      if (cmp !== 0) return key.desc ? -cmp : cmp;
    }
    return 0;
  });
}

/**
 * Writes a cat table as ES RestTable does: `v` header row, cells padded to the column width (header
 * included when `v`), right-aligned columns left-padded, one space between cells, no padding after the
 * last cell, `\n` per row; or a JSON array of objects with string values.
 */
export function sendCatTable(req: Request, res: Response, columns: CatColumn[], rows: CatRow[]): void {
  const selected = selectColumns(columns, stringParam(req.query.h));
  const sorted = sortRows(rows, columns, stringParam(req.query.s));
  const bytesUnit = stringParam(req.query.bytes);
  const cells = sorted.map((row) =>
    selected.map(({ column }) => render(row[column.name] ?? null, column, bytesUnit)),
  );
  if (wantsJson(req)) {
    res.json(cells.map((row) => Object.fromEntries(selected.map((s, i) => [s.display, row[i] ?? null]))));
    return;
  }
  const verbose = isTruthyParam(req.query.v);
  const widths = selected.map((s, i) =>
    Math.max(verbose ? s.display.length : 0, ...cells.map((row) => (row[i] ?? '').length)),
  );
  const line = (values: (string | null)[]) =>
    values
      .map((value, i) => {
        const text = value ?? '';
        const width = widths[i] ?? 0;
        const last = i === values.length - 1;
        if (selected[i]?.column.right) return text.padStart(width);
        return last ? text : text.padEnd(width);
      })
      .join(' ') + '\n';
  let out = verbose ? line(selected.map((s) => s.display)) : '';
  for (const row of cells) out += line(row);
  sendText(res.status(200), 'text/plain; charset=UTF-8', out);
}
