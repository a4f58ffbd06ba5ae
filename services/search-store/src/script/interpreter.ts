import type { BinaryOp, Expr, Program, Stmt, TypeName } from './ast';
import { ScriptError } from './script-error';
import {
  callMethod,
  getIndex,
  getMember,
  iterableValues,
  setIndex,
  setMember,
  toLong,
} from './script-methods';
import { castError, fail, npe, type ScriptRuntime } from './script-runtime';
import {
  DocMap,
  StaticType,
  STATIC_TYPES,
  isNumeric,
  typeOfValue,
  valueEquals,
  type Value,
} from './script-values';

/** What a script can reach: its params, and per context the document (`doc`), `ctx` and `emit`. */
export interface ScriptEnv {
  params: Value;
  doc?: DocMap;
  ctx?: Value;
  emit?: (args: Value[], at: number) => void;
  /** script_score: `_score`, and functions of the context (the vector functions, vector-functions.ts). */
  score?: number;
  call?: (name: string, args: Value[], at: number) => Value | undefined;
}

interface Slot {
  type: TypeName;
  value: Value;
}

const enum Signal {
  Normal,
  Break,
  Continue,
  Return,
}

/** A tree-walking interpreter; every statement and loop iteration costs one step of the budget. */
export class Interpreter {
  private scopes: Array<Map<string, Slot>> = [new Map()];
  private returned: Value = null;

  constructor(
    private readonly rt: ScriptRuntime,
    private readonly env: ScriptEnv,
  ) {}

  /** Runs the program; the result is the `return` value, or the last top-level expression's value. */
  run(program: Program): Value {
    let last: Value = null;
    for (const stmt of program.body) {
      if (stmt.k === 'expr') {
        this.rt.step(stmt.at);
        last = this.evaluate(stmt.expr);
        continue;
      }
      const signal = this.exec(stmt);
      if (signal === Signal.Return) return this.returned;
      if (signal !== Signal.Normal)
        fail('illegal_argument_exception', 'break or continue outside of a loop', stmt.at);
      last = null;
    }
    return last;
  }

  private exec(stmt: Stmt): Signal {
    this.rt.step(stmt.at);
    switch (stmt.k) {
      case 'expr':
        this.evaluate(stmt.expr);
        return Signal.Normal;
      case 'decl':
        for (const v of stmt.vars) {
          const scope = this.scopes[this.scopes.length - 1] as Map<string, Slot>;
          if (this.lookup(v.name))
            fail('illegal_argument_exception', `variable [${v.name}] is already defined`, v.at);
          const value = v.init ? coerce(stmt.type, this.evaluate(v.init), v.at) : defaultValue(stmt.type);
          scope.set(v.name, { type: stmt.type, value });
        }
        return Signal.Normal;
      case 'block':
        return this.scoped(() => {
          for (const s of stmt.body) {
            const signal = this.exec(s);
            if (signal !== Signal.Normal) return signal;
          }
          return Signal.Normal;
        });
      case 'if':
        if (this.test(stmt.test)) return this.scoped(() => this.exec(stmt.then));
        return stmt.else ? this.scoped(() => this.exec(stmt.else as Stmt)) : Signal.Normal;
      case 'while':
        while (this.test(stmt.test)) {
          const signal = this.scoped(() => this.exec(stmt.body));
          if (signal === Signal.Break) break;
          if (signal === Signal.Return) return signal;
        }
        return Signal.Normal;
      case 'do':
        do {
          const signal = this.scoped(() => this.exec(stmt.body));
          if (signal === Signal.Break) break;
          if (signal === Signal.Return) return signal;
        } while (this.test(stmt.test));
        return Signal.Normal;
      case 'for':
        return this.scoped(() => {
          if (stmt.init) this.exec(stmt.init);
          while (stmt.test === null || this.test(stmt.test)) {
            const signal = this.scoped(() => this.exec(stmt.body));
            if (signal === Signal.Break) break;
            if (signal === Signal.Return) return signal;
            for (const u of stmt.update) this.evaluate(u);
            this.rt.step(stmt.at);
          }
          return Signal.Normal;
        });
      case 'foreach': {
        const items = iterableValues(this.evaluate(stmt.iterable), stmt.iterable.at);
        this.rt.chargeSlots(items.length, stmt.at); // the loop walks a copy
        for (const item of items) {
          const signal = this.scoped(() => {
            (this.scopes[this.scopes.length - 1] as Map<string, Slot>).set(stmt.name, {
              type: stmt.type,
              value: coerce(stmt.type, item, stmt.at),
            });
            return this.exec(stmt.body);
          });
          if (signal === Signal.Break) break;
          if (signal === Signal.Return) return signal;
        }
        return Signal.Normal;
      }
      case 'return':
        this.returned = stmt.value ? this.evaluate(stmt.value) : null;
        return Signal.Return;
      case 'break':
        return Signal.Break;
      case 'continue':
        return Signal.Continue;
    }
  }

  private scoped(body: () => Signal): Signal {
    this.scopes.push(new Map());
    try {
      return body();
    } finally {
      this.scopes.pop();
    }
  }

  private lookup(name: string): Slot | undefined {
    for (let i = this.scopes.length - 1; i >= 0; i -= 1) {
      const slot = (this.scopes[i] as Map<string, Slot>).get(name);
      if (slot) return slot;
    }
    return undefined;
  }

  private test(expr: Expr): boolean {
    const v = this.evaluate(expr);
    if (typeof v === 'boolean') return v;
    if (v === null) return npe('use as a condition', expr.at);
    return castError(v, 'boolean', expr.at);
  }

  private evaluate(e: Expr): Value {
    switch (e.k) {
      case 'lit':
        return e.value;
      case 'var':
        return this.variable(e.name, e.at);
      case 'member': {
        const obj = this.evaluate(e.obj);
        if (obj === null && e.nullSafe) return null;
        return getMember(this.rt, obj, e.name, e.at);
      }
      case 'index':
        return getIndex(this.rt, this.evaluate(e.obj), this.evaluate(e.index), e.at);
      case 'call':
        return this.call(
          e.name,
          e.args.map((a) => this.evaluate(a)),
          e.at,
        );
      case 'mcall': {
        const obj = this.evaluate(e.obj);
        if (obj === null && e.nullSafe) return null;
        return callMethod(
          this.rt,
          obj,
          e.name,
          e.args.map((a) => this.evaluate(a)),
          e.at,
        );
      }
      case 'unary':
        return this.unary(e.op, this.evaluate(e.expr), e.at);
      case 'binary':
        return this.binary(e.op, this.evaluate(e.left), this.evaluate(e.right), e.at);
      case 'logical':
        if (e.op === '&&') return this.test(e.left) && this.test(e.right);
        return this.test(e.left) || this.test(e.right);
      case 'cond':
        return this.test(e.test) ? this.evaluate(e.then) : this.evaluate(e.else);
      case 'elvis': {
        const left = this.evaluate(e.left);
        return left !== null ? left : this.evaluate(e.right);
      }
      case 'assign':
        return this.assign(e);
      case 'update': {
        const ref = this.reference(e.target);
        const old = ref.get();
        if (!isNumeric(old)) return old === null ? npe('increment', e.at) : castError(old, 'number', e.at);
        const next = this.binary(e.op === '++' ? '+' : '-', old, 1n, e.at);
        ref.set(next, true);
        return e.prefix ? next : old;
      }
      case 'cast':
        return cast(e.type, this.evaluate(e.expr), e.at);
      case 'instanceof':
        return isInstance(e.type, this.evaluate(e.expr));
      case 'list': {
        this.rt.checkSize(e.items.length, e.at);
        this.rt.chargeSlots(e.items.length, e.at);
        return e.items.map((item) => this.evaluate(item));
      }
      case 'map': {
        this.rt.checkSize(e.entries.length, e.at);
        this.rt.chargeSlots(e.entries.length, e.at);
        return new Map(e.entries.map(([k, v]) => [this.evaluate(k), this.evaluate(v)] as [Value, Value]));
      }
      case 'new':
        return construct(
          this.rt,
          e.type,
          e.args.map((a) => this.evaluate(a)),
          e.at,
        );
    }
  }

  private variable(name: string, at: number): Value {
    const slot = this.lookup(name);
    if (slot) return slot.value;
    switch (name) {
      case 'params':
        return this.env.params;
      case 'doc':
        if (this.env.doc) return this.env.doc;
        break;
      case 'ctx':
        if (this.env.ctx !== undefined) return this.env.ctx;
        break;
      case '_score':
        if (this.env.score !== undefined) return this.env.score;
        break;
      default:
        if (STATIC_TYPES.has(name)) return new StaticType(name);
    }
    return fail('illegal_argument_exception', `cannot resolve symbol [${name}]`, at);
  }

  private call(name: string, args: Value[], at: number): Value {
    if (name === 'emit' && this.env.emit) {
      this.env.emit(args, at);
      return null;
    }
    const called = this.env.call?.(name, args, at);
    if (called !== undefined) return called;
    return fail('illegal_argument_exception', `Unknown call [${name}] with [${args.length}] arguments.`, at);
  }

  private reference(target: Expr): { get(): Value; set(v: Value, compound: boolean): void } {
    switch (target.k) {
      case 'var': {
        const slot = this.lookup(target.name);
        if (!slot) {
          if (['params', 'doc', 'ctx'].includes(target.name))
            fail('illegal_argument_exception', `cannot assign a value to [${target.name}]`, target.at);
          return fail('illegal_argument_exception', `cannot resolve symbol [${target.name}]`, target.at);
        }
        return {
          get: () => slot.value,
          set: (v, compound) => {
            slot.value = compound ? cast(slot.type, v, target.at) : coerce(slot.type, v, target.at);
          },
        };
      }
      case 'member': {
        const obj = this.evaluate(target.obj);
        return {
          get: () => getMember(this.rt, obj, target.name, target.at),
          set: (v) => setMember(this.rt, obj, target.name, v, target.at),
        };
      }
      case 'index': {
        const obj = this.evaluate(target.obj);
        const index = this.evaluate(target.index);
        return {
          get: () => getIndex(this.rt, obj, index, target.at),
          set: (v) => setIndex(this.rt, obj, index, v, target.at),
        };
      }
      default:
        return fail('illegal_argument_exception', 'invalid assignment target', target.at);
    }
  }

  private assign(e: Extract<Expr, { k: 'assign' }>): Value {
    const ref = this.reference(e.target);
    if (e.op === '=') {
      const v = this.evaluate(e.value);
      ref.set(v, false);
      return v;
    }
    const left = ref.get();
    const right = this.evaluate(e.value);
    const op = e.op.slice(0, -1) as BinaryOp;
    // Java: `s += x` on a null String gives "null…"; on a null number it is a NullPointerException.
    const result = this.binary(op, left, right, e.at);
    ref.set(result, true);
    return result;
  }

  private unary(op: '!' | '-' | '+' | '~', v: Value, at: number): Value {
    switch (op) {
      case '!':
        if (typeof v !== 'boolean') return castError(v, 'boolean', at);
        return !v;
      case '-':
        if (typeof v === 'bigint') return BigInt.asIntN(64, -v);
        if (typeof v === 'number') return -v;
        break;
      case '+':
        if (isNumeric(v)) return v;
        break;
      case '~':
        if (typeof v === 'bigint') return ~v;
        break;
    }
    if (v === null) return npe(`apply [${op}]`, at);
    return fail('class_cast_exception', `Cannot apply [${op}] operation to type [${typeOfValue(v)}].`, at);
  }

  binary(op: BinaryOp, a: Value, b: Value, at: number): Value {
    switch (op) {
      case '+':
        if (typeof a === 'string' || typeof b === 'string')
          return this.rt.concat(this.rt.stringOf(a, at), this.rt.stringOf(b, at), at);
        return arithmetic(op, a, b, at);
      case '-':
      case '*':
      case '/':
      case '%':
        return arithmetic(op, a, b, at);
      case '==':
        return valueEquals(a, b, () => this.rt.step(at));
      case '!=':
        return !valueEquals(a, b, () => this.rt.step(at));
      case '===':
        return isNumeric(a) && isNumeric(b) ? valueEquals(a, b, () => this.rt.step(at)) : a === b;
      case '!==':
        return !(isNumeric(a) && isNumeric(b) ? valueEquals(a, b, () => this.rt.step(at)) : a === b);
      case '<':
      case '<=':
      case '>':
      case '>=':
        if (!isNumeric(a) || !isNumeric(b)) return opError(op, a, b, at);
        return op === '<' ? a < b : op === '<=' ? a <= b : op === '>' ? a > b : a >= b;
      case '&':
      case '|':
      case '^':
        if (typeof a === 'boolean' && typeof b === 'boolean')
          return op === '&' ? a && b : op === '|' ? a || b : a !== b;
        if (typeof a === 'bigint' && typeof b === 'bigint')
          return op === '&' ? a & b : op === '|' ? a | b : a ^ b;
        return opError(op, a, b, at);
      case '<<':
      case '>>':
      case '>>>': {
        if (typeof a !== 'bigint' || typeof b !== 'bigint') return opError(op, a, b, at);
        const shift = b & 63n;
        if (op === '<<') return BigInt.asIntN(64, a << shift);
        if (op === '>>') return a >> shift;
        return BigInt.asIntN(64, BigInt.asUintN(64, a) >> shift);
      }
    }
  }
}

function opError(op: string, a: Value, b: Value, at: number): never {
  if (a === null || b === null) return npe(`apply [${op}]`, at);
  return fail(
    'class_cast_exception',
    `Cannot apply [${op}] operation to types [${typeOfValue(a)}] and [${typeOfValue(b)}].`,
    at,
  );
}

/** Java numeric promotion: long op long stays long (truncating division), anything with a double is double. */
function arithmetic(op: '+' | '-' | '*' | '/' | '%', a: Value, b: Value, at: number): Value {
  if (typeof a === 'bigint' && typeof b === 'bigint') {
    switch (op) {
      case '+':
        return BigInt.asIntN(64, a + b);
      case '-':
        return BigInt.asIntN(64, a - b);
      case '*':
        return BigInt.asIntN(64, a * b);
      case '/':
        if (b === 0n) return fail('arithmetic_exception', '/ by zero', at);
        return BigInt.asIntN(64, a / b);
      case '%':
        if (b === 0n) return fail('arithmetic_exception', '/ by zero', at);
        return a % b;
    }
  }
  if (!isNumeric(a) || !isNumeric(b)) return opError(op, a, b, at);
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '%':
      return x % y;
  }
}

const INTEGRAL: ReadonlySet<TypeName> = new Set(['int', 'long', 'short', 'byte', 'char', 'Integer', 'Long']);
const FLOATING: ReadonlySet<TypeName> = new Set(['double', 'float', 'Double', 'Float']);
const PRIMITIVE: ReadonlySet<TypeName> = new Set([
  'int',
  'long',
  'short',
  'byte',
  'char',
  'double',
  'float',
  'boolean',
]);
const BITS: ReadonlyMap<TypeName, number> = new Map<TypeName, number>([
  ['int', 32],
  ['Integer', 32],
  ['short', 16],
  ['byte', 8],
  ['char', 16],
]);

function defaultValue(type: TypeName): Value {
  if (INTEGRAL.has(type) && PRIMITIVE.has(type)) return 0n;
  if (FLOATING.has(type) && PRIMITIVE.has(type)) return 0;
  if (type === 'boolean') return false;
  return null;
}

function narrow(type: TypeName, v: bigint): bigint {
  const bits = BITS.get(type);
  return bits ? BigInt.asIntN(bits, v) : BigInt.asIntN(64, v);
}

/** Implicit conversion on assignment: widening only (long → double), as Java allows. */
function coerce(type: TypeName, v: Value, at: number): Value {
  if (v === null) {
    if (PRIMITIVE.has(type))
      return fail('class_cast_exception', `Cannot cast null to a primitive type [${type}].`, at);
    return null;
  }
  if (INTEGRAL.has(type)) {
    if (typeof v === 'bigint') return narrow(type, v);
    return fail('class_cast_exception', `Cannot cast from [${typeOfValue(v)}] to [${type}].`, at);
  }
  if (FLOATING.has(type)) {
    if (isNumeric(v)) return type === 'float' || type === 'Float' ? Math.fround(Number(v)) : Number(v);
    return fail('class_cast_exception', `Cannot cast from [${typeOfValue(v)}] to [${type}].`, at);
  }
  if (!isInstance(type, v))
    return fail('class_cast_exception', `Cannot cast from [${typeOfValue(v)}] to [${type}].`, at);
  return v;
}

/** Explicit casts (and compound assignment): numeric narrowing is allowed. */
function cast(type: TypeName, v: Value, at: number): Value {
  if (INTEGRAL.has(type) && typeof v === 'number') return narrow(type, toLong(v));
  if (type === 'char' && typeof v === 'string' && v.length === 1) return BigInt(v.charCodeAt(0));
  return coerce(type, v, at);
}

function isInstance(type: TypeName, v: Value): boolean {
  switch (type) {
    case 'def':
    case 'var':
    case 'Object':
      return true;
    case 'String':
      return typeof v === 'string';
    case 'boolean':
    case 'Boolean':
      return typeof v === 'boolean';
    case 'Number':
      return isNumeric(v);
    case 'List':
    case 'ArrayList':
    case 'Collection':
      return Array.isArray(v);
    case 'Map':
    case 'HashMap':
      return v instanceof Map;
    default:
      if (INTEGRAL.has(type)) return typeof v === 'bigint';
      if (FLOATING.has(type)) return typeof v === 'number';
      return false;
  }
}

function construct(rt: ScriptRuntime, type: TypeName, args: Value[], at: number): Value {
  const [source] = args;
  if ((type === 'ArrayList' || type === 'HashMap') && args.length === 0)
    return type === 'ArrayList' ? [] : new Map();
  if (type === 'ArrayList' && args.length === 1 && Array.isArray(source)) {
    rt.chargeSlots(source.length, at);
    return [...source];
  }
  if (type === 'HashMap' && args.length === 1 && source instanceof Map) {
    rt.chargeSlots(source.size, at);
    return new Map(source);
  }
  throw new ScriptError(
    'runtime',
    'illegal_argument_exception',
    `Unknown new call on type [${type}] with [${args.length}] arguments.`,
    at,
  );
}
