/**
 * The seam between the update API and the script language (ES "Update API" with `script`): the
 * document store hands the script the update context and applies what comes back. Implemented by the
 * script interpreter in src/script/ (painless subset); until it is wired, updates with a script are
 * refused with 400 illegal_argument_exception.
 */
export interface UpdateScriptContext {
  /** The document being updated (a copy the script may change in place). */
  _source: Record<string, unknown>;
  /** `index` (write the new source), `none`/`noop` (no change), `delete` (delete the document), `create` in a scripted upsert. */
  op: 'index' | 'none' | 'noop' | 'delete' | 'create';
  _id: string;
  _index: string;
  _version: number;
  /** Epoch millis at the start of the request (`ctx._now`). */
  _now: number;
}

export interface ScriptRunner {
  /** Runs an update script; throws an EsError (script_exception / illegal_argument_exception) on failure. */
  runUpdateScript(
    source: string,
    params: Record<string, unknown>,
    ctx: UpdateScriptContext,
  ): UpdateScriptContext | Promise<UpdateScriptContext>;
}
