/**
 * The `function_score` query (ES "Function score query"), parsed in parse/parse-function-score.ts and
 * scored in score/function-score.ts: the inner query's matches rescored by functions, each limited to
 * the documents of its optional `filter`. Generic in the query type so that this file does not import
 * query-ast.ts (which names it as `FunctionScoreQuery`).
 */
export interface FunctionScoreNode<Q> {
  kind: 'function_score';
  query: Q;
  functions: FilterFunction<Q>[];
  scoreMode: FunctionScoreMode;
  boostMode: FunctionBoostMode;
  /** float: ES reads it with floatValue(); Float.MAX_VALUE by default. */
  maxBoost: number;
  minScore?: number;
  boost: number;
}

export type FunctionScoreMode = 'multiply' | 'sum' | 'avg' | 'first' | 'max' | 'min';
export type FunctionBoostMode = 'multiply' | 'replace' | 'sum' | 'avg' | 'max' | 'min';

/** One entry of `functions` (or the single top-level function): its filter, function and weight. */
export interface FilterFunction<Q> {
  /** Absent = every document (ES match_all, which it does not wrap as a filter). */
  filter?: Q;
  fn: ScoreFunction;
  /** float; ScoreFunction.getWeight() is 1 when absent (the `avg` divisor). */
  weight?: number;
}

export type FieldValueModifier =
  'none' | 'log' | 'log1p' | 'log2p' | 'ln' | 'ln1p' | 'ln2p' | 'square' | 'sqrt' | 'reciprocal';

export type DecayShape = 'gauss' | 'exp' | 'linear';
export type MultiValueMode = 'min' | 'max' | 'avg' | 'sum' | 'median';

export type ScoreFunction =
  /** `weight` alone: ES WeightBuilder, a function of 1 times the weight. */
  | { kind: 'weight' }
  | {
      kind: 'field_value_factor';
      field: string;
      /** float */
      factor: number;
      modifier: FieldValueModifier;
      missing?: number;
    }
  /** seed as ES's int (an int, a long's Long.hashCode, a string's String.hashCode); absent = per request. */
  | { kind: 'random_score'; seed?: number; field?: string }
  | {
      kind: 'decay';
      shape: DecayShape;
      field: string;
      /** The field's parameter object as sent (origin, scale, offset, decay): read against its mapping. */
      params: Record<string, unknown>;
      multiValueMode: MultiValueMode;
    }
  | { kind: 'script_score'; source: string; params: Record<string, unknown> };
