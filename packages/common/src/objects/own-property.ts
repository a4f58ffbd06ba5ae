/**
 * Reads and writes of objects keyed by user strings (document fields, mapping properties, index
 * settings, alias names, request parameters, log fields), shared by both services. In Elasticsearch
 * `__proto__`, `constructor`, `prototype` or `toString` are ordinary field names; in a JS
 * object `obj[key]` would read an inherited member, and `obj['__proto__'] = v` would replace the
 * prototype (issue 17: a document `{"__proto__": {...}}` wrote `Object.prototype.properties` and took
 * the process down). So every such read goes through `Object.hasOwn` and every write defines an own
 * data property, whatever the object's prototype: objects from `JSON.parse`, pg or `structuredClone`
 * have `Object.prototype`, and new dictionaries are made without one.
 */

/** The value of `record`'s own property `key`, never an inherited one. */
export function ownValue<T>(record: Readonly<Record<string, T>> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Sets `record[key]` as an own, enumerable data property (a `__proto__` key stays a key). */
export function setOwn<T>(record: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(record, key, { value, writable: true, enumerable: true, configurable: true });
}

/** An empty dictionary with no prototype: nothing to inherit, no `__proto__` setter. */
export function newDictionary<T>(): Record<string, T> {
  return Object.create(null) as Record<string, T>;
}

/** A shallow copy as a null-prototype dictionary (own enumerable keys, `__proto__` included). */
export function copyDictionary<T>(record: Readonly<Record<string, T>> | undefined): Record<string, T> {
  const out = newDictionary<T>();
  if (record !== undefined) for (const [key, value] of Object.entries(record)) out[key] = value;
  return out;
}
