import { denseVectorField, type DenseVectorField } from '../../index/dense-vector-fields';
import { loadDocumentVectors } from '../../index/vector-reader';
import { compileScript, type CompiledScript } from '../../script/compile-script';
import { ScriptError } from '../../script/script-error';
import { fromJson, javaDouble, type Value } from '../../script/script-values';
import { callVectorFunction } from '../../script/vector-functions';
import type { Query } from '../query-ast';
import { ShardQueryError } from '../shard-query-error';
import { NOTHING, type CompileContext } from './compile-context';
import { SqlParams } from './sql-params';

type Compile = (ctx: CompileContext, query: Query, boost: number, scoring: boolean) => Promise<string>;
type ScriptScoreQuery = Extract<Query, { kind: 'script_score' }>;

/** Most documents one script_score scores per index (they are scored in Node, a page at a time). */
export const MAX_SCRIPT_SCORE_DOCS = 1_000_000;
const PAGE = 4096;

/** The dense_vector fields a script names in a string literal: the only ones it can reach. */
function fieldsNamedBy(ctx: CompileContext, source: string): DenseVectorField[] {
  const out: DenseVectorField[] = [];
  for (const field of ctx.reader.fields.values()) {
    if (field.type !== 'dense_vector') continue;
    if (source.includes(`'${field.path}'`) || source.includes(`"${field.path}"`)) {
      out.push(denseVectorField(field.path, field.mapping));
    }
  }
  return out;
}

function scriptFailure(script: CompiledScript, error: unknown): never {
  if (error instanceof ScriptError) throw new ShardQueryError(script.toEsError(error).toCause());
  throw error;
}

/**
 * script_score (ES "Script score query"): the inner query's matches, each scored by the script with
 * `_score` (the inner score), `params` and the vector functions over the document's stored vectors
 * (the exact path kNN is measured against). The final score is the script's value × boost; a negative
 * value is ES's error; `min_score` drops documents below it.
 */
export async function compileScriptScore(
  ctx: CompileContext,
  query: ScriptScoreQuery,
  boost: number,
  scoring: boolean,
  compile: Compile,
): Promise<string> {
  let script: CompiledScript;
  try {
    script = compileScript(query.source);
  } catch (error) {
    if (error instanceof ScriptError) throw new ShardQueryError(error.toEsError(query.source).toCause());
    throw error;
  }
  const own = new SqlParams();
  const inner = await compile({ ...ctx, params: own }, query.query, 1, true);
  const { rows } = await ctx.db.query<{ doc_key: string; s: number }>(
    `SELECT doc_key, s FROM (${inner}) m ORDER BY doc_key LIMIT ${MAX_SCRIPT_SCORE_DOCS + 1}`,
    own.values,
  );
  if (rows.length > MAX_SCRIPT_SCORE_DOCS) {
    throw new ShardQueryError({
      type: 'illegal_argument_exception',
      reason: `[script_score] matched more than [${MAX_SCRIPT_SCORE_DOCS}] documents; narrow its query`,
    });
  }
  if (rows.length === 0) return NOTHING;
  const fields = fieldsNamedBy(ctx, query.source);
  const params: Value = fromJson(query.params, { maxDepth: 64 });
  const deadline = Date.now() + script.limits.timeoutMs;
  const keys: number[] = [];
  const scores: number[] = [];
  for (let start = 0; start < rows.length; start += PAGE) {
    const page = rows.slice(start, start + PAGE);
    const docKeys = page.map((r) => Number(r.doc_key));
    const vectors = new Map<string, Map<number, Float32Array>>();
    for (const field of fields)
      vectors.set(field.path, await loadDocumentVectors(ctx.db, ctx.reader.indexId, field, docKeys));
    for (let i = 0; i < page.length; i++) {
      const docKey = docKeys[i]!;
      let value: Value;
      try {
        value = script.run(
          {
            params,
            score: page[i]!.s,
            call: (name, args, at) => callVectorFunction(name, args, at, (f) => vectors.get(f)?.get(docKey)),
          },
          deadline,
        );
      } catch (error) {
        scriptFailure(script, error);
      }
      const score = typeof value === 'bigint' ? Number(value) : value;
      if (typeof score !== 'number' || Number.isNaN(score)) {
        throw new ShardQueryError({
          type: 'illegal_argument_exception',
          reason: `script_score script returned an invalid score [${String(score)}] for doc [${docKey}]. Must be a non-negative score!`,
        });
      }
      if (score < 0) {
        throw new ShardQueryError({
          type: 'illegal_argument_exception',
          reason: `script_score script returned an invalid score [${javaDouble(Math.fround(score))}] for doc [${docKey}]. Must be a non-negative score!`,
        });
      }
      const s = Math.fround(score * boost);
      if (query.minScore !== undefined && s < query.minScore) continue;
      keys.push(docKey);
      scores.push(scoring ? s : 0);
    }
  }
  if (keys.length === 0) return NOTHING;
  const p = ctx.params;
  return `SELECT * FROM unnest(${p.add(keys)}::bigint[], ${p.add(scores)}::float4[]) AS k(doc_key, s)`;
}
