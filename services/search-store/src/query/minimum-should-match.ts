/**
 * Elasticsearch's Queries.calculateMinShouldMatch: `3`, `-1`, `75%`, `-25%`, and conditional
 * combinations such as `2<-25% 9<3` (API-NOTES §A2.3). Percentages round down, in float as ES does.
 */
export function minimumShouldMatch(optionalClauseCount: number, spec: string | undefined): number {
  if (spec === undefined) return 0;
  const trimmed = spec.trim();
  let result = optionalClauseCount;
  if (trimmed.includes('<')) {
    for (const part of trimmed.replace(/\s*<\s*/g, '<').split(/\s+/)) {
      const [upper, rule] = part.split('<');
      if (optionalClauseCount <= Number(upper)) return result;
      result = minimumShouldMatch(optionalClauseCount, rule);
    }
    return result;
  }
  if (trimmed.endsWith('%')) {
    const percent = parseInteger(trimmed.slice(0, -1));
    const calc = Math.fround(Math.fround(result * percent) * Math.fround(1 / 100));
    result = calc < 0 ? result + Math.trunc(calc) : Math.trunc(calc);
  } else {
    const calc = parseInteger(trimmed);
    result = calc < 0 ? result + calc : calc;
  }
  return optionalClauseCount < result ? optionalClauseCount : result < 0 ? 0 : result;
}

function parseInteger(text: string): number {
  if (!/^[+-]?\d+$/.test(text)) throw new RangeError(`For input string: "${text}"`);
  return Number(text);
}
