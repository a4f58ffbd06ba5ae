import { EsError } from '@acme/common';

/**
 * ES `Fuzziness.fromString` (8.x): "AUTO", "AUTO:low,high", or an edit distance 0, 1 or 2 (a
 * number, or a string holding one; "1.0" is 1, "1.5" is refused). Returns the canonical text the
 * AST keeps ("AUTO", "AUTO:low,high", "0", "1", "2") and throws ES's illegal_argument_exception / parse exception texts.
 */
export function parseFuzziness(value: unknown): string {
  if (typeof value !== 'string' && typeof value !== 'number')
    throw new EsError('illegal_argument_exception', `fuzziness cannot be [${JSON.stringify(value)}].`);
  const text = String(value);
  if (text === '') throw new EsError('illegal_argument_exception', 'fuzziness cannot be null or empty.');
  const upper = text.toUpperCase();
  if (upper === 'AUTO') return 'AUTO';
  if (upper.startsWith('AUTO:')) {
    const limits = upper.slice('AUTO:'.length).split(',');
    if (limits.length !== 2)
      throw new EsError('parse_exception', 'failed to find low and high distance values');
    const [low, high] = limits.map((l) => (/^[+-]?\d{1,10}$/.test(l) ? Number(l) : NaN)) as [number, number];
    if (Number.isNaN(low) || Number.isNaN(high))
      throw new EsError('parse_exception', `failed to parse [${upper}] as a "auto:int,int"`);
    if (low < 0 || high < 0 || low > high)
      throw new EsError(
        'parse_exception',
        `fuzziness wrongly configured [${upper}]. Must be 0 < lower value <= higher value.`,
      );
    return `AUTO:${low},${high}`;
  }
  const n = /^\s*[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?\s*$/.test(upper)
    ? Number(upper.replace(/[fFdD]\s*$/, ''))
    : NaN;
  if (Number.isNaN(n))
    throw new EsError('illegal_argument_exception', `fuzziness cannot be [${text}].`, {
      causedBy: { type: 'number_format_exception', reason: `For input string: "${upper}"` },
    });
  if (n % 1 > 0)
    throw new EsError(
      'illegal_argument_exception',
      `fuzziness needs to be one of 0.0, 1.0 or 2.0 but was ${javaFloat(Math.fround(n))}`,
    );
  const edits = Math.trunc(n);
  if (edits !== 0 && edits !== 1 && edits !== 2)
    throw new EsError('illegal_argument_exception', `Valid edit distances are [0, 1, 2] but was [${edits}]`);
  return String(edits);
}

/** Java's Float.toString for the values a fuzziness can hold here (always with a fraction digit). */
function javaFloat(value: number): string {
  const text = String(Number(value.toPrecision(7)));
  return text.includes('.') || text.includes('e') ? text : `${text}.0`;
}

/** `Fuzziness.asDistance(term)`: AUTO:low,high by the term's length in code points, else the edits. */
export function fuzzinessEdits(fuzziness: string, term: string): number {
  if (!fuzziness.startsWith('AUTO')) return Number(fuzziness);
  const [low, high] = fuzziness === 'AUTO' ? [3, 6] : fuzziness.slice(5).split(',').map(Number);
  const length = [...term].length;
  if (length < low!) return 0;
  if (length < high!) return 1;
  return 2;
}
