import { compileScript, type CompiledScript } from '../../script/compile-script';
import { ScriptError } from '../../script/script-error';
import { DateValue, DocMap, DocValues, fromJson, toJson, type Value } from '../../script/script-values';
import { docValuesOf } from '../../query/compile/search-runtime-fields';
import type { IndexReader } from '../../query/index-reader';
import type { ScriptFieldSpec } from '../../query/parse/parse-fetch-options';
import { ShardQueryError } from '../../query/shard-query-error';

/** ES IndexSettings.MAX_SCRIPT_FIELDS_SETTING's default. */
const DEFAULT_MAX_SCRIPT_FIELDS = 32;

/** A request's script fields, compiled once and evaluated for each hit of the page. */
export interface ScriptFields {
  /** `{name: values}` for one hit; `source` is its parsed `_source` (read only when a script names it). */
  valuesFor(reader: IndexReader, source: () => Record<string, unknown>): [string, unknown[]][];
}

/**
 * ES SearchService#parseSource: more script fields than `index.max_script_fields` is a shard failure,
 * checked only when the request fetches hits (size > 0).
 */
function checkCount(readers: IndexReader[], count: number): void {
  for (const reader of readers) {
    const raw = reader.settings['index.max_script_fields'];
    const max = raw === undefined ? DEFAULT_MAX_SCRIPT_FIELDS : Number(raw);
    if (count > max) {
      throw new ShardQueryError({
        type: 'illegal_argument_exception',
        reason: `Trying to retrieve too many script_fields. Must be less than or equal to: [${max}] but was [${count}]. This limit can be set by changing the [index.max_script_fields] index level setting.`,
      });
    }
  }
}

function asShardFailure(script: CompiledScript, error: unknown): never {
  if (error instanceof ScriptError) throw new ShardQueryError(script.toEsError(error).toCause());
  throw error;
}

/** A script value as the hit's `fields` entry (ScriptFieldsPhase): a collection's items, else [value]. */
function toFieldValues(value: Value): unknown[] {
  const limits = { maxDepth: 256 };
  if (Array.isArray(value) || value instanceof DocValues) return toJson(value, limits) as unknown[];
  return [toJson(value, limits)];
}

/**
 * `script_fields` (ES "Retrieve selected fields › Script fields"): each script runs once per hit with
 * `doc` (the hit's doc values: keyword, numbers, dates, booleans) and `params` (with `_source` when the
 * script names it). Compile errors and runtime errors fail the search as ES's script_exception, unless
 * `ignore_failure` leaves that hit without the field.
 */
export function compileScriptFields(
  readers: IndexReader[],
  specs: ScriptFieldSpec[],
): ScriptFields | undefined {
  if (specs.length === 0) return undefined;
  checkCount(readers, specs.length);
  const compiled = specs.map((spec) => {
    let script: CompiledScript;
    try {
      script = compileScript(spec.source);
    } catch (error) {
      if (error instanceof ScriptError) throw new ShardQueryError(error.toEsError(spec.source).toCause());
      throw error;
    }
    return { spec, script, params: fromJson(spec.params, { maxDepth: 64 }) };
  });
  return {
    valuesFor(reader, source) {
      const out: [string, unknown[]][] = [];
      for (const { spec, script, params } of compiled) {
        const doc = new DocMap((field) => {
          const found = docValuesOf(reader, field, source());
          if (!found) return undefined;
          return new DocValues(
            field,
            found.type,
            found.values.map((v): Value => {
              if (found.type === 'long') return BigInt(Math.trunc(Number(v)));
              if (found.type === 'date') return new DateValue(Number(v));
              return v as Value;
            }),
          );
        });
        let scriptParams = params;
        if (spec.source.includes('_source') && params instanceof Map) {
          scriptParams = new Map(params);
          scriptParams.set('_source', fromJson(source(), { maxDepth: 64 }));
        }
        try {
          out.push([spec.name, toFieldValues(script.run({ params: scriptParams, doc }))]);
        } catch (error) {
          if (spec.ignoreFailure && error instanceof ScriptError) continue;
          asShardFailure(script, error);
        }
      }
      return out;
    },
  };
}
