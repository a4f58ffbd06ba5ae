import { EsError, newDictionary, ownValue, setOwn, type EsCause } from '@acme/common';
import { denseVectorValueCause } from './check-dense-vector';
import { checkFieldValue, preview } from './check-field-value';
import { geoPointCause } from './check-geo-point';
import { inferDynamicField, type DynamicField } from './infer-dynamic-field';
import {
  checkMappingLimits,
  checkObjectDepth,
  countFieldMappers,
  countTotalFields,
  DEFAULT_MAPPING_LIMITS,
  totalFieldsExceeded,
  type MappingLimits,
} from './mapping-limits';
import { isObjectMapping } from './nested-mapping';
import type { DynamicSetting, FieldMapping, IndexMapping } from './mapping-types';
import { needsRawLongText, previewNumber, type RawNumber } from './raw-number';
import { DEFAULT_DEPTH_LIMIT, flattenedDepth } from './flattened-value';
import { forgetUnsignedLongs, noteUnsignedLong, parseUnsignedLongValue } from './unsigned-long';
import { completionInputs } from './completion-field';

/** A path into the JSON source (object keys as written, array positions) used to locate errors. */
export type JsonPath = (string | number)[];
/** Returns the `[line:col] ` prefix Elasticsearch puts on document errors, or '' when unknown. */
export type Locate = (path: JsonPath) => string;
/** The raw text of the JSON number at `path`, when the source text is known. */
export type RawNumberAt = (path: JsonPath) => RawNumber | undefined;

export interface MapDocumentOptions {
  /** The index's `index.mapping.*.limit` settings (defaults: ES's). */
  limits?: MappingLimits;
  rawNumber?: RawNumberAt;
}

export interface MappedDocument {
  mapping: IndexMapping;
  /** True when dynamic mapping added fields; the caller saves `mapping`. */
  changed: boolean;
}

const METADATA_FIELDS = new Set([
  '_id',
  '_index',
  '_source',
  '_routing',
  '_version',
  '_seq_no',
  '_primary_term',
  '_field_names',
  '_ignored',
  '_tier',
  '_data_stream_timestamp',
]);

/**
 * Validates a document against the index mapping and applies dynamic mapping (ES "Dynamic field
 * mapping"): a new field is added (`true`/`runtime`), ignored (`false`) or refused (`strict`), with the
 * setting inherited from the nearest object. Values are checked per type. The mapping is copied on the
 * first addition, so a document that fails leaves the caller's mapping untouched. Pure.
 */
export function mapDocument(
  mapping: IndexMapping,
  source: Record<string, unknown>,
  id: string,
  locate: Locate,
  options: MapDocumentOptions = {},
): MappedDocument {
  const limits = options.limits ?? DEFAULT_MAPPING_LIMITS;
  const walker = new DocumentWalker(mapping, id, locate, limits, options.rawNumber, source);
  forgetUnsignedLongs(source);
  for (const key of Object.keys(source)) {
    if (METADATA_FIELDS.has(key)) {
      throw new EsError(
        'document_parsing_exception',
        `${locate([key])}Field [${key}] is a metadata field and cannot be added inside a document. Use the index API request parameters.`,
      );
    }
  }
  walker.walkObject([], source, [], dynamicOf(mapping.dynamic) ?? 'true');
  // The dynamic update is merged like any mapping change (MapperService preflight merge), which checks
  // every limit again; only the field name length is not checked while parsing.
  if (walker.changed) checkMappingLimits(walker.mapping, limits);
  return { mapping: walker.mapping, changed: walker.changed };
}

function dynamicOf(value: DynamicSetting | boolean | undefined): DynamicSetting | undefined {
  return value === undefined ? undefined : (String(value) as DynamicSetting);
}

class DocumentWalker {
  changed = false;
  /** Fields this document added so far (ES `DocumentParserContext.getNewFieldsSize`). */
  private newFields = 0;
  private existingFields: number | undefined;
  private nestedObjects = 0;

  constructor(
    public mapping: IndexMapping,
    private readonly id: string,
    private readonly locate: Locate,
    private readonly limits: MappingLimits,
    private readonly rawNumber: RawNumberAt | undefined,
    private readonly root: Record<string, unknown>,
  ) {}

  /**
   * ES `DocumentParserContext.addDynamicMapper`: a new object's depth is checked first, then the total
   * field count with this mapper's fields; either failure refuses the document as
   * `document_parsing_exception` "failed to parse: …" (DocumentParser#wrapInDocumentParsingException).
   */
  /** Returns false when the field is over the limit and `ignore_dynamic_beyond_limit` leaves it unmapped. */
  private checkDynamicAddition(
    fullPath: string,
    size: number,
    isObject: boolean,
    jsonPath: JsonPath,
  ): boolean {
    try {
      if (isObject) checkObjectDepth(this.limits.depth, fullPath);
    } catch (error) {
      if (error instanceof EsError) throw this.failedToParse(error.reason, jsonPath);
      throw error;
    }
    this.existingFields ??= countTotalFields(this.mapping);
    const adding = this.newFields + size;
    if (this.existingFields + adding > this.limits.totalFields) {
      if (this.limits.ignoreDynamicBeyondLimit) return false;
      throw this.failedToParse(totalFieldsExceeded(this.limits.totalFields, adding), jsonPath);
    }
    this.newFields = adding;
    return true;
  }

  /**
   * ES DocumentParserContext#addDoc: every nested object is a document, at most
   * `index.mapping.nested_objects.limit` of them per document (DocumentParsingException at the object).
   */
  private countNestedObject(jsonPath: JsonPath): void {
    this.nestedObjects++;
    if (this.nestedObjects <= this.limits.nestedObjects) return;
    throw new EsError(
      'document_parsing_exception',
      `${this.locate(jsonPath)}The number of nested documents has exceeded the allowed limit of [${this.limits.nestedObjects}]. This limit can be set by changing the [index.mapping.nested_objects.limit] index level setting.`,
    );
  }

  private failedToParse(reason: string, jsonPath: JsonPath): EsError {
    return new EsError('document_parsing_exception', `${this.locate(jsonPath)}failed to parse: ${reason}`, {
      causedBy: { type: 'illegal_argument_exception', reason },
    });
  }

  /** The properties of the object at `objectPath` (read only: never creates anything). */
  private properties(objectPath: string[]): Record<string, FieldMapping> | undefined {
    let props = this.mapping.properties;
    for (const name of objectPath) props = ownValue(props, name)?.properties;
    return props;
  }

  /** The properties at `objectPath` in the copied mapping, created along the way. */
  private writableProperties(objectPath: string[]): Record<string, FieldMapping> {
    this.copyOnWrite();
    let props = (this.mapping.properties ??= newDictionary());
    for (const name of objectPath) {
      let field = ownValue(props, name);
      if (!field) setOwn(props, name, (field = { properties: newDictionary() }));
      props = field.properties ??= newDictionary();
    }
    return props;
  }

  /** Adds (or replaces) the field `name` of the object at `objectPath` in the copied mapping. */
  private addField(objectPath: string[], name: string, field: FieldMapping): void {
    setOwn(this.writableProperties(objectPath), name, field);
  }

  private field(objectPath: string[], name: string): FieldMapping | undefined {
    return ownValue(this.properties(objectPath), name);
  }

  private copyOnWrite(): void {
    if (!this.changed) {
      this.mapping = structuredClone(this.mapping);
      this.changed = true;
    }
  }

  walkObject(
    objectPath: string[],
    value: Record<string, unknown>,
    jsonPath: JsonPath,
    dynamic: DynamicSetting,
  ): void {
    for (const [key, child] of Object.entries(value)) {
      // ES DotExpandingXContentParser: IllegalArgumentException, wrapped as "failed to parse: …".
      if (key === '') throw this.failedToParse('field name cannot be an empty string', [...jsonPath, key]);
      const names = key.split('.');
      if (names.some((n) => n === '')) {
        throw new EsError(
          'document_parsing_exception',
          `${this.locate([...jsonPath, key])}field name cannot contain only whitespace or dots: ['${key}']`,
        );
      }
      // `{"a.b": 1}` is `{"a": {"b": 1}}` (ES "Dots in field names").
      let path = objectPath;
      let inherited = dynamic;
      for (const name of names.slice(0, -1)) {
        inherited = this.ensureObject(path, name, [...jsonPath, key], inherited);
        path = [...path, name];
      }
      this.walkField(path, names[names.length - 1] ?? key, child, [...jsonPath, key], inherited);
    }
  }

  /** Enters (or dynamically creates) an object field; returns the dynamic setting inside it. */
  private ensureObject(
    objectPath: string[],
    name: string,
    jsonPath: JsonPath,
    dynamic: DynamicSetting,
  ): DynamicSetting {
    const existing = this.field(objectPath, name);
    if (existing) {
      if (!isObjectMapping(existing)) {
        throw this.concreteExpected(objectPath, name, existing, jsonPath);
      }
      return dynamicOf(existing.dynamic) ?? dynamic;
    }
    // dynamic false: the unmapped object and everything under it stay out of the mapping.
    if (dynamic === 'false') return 'false';
    this.checkDynamicAllowed(objectPath, name, jsonPath, dynamic);
    if (!this.checkDynamicAddition([...objectPath, name].join('.'), 1, true, jsonPath)) return 'false';
    this.addField(objectPath, name, { properties: newDictionary() });
    return dynamic;
  }

  private walkField(
    objectPath: string[],
    name: string,
    value: unknown,
    jsonPath: JsonPath,
    dynamic: DynamicSetting,
  ): void {
    if (value === null) return;
    const field = this.field(objectPath, name);
    if (field?.type === 'dense_vector') return this.checkLeaf(objectPath, name, value, jsonPath);
    // A point may itself be an array or an object (mapping/check-geo-point.ts): checked whole.
    if (field?.type === 'geo_point') {
      const full = [...objectPath, name].join('.');
      const cause = geoPointCause(field, value, full);
      if (cause) throw this.parseFailure(full, field, value, jsonPath, cause);
      return;
    }
    if (Array.isArray(value)) {
      value.forEach((item, i) => this.walkField(objectPath, name, item, [...jsonPath, i], dynamic));
      return;
    }
    const isObject = typeof value === 'object';
    if (field?.type === 'flattened') return this.checkFlattened(objectPath, name, field, value, jsonPath);
    if (field && isObjectMapping(field)) {
      if (field.type === 'nested' && isObject) this.countNestedObject(jsonPath);
      if (!isObject) {
        const full = [...objectPath, name].join('.');
        throw new EsError(
          'document_parsing_exception',
          `${this.locate(jsonPath)}object mapping for [${full}] tried to parse field [${name}] as object, but found a concrete value`,
        );
      }
      const inner = dynamicOf(field.dynamic) ?? dynamic;
      return this.walkObject([...objectPath, name], value as Record<string, unknown>, jsonPath, inner);
    }
    if (field) return this.checkLeaf(objectPath, name, value, jsonPath);
    if (this.isRuntimeField([...objectPath, name].join('.'))) return;
    if (dynamic === 'false') return;
    this.checkDynamicAllowed(objectPath, name, jsonPath, dynamic);
    if (isObject) {
      if (!this.checkDynamicAddition([...objectPath, name].join('.'), 1, true, jsonPath)) return;
      this.addField(objectPath, name, { properties: newDictionary() });
      return this.walkObject([...objectPath, name], value as Record<string, unknown>, jsonPath, dynamic);
    }
    // ES maps by the token: `1.0` and `1e3` are floats although JS reads them as integers.
    const raw = typeof value === 'number' && Number.isInteger(value) ? this.rawNumber?.(jsonPath) : undefined;
    const integerLiteral = raw === undefined || /^-?\d+$/.test(raw.text);
    const dynamicField = inferDynamicField(value, this.mapping, dynamic === 'runtime', integerLiteral);
    if (dynamicField.runtime || dynamicField.field) {
      const size = dynamicField.field ? countFieldMappers(dynamicField.field) : 1;
      if (!this.checkDynamicAddition([...objectPath, name].join('.'), size, false, jsonPath)) return;
    }
    this.addDynamicLeaf(objectPath, name, dynamicField);
    if (dynamic !== 'runtime') this.checkLeaf(objectPath, name, value, jsonPath);
  }

  private isRuntimeField(fullName: string): boolean {
    return ownValue(this.mapping.runtime, fullName) !== undefined;
  }

  private addDynamicLeaf(objectPath: string[], name: string, dynamicField: DynamicField): void {
    this.copyOnWrite();
    if (dynamicField.runtime) {
      setOwn(
        (this.mapping.runtime ??= newDictionary()),
        [...objectPath, name].join('.'),
        dynamicField.runtime,
      );
    } else if (dynamicField.field) {
      this.addField(objectPath, name, dynamicField.field);
    }
  }

  private checkDynamicAllowed(
    objectPath: string[],
    name: string,
    jsonPath: JsonPath,
    dynamic: DynamicSetting,
  ): void {
    if (dynamic !== 'strict') return;
    const parent = objectPath.length === 0 ? '_doc' : objectPath.join('.');
    throw new EsError(
      'strict_dynamic_mapping_exception',
      `${this.locate(jsonPath)}mapping set to strict, dynamic introduction of [${name}] within [${parent}] is not allowed`,
    );
  }

  private checkLeaf(objectPath: string[], name: string, value: unknown, jsonPath: JsonPath): void {
    const field = this.field(objectPath, name);
    if (!field) return;
    const full = [...objectPath, name].join('.');
    checkImmenseTerm(field, value, full);
    const raw = needsRawLongText(value) ? this.rawNumber?.(jsonPath) : undefined;
    const cause = this.numberAwareCause(field, value, full, jsonPath, raw);
    if (cause && !ignoresMalformed(field)) throw this.parseFailure(full, field, value, jsonPath, cause);
    if (!cause && field.type === 'unsigned_long') this.noteExact(full, value, jsonPath, raw);
    for (const [subName, sub] of Object.entries(field.fields ?? {})) {
      checkImmenseTerm(sub, value, `${full}.${subName}`);
      const subCause = this.numberAwareCause(sub, value, `${full}.${subName}`, jsonPath, raw);
      if (subCause && !ignoresMalformed(sub))
        throw this.parseFailure(`${full}.${subName}`, sub, value, jsonPath, subCause);
    }
  }

  /** An unsigned long's exact value, from the number's text when a double cannot hold it (indexing reads it). */
  private noteExact(full: string, value: unknown, jsonPath: JsonPath, raw: RawNumber | undefined): void {
    if (value === '') return;
    const inexact = typeof value === 'number' && !Number.isSafeInteger(value);
    const text = raw?.text ?? (inexact ? this.rawNumber?.(jsonPath)?.text : undefined);
    const parsed = parseUnsignedLongValue(value, text);
    if (parsed.ok) noteUnsignedLong(this.root, full, parsed.value);
  }

  /** flattened: any object (scalars too, as a root value), nested at most `depth_limit` objects deep. */
  private checkFlattened(
    objectPath: string[],
    name: string,
    field: FieldMapping,
    value: unknown,
    jsonPath: JsonPath,
  ): void {
    const limit = typeof field.depth_limit === 'number' ? field.depth_limit : DEFAULT_DEPTH_LIMIT;
    if (typeof value !== 'object' || flattenedDepth(value) <= limit) return;
    const full = [...objectPath, name].join('.');
    throw this.parseFailure(full, field, value, jsonPath, {
      type: 'illegal_argument_exception',
      reason: `The provided [flattened] field [${full}] exceeds the maximum depth limit of [${limit}].`,
    });
  }

  /** A failing number is checked again on its text, which decides ES's exact cause. */
  private numberAwareCause(
    field: FieldMapping,
    value: unknown,
    full: string,
    jsonPath: JsonPath,
    raw: RawNumber | undefined,
  ): EsCause | undefined {
    const cause = this.leafCause(field, value, full, raw);
    if (!cause || raw !== undefined || typeof value !== 'number') return cause;
    const text = this.rawNumber?.(jsonPath);
    return text ? this.leafCause(field, value, full, text) : cause;
  }

  private leafCause(field: FieldMapping, value: unknown, full: string, raw?: RawNumber): EsCause | undefined {
    if (field.type === 'dense_vector') return this.vectorCause(field, value, full);
    if (field.type === 'sparse_vector') return sparseVectorCause(value);
    if (field.type === 'completion') {
      const inputs = completionInputs(value);
      return Array.isArray(inputs) ? undefined : inputs;
    }
    if (typeof value === 'object' && value !== null) {
      return { type: 'illegal_state_exception', reason: `Can't get text on a START_OBJECT` };
    }
    const check = checkFieldValue(field, value, raw);
    return check.ok ? undefined : check.cause;
  }

  /** dense_vector: an array of numbers whose length is `dims` (set from the first document if absent). */
  private vectorCause(field: FieldMapping, value: unknown, full: string): EsCause | undefined {
    const values = Array.isArray(value) ? value : [value];
    if (!values.every((v) => typeof v === 'number' && Number.isFinite(v))) {
      return {
        type: 'illegal_argument_exception',
        reason: `[dense_vector] field [${full}] only accepts numbers`,
      };
    }
    if (field.dims === undefined) {
      const names = full.split('.');
      const leaf = ownValue(this.writableProperties(names.slice(0, -1)), names[names.length - 1] ?? full);
      if (leaf) leaf.dims = values.length;
      return undefined;
    }
    if (values.length !== field.dims) {
      return {
        type: 'illegal_argument_exception',
        reason: `The [dense_vector] field [${full}] in doc [document with id '${this.id}'] has a different number of dimensions [${values.length}] than defined in the mapping [${field.dims}]`,
      };
    }
    return denseVectorValueCause(field, values as number[]);
  }

  private parseFailure(
    full: string,
    field: FieldMapping,
    value: unknown,
    jsonPath: JsonPath,
    cause: EsCause,
  ): EsError {
    const raw = typeof value === 'number' ? this.rawNumber?.(jsonPath) : undefined;
    const shown = raw ? previewNumber(raw.text) : preview(value);
    return new EsError(
      'document_parsing_exception',
      `${this.locate(jsonPath)}failed to parse field [${full}] of type [${field.type ?? 'object'}] in document with id '${this.id}'. Preview of field's value: '${shown}'`,
      { causedBy: cause },
    );
  }

  private concreteExpected(
    objectPath: string[],
    name: string,
    field: FieldMapping,
    jsonPath: JsonPath,
  ): EsError {
    const full = [...objectPath, name].join('.');
    return new EsError(
      'document_parsing_exception',
      `${this.locate(jsonPath)}Could not dynamically add mapping for field [${full}]. Existing mapping for [${full}] must be of type object but found [${field.type ?? 'object'}].`,
    );
  }
}

/**
 * The longest keyword term we store, in UTF-8 bytes. Lucene's limit is 32766 (IndexWriter.MAX_TERM_LENGTH);
 * ours is what one btree entry holds: a keyword value is a key of the term dictionary
 * (index_id, field_id, term) and of the keyword doc values index (index_id, field_id, kw, doc_key), and
 * Postgres refuses an entry over 2704 bytes (a third of a page), less the other columns: past ~2680
 * bytes of text that does not compress, the whole batch's statement failed. A documented difference
 * from Elasticsearch (DESIGN.md), refused per document with Lucene's error and our number.
 */
export const MAX_TERM_BYTES = 2600;

/**
 * A keyword value is one term; past MAX_TERM_BYTES the whole document is refused, as Lucene refuses
 * one past 32766 bytes. Values over `ignore_above` are not indexed, so they never reach the limit
 * (ES "keyword" / "ignore_above").
 */
function checkImmenseTerm(field: FieldMapping, value: unknown, full: string): void {
  if (field.type !== 'keyword' || value === null || typeof value === 'object') return;
  const text = String(value);
  if (field.ignore_above !== undefined && text.length > field.ignore_above) return;
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= MAX_TERM_BYTES) return;
  const prefix = `[${[...bytes.subarray(0, 10)].join(', ')}]...`;
  throw new EsError(
    'illegal_argument_exception',
    `Document contains at least one immense term in field="${full}" (whose UTF8 encoding is longer than the max length ${MAX_TERM_BYTES}), all of which were skipped.  Please correct the analyzer to not produce such terms.  The prefix of the first immense term is: '${prefix}', original message: bytes can be at most ${MAX_TERM_BYTES} in length; got ${bytes.length}`,
    {
      causedBy: {
        type: 'max_bytes_length_exceeded_exception',
        reason: `bytes can be at most ${MAX_TERM_BYTES} in length; got ${bytes.length}`,
      },
    },
  );
}

/**
 * `ignore_malformed: true` (ES "ignore_malformed"): a value the field cannot parse is left out of the
 * index and the document is kept (its `_source` unchanged). Applied to the types whose indexing skips
 * values it cannot parse (`index/analyze-document.ts`).
 */
const IGNORE_MALFORMED_TYPES: ReadonlySet<string> = new Set(['ip', 'unsigned_long']);
function ignoresMalformed(field: FieldMapping): boolean {
  return field.ignore_malformed === true && IGNORE_MALFORMED_TYPES.has(field.type ?? '');
}

function sparseVectorCause(value: unknown): EsCause | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      type: 'illegal_argument_exception',
      reason: '[sparse_vector] fields must be json objects, expected a START_OBJECT',
    };
  }
  for (const [token, weight] of Object.entries(value as Record<string, unknown>)) {
    if (typeof weight !== 'number' || !(weight > 0) || !Number.isFinite(weight)) {
      return {
        type: 'illegal_argument_exception',
        reason: `[sparse_vector] field values must be positive floats, got [${preview(weight)}] for token [${token}]`,
      };
    }
  }
  return undefined;
}
