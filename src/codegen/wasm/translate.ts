// One cluster function (the JS AST after the loop passes) → a WebAssembly kernel that computes
// exactly what the JavaScript function computes, or a refusal saying why not.
//
// The JavaScript code is untyped: every value is a double. The translator keeps that meaning and
// only chooses a cheaper representation where it proves it changes nothing (docs/EXECUTION.md,
// "WebAssembly"):
// - `int`: an integer in [lo, hi] ⊆ int32, held in an i32. Intervals come from the call's
//   actual extents and array lengths, which the kernel is specialised on (constants in the
//   code), and from loop bounds; `+ - *` stay in i32 only when the interval proves no overflow,
//   else they are computed in f64 as JavaScript does. `nz`: the value may be -0 (a product or
//   remainder that is zero with a negative operand): such a value may go only where -0 and +0
//   behave alike (comparisons, bitwise operations, `+`), never into an f64 (refused).
// - `u32`: a ToUint32 result (`x >>> 0`), the i32 bits read unsigned (bounds checks compare
//   unsigned). `bool`: a JavaScript boolean (comparisons, `!`), 0 or 1.
// - `f64`: any number. f64 arithmetic and comparisons are IEEE in both languages; Math.min/max
//   are wasm's (NaN and -0 rules equal for two operands); `x | 0` is ToInt32 done exactly (`toInt32`
//   below: modular, NaN and ±inf to 0).
// Locals take the join of everything assigned to them, found by iterating to a fixpoint
// (intervals widened to int32 after a few rounds). Anything else — Math.exp/pow/…, `%` on
// doubles or by a possible zero, booleans mixed with numbers, calls on `rt` other than the
// fault helpers, arrays as values — is refused, and the cluster runs in JavaScript.
//
// Faults: where the JS code calls a fault helper (rt.oob, rt.index, rt.divzero, …) the kernel
// returns 1; where an index is not provably in range it checks it and returns 2 if not (a
// JavaScript read out of range is `undefined`, not an error: the kernel does not model it).
// Either way the runtime discards the kernel's work and re-runs the JavaScript function, which
// raises the error (or computes the odd value) itself (src/runtime/wasm.ts).
//
// Memory: the kernel reads and writes staged copies of the cluster's arrays in one linear memory
// (imported `env.memory`), each at a byte offset fixed at translation (the layout follows from
// the arrays' lengths, part of the specialisation).

import type { ScalarType } from '../../ir/types.js';
import { exprStmt, forEachNode, renameStmt, type JsExpr, type JsStmt } from '../jsast.js';
import { encodeModule, f64c, i32c, memarg, Op, SatOp, ValType, voidBlock } from './encoder.js';

/** A cluster function and what the code generator knows of its parameters (`rt` excluded). */
export interface KernelSource {
  readonly name: string;
  readonly params: readonly string[];
  readonly body: readonly JsStmt[];
  /** The element type of each parameter that is an array's data. */
  readonly arrays: Readonly<Record<string, ScalarType>>;
  /** Parameters that are array extents (non-negative integers; the kernel is specialised on them). */
  readonly extents: readonly string[];
  /** The element type of each parameter that is a scalar of the program (a scalar binding or a scalar input). */
  readonly scalars: Readonly<Record<string, ScalarType>>;
}

/** What one specialisation is for: the values of the run-time facts the kernel bakes in. */
export interface Specialisation {
  /** Each extent parameter's value. */
  readonly extents: Readonly<Record<string, number>>;
  /** Each array parameter's length in elements. */
  readonly lengths: Readonly<Record<string, number>>;
  /** Scalar parameters whose value is an int32 (not -0): passed as i32, the others as f64. */
  readonly intScalars: ReadonlySet<string>;
}

export interface StagedArray {
  readonly param: string;
  readonly elem: ScalarType;
  /** Byte offset of its copy in the kernel's memory. */
  readonly offset: number;
  readonly length: number;
  readonly read: boolean;
  readonly written: boolean;
}

export interface Kernel {
  readonly bytes: Uint8Array;
  /** The exported function's name. */
  readonly entry: string;
  readonly arrays: readonly StagedArray[];
  /** The scalar parameters, in the kernel's parameter order. */
  readonly scalars: readonly string[];
  /** Bytes of memory the staged arrays need. */
  readonly memoryBytes: number;
}

export type Translation = { readonly ok: true; readonly kernel: Kernel } | { readonly ok: false; readonly reason: string };

/** Fault helpers: generated code calls them only to throw. The kernel returns this code there. */
const faultHelpers = new Set(['index', 'divzero', 'oob', 'shapes', 'size', 'loop']);
export const faultCode = 1;
/** An index the kernel cannot prove in range and finds out of range: JavaScript decides. */
export const bailCode = 2;
/** `if (top of stack) return bailCode`: a check that failed hands the call to JavaScript. */
const bailIf = [Op.if, voidBlock, ...i32c(bailCode), Op.return, Op.end];

const MIN = -0x80000000;
const MAX = 0x7fffffff;

type VT =
  | { readonly k: 'int'; readonly lo: number; readonly hi: number; readonly nz: boolean }
  | { readonly k: 'u32' }
  // `integral`: a sum, difference or product of integers that may not fit in int32 (computed in
  // f64 as JavaScript does), so an integer-valued double; `nz` as for ints.
  | { readonly k: 'f64'; readonly integral?: { readonly nz: boolean } }
  | { readonly k: 'bool' }
  | { readonly k: 'never' };

const F64: VT = { k: 'f64' };
const U32: VT = { k: 'u32' };
const BOOL: VT = { k: 'bool' };
const NEVER: VT = { k: 'never' };
const FULL: VT = { k: 'int', lo: MIN, hi: MAX, nz: false };
const int = (lo: number, hi: number, nz = false): VT => ({ k: 'int', lo, hi, nz });

class Refusal extends Error {}
function refuse(why: string): never {
  throw new Refusal(why);
}

function sameType(a: VT, b: VT): boolean {
  if (a.k !== b.k) return false;
  if (a.k === 'int' && b.k === 'int') return a.lo === b.lo && a.hi === b.hi && a.nz === b.nz;
  if (a.k === 'f64' && b.k === 'f64') return a.integral?.nz === b.integral?.nz;
  return true;
}

function join(a: VT, b: VT): VT {
  if (a.k === 'never') return b;
  if (b.k === 'never') return a;
  if (a.k === 'bool' || b.k === 'bool') {
    if (a.k === b.k) return BOOL;
    return refuse('a boolean and a number meet in one variable');
  }
  if (a.k === 'int' && b.k === 'int') return int(Math.min(a.lo, b.lo), Math.max(a.hi, b.hi), a.nz || b.nz);
  if (a.k === 'u32' && b.k === 'u32') return U32;
  if ((a.k === 'u32' && b.k === 'int' && b.lo >= 0 && !b.nz) || (b.k === 'u32' && a.k === 'int' && a.lo >= 0 && !a.nz)) return U32;
  return F64;
}

const fits = (lo: number, hi: number): boolean => lo >= MIN && hi <= MAX;
/** The range an integer-valued double const is narrowed to (`narrowIntegral`). */
const narrowLimit = 2 ** 30;
const wasmType = (t: VT): ValType => (t.k === 'f64' ? ValType.f64 : ValType.i32);

interface Val {
  readonly t: VT;
  readonly code: number[];
}

interface Local {
  type: VT;
  readonly index: number;
  /** A parameter's or loop index's type is fixed; a declared local's is the join of its definitions. */
  readonly fixed: boolean;
}

/** Elements' byte-size exponent and load/store opcodes. */
function access(elem: ScalarType): { readonly log2: number; readonly load: number; readonly store: number } {
  switch (elem) {
    case 'f64':
      return { log2: 3, load: Op.f64_load, store: Op.f64_store };
    case 'f32':
      return { log2: 2, load: Op.f32_load, store: Op.f32_store };
    case 'i32':
    case 'u32':
      return { log2: 2, load: Op.i32_load, store: Op.i32_store };
    case 'u8':
    case 'bool':
      return { log2: 0, load: Op.i32_load8_u, store: Op.i32_store8 };
    case 'i8':
      // Sign-extending, so a loaded i8 is the value JavaScript's Int8Array reads.
      return { log2: 0, load: Op.i32_load8_s, store: Op.i32_store8 };
    default:
      return elem satisfies never;
  }
}

/** Bytes an element takes. */
export function elemBytes(elem: ScalarType): number {
  return 1 << access(elem).log2;
}

/**
 * Every name the body declares: declarations and `set` temporaries, and loop indices. A name
 * declared again inside the scope of an earlier declaration (shadowing) is refused: the kernel
 * keeps one local per name, and a const's reads take the interval of its latest declaration.
 */
function declaredNames(stmts: readonly JsStmt[]): { names: Set<string>; forIndices: Set<string> } {
  const names = new Set<string>();
  const forIndices = new Set<string>();
  const scopes: Set<string>[] = [new Set()];
  const declare = (name: string): void => {
    if (scopes.some((scope) => scope.has(name))) refuse(`${name} declared again inside its own scope`);
    scopes[scopes.length - 1]!.add(name);
  };
  const nested = (body: readonly JsStmt[], index?: string): void => {
    scopes.push(new Set());
    if (index !== undefined) declare(index);
    body.forEach(st);
    scopes.pop();
  };
  const ex = (e: JsExpr): void => {
    switch (e.kind) {
      case 'set':
        names.add(e.name);
        ex(e.value);
        return;
      case 'binary':
        ex(e.lhs);
        ex(e.rhs);
        return;
      case 'unary':
        ex(e.arg);
        return;
      case 'cond':
        ex(e.test);
        ex(e.then);
        ex(e.else);
        return;
      case 'call':
        ex(e.callee);
        e.args.forEach(ex);
        return;
      case 'member':
        ex(e.object);
        return;
      case 'index':
        ex(e.object);
        ex(e.index);
        return;
      case 'array':
        e.elems.forEach(ex);
        return;
      case 'seq':
        ex(e.first);
        ex(e.then);
        return;
      case 'num':
      case 'id':
        return;
      default:
        e satisfies never;
    }
  };
  function st(s: JsStmt): void {
    switch (s.kind) {
      case 'decl':
        names.add(s.name);
        if (s.init !== null) ex(s.init);
        declare(s.name);
        return;
      case 'assign':
        ex(s.target);
        ex(s.value);
        return;
      case 'expr':
        ex(s.expr);
        return;
      case 'for':
        forIndices.add(s.index);
        ex(s.from);
        ex(s.to);
        nested(s.body, s.index);
        return;
      case 'while':
        ex(s.test);
        nested(s.body);
        return;
      case 'if':
        ex(s.test);
        nested(s.then);
        nested(s.else);
        return;
      case 'block':
        nested(s.body);
        return;
      case 'return':
        if (s.value !== null) ex(s.value);
        return;
      case 'break':
      case 'comment':
      case 'function':
        return;
      default:
        s satisfies never;
    }
  };
  stmts.forEach(st);
  return { names, forIndices };
}

/**
 * The names whose values reach an array index: read in an index expression, or flowing (by a
 * declaration, an assignment or a `set`) into a name that does. Only these consts are narrowed
 * to i32 (`narrowIntegral`): a value that is data keeps its double (its -0, its magnitude).
 */
function indexFeeding(stmts: readonly JsStmt[]): ReadonlySet<string> {
  const sources = new Map<string, Set<string>>();
  const roots: string[] = [];
  const namesIn = (e: JsExpr): string[] => {
    const out: string[] = [];
    forEachNode([exprStmt(e)], { expr: (x) => void (x.kind === 'id' && out.push(x.name)) });
    return out;
  };
  const flow = (name: string, value: JsExpr): void => {
    const from = sources.get(name) ?? new Set<string>();
    for (const n of namesIn(value)) from.add(n);
    sources.set(name, from);
  };
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'decl' && s.init !== null) flow(s.name, s.init);
      if (s.kind === 'assign' && s.target.kind === 'id') flow(s.target.name, s.value);
    },
    expr(e) {
      if (e.kind === 'set') flow(e.name, e.value);
      if (e.kind === 'index') roots.push(...namesIn(e.index));
    },
  });
  const feeding = new Set<string>();
  while (roots.length > 0) {
    const n = roots.pop()!;
    if (feeding.has(n)) continue;
    feeding.add(n);
    roots.push(...(sources.get(n) ?? []));
  }
  return feeding;
}

class Translator {
  private readonly locals = new Map<string, Local>();
  private readonly localTypes: ValType[] = [];
  private readonly paramCount: number;
  /** Definitions' types met in the current walk, by local name (the fixpoint's next round). */
  private defs = new Map<string, VT>();
  /**
   * The interval of each const's value where the walk is, from its latest declaration in this
   * walk: a read after it (in its block: the generator never shadows a name) sees that value.
   * Without it a chain of consts (`b = i * n; p = b + j; q = p * m`) gained one link a round
   * and was widened to all of int32 after three, so FlashAttention's row bases became doubles.
   */
  private constInts = new Map<string, Extract<VT, { k: 'int' }>>();
  /** Labels of the enclosing blocks, innermost last: a loop's exit is where `break` goes. */
  private labels: ('exit' | 'other')[] = [];
  private readonly tmpI: number;
  private readonly tmpF: number;
  private readonly forIndices: ReadonlySet<string>;
  private readonly indexFeeding: ReadonlySet<string>;
  /** The emission walk (after the types settled): a local still without a type is refused. */
  private final = false;
  readonly read = new Set<string>();
  readonly written = new Set<string>();

  constructor(
    private readonly src: KernelSource,
    private readonly spec: Specialisation,
    private readonly layout: ReadonlyMap<string, StagedArray>,
    readonly scalars: readonly string[],
  ) {
    scalars.forEach((s, k) => {
      const t = spec.intScalars.has(s) ? FULL : F64;
      this.locals.set(s, { type: t, index: k, fixed: true });
    });
    this.paramCount = scalars.length;
    const { names, forIndices } = declaredNames(src.body);
    this.forIndices = forIndices;
    this.indexFeeding = indexFeeding(src.body);
    for (const n of names) {
      if (this.locals.has(n) || forIndices.has(n) || this.isParam(n)) refuse(`${n} is declared twice`);
      this.addLocal(n, NEVER, false);
    }
    for (const n of forIndices) {
      if (this.locals.has(n) || this.isParam(n)) refuse(`loop index ${n} is also declared`);
      this.addLocal(n, NEVER, false);
    }
    this.tmpI = this.newLocal(ValType.i32);
    this.tmpF = this.newLocal(ValType.f64);
  }

  private isParam(n: string): boolean {
    return this.src.params.includes(n);
  }

  private newLocal(t: ValType): number {
    this.localTypes.push(t);
    return this.paramCount + this.localTypes.length - 1;
  }

  private addLocal(n: string, t: VT, fixed: boolean): void {
    this.locals.set(n, { type: t, index: -1, fixed });
  }

  /** Infers the locals' types (fixpoint), then emits the function body. */
  translate(): { readonly body: number[]; readonly locals: ValType[] } {
    for (let round = 0; ; round++) {
      if (round > 30) refuse('local types do not settle');
      this.defs = new Map();
      this.constInts = new Map();
      this.labels = [];
      this.resetScratch();
      this.stmts(this.src.body);
      let changed = false;
      for (const [n, l] of this.locals) {
        if (l.fixed) continue;
        let next = join(l.type, this.defs.get(n) ?? NEVER);
        if (next.k === 'int' && round >= 3 && !sameType(next, l.type)) next = int(MIN, MAX, next.nz);
        if (!sameType(next, l.type)) {
          l.type = next;
          changed = true;
        }
      }
      if (!changed) break;
    }
    // Wasm locals for the declared names, by their settled types.
    const assigned = new Map<string, Local>();
    for (const [n, l] of this.locals) {
      if (l.fixed) continue;
      assigned.set(n, { type: l.type, index: this.newLocal(wasmType(l.type)), fixed: false });
    }
    for (const [n, l] of assigned) this.locals.set(n, l);
    this.labels = [];
    this.defs = new Map();
    this.constInts = new Map();
    this.resetScratch();
    this.final = true;
    const body = [...this.stmts(this.src.body), ...i32c(0)];
    return { body, locals: this.localTypes };
  }

  private define(name: string, t: VT): Local {
    const l = this.locals.get(name);
    if (l === undefined) return refuse(`assignment to ${name}, which is not a local`);
    if (l.fixed || this.forIndices.has(name)) return refuse(`assignment to parameter or loop index ${name}`);
    this.defs.set(name, join(this.defs.get(name) ?? NEVER, t));
    this.constInts.delete(name);
    return l;
  }

  // ---- statements ----------------------------------------------------------------------------

  private stmts(ss: readonly JsStmt[]): number[] {
    return ss.flatMap((s) => this.stmt(s));
  }

  private stmt(s: JsStmt): number[] {
    switch (s.kind) {
      case 'decl': {
        if (s.init === null) return []; // a temporary, assigned before it is read (`set`)
        const v = s.mutable || !this.indexFeeding.has(s.name) ? this.expr(s.init) : this.narrowIntegral(this.expr(s.init));
        const code = this.store(s.name, v);
        if (!s.mutable && v.t.k === 'int') this.constInts.set(s.name, v.t);
        return code;
      }
      case 'assign': {
        if (s.op !== '=') return refuse(`${s.op} assignment`);
        if (s.target.kind === 'id') return this.store(s.target.name, this.expr(s.value));
        if (s.target.kind === 'index') return this.storeElement(s.target.object, s.target.index, s.value);
        return refuse(`assignment to a ${s.target.kind}`);
      }
      case 'expr': {
        const v = this.expr(s.expr);
        return v.t.k === 'never' ? v.code : [...v.code, Op.drop];
      }
      case 'for':
        return this.forLoop(s);
      case 'while': {
        this.labels.push('exit', 'other');
        const test = this.truthy(this.expr(s.test));
        const body = this.stmts(s.body);
        this.labels.pop();
        this.labels.pop();
        return [Op.block, voidBlock, Op.loop, voidBlock, ...test, Op.i32_eqz, Op.br_if, 1, ...body, Op.br, 0, Op.end, Op.end];
      }
      case 'if': {
        const test = this.truthy(this.expr(s.test));
        this.labels.push('other');
        const then = this.narrowed(s.test, true, s.then, () => this.stmts(s.then));
        const otherwise = this.narrowed(s.test, false, s.else, () => this.stmts(s.else));
        this.labels.pop();
        return [...test, Op.if, voidBlock, ...then, ...(otherwise.length > 0 ? [Op.else, ...otherwise] : []), Op.end];
      }
      case 'block':
        return this.stmts(s.body);
      case 'break': {
        const exit = this.labels.lastIndexOf('exit');
        if (exit < 0) return refuse('break outside a loop');
        return [Op.br, this.labels.length - 1 - exit];
      }
      case 'return':
        if (s.value !== null) return refuse('a return with a value');
        return [...i32c(0), Op.return];
      case 'comment':
        return [];
      case 'function':
        return refuse('a nested function');
      default:
        return s satisfies never;
    }
  }

  private forLoop(s: Extract<JsStmt, { kind: 'for' }>): number[] {
    let from = this.expr(s.from);
    let to = this.expr(s.to);
    // An inference round may not know a bound's type yet (optimistic start): assume the least.
    if (!this.final && from.t.k === 'never') from = { t: int(0, 0), code: from.code };
    if (!this.final && to.t.k === 'never') to = { t: int(0, 0), code: to.code };
    if (from.t.k !== 'int' || to.t.k !== 'int') return refuse('a loop whose bounds are not int32 integers');
    if (s.down && from.t.lo === MIN) return refuse('a downward loop that may count below int32');
    // The bound JavaScript re-reads each iteration must not change in the body: the index's
    // interval is taken from its value now.
    const again = s.down ? s.from : s.to;
    const reads: string[] = [];
    forEachNode([exprStmt(again)], { expr: (e) => void (e.kind === 'id' && reads.push(e.name)) });
    if (reads.some((n) => assigns(s.body, n))) return refuse('a loop bound the body changes');
    forEachNode([exprStmt(again)], { expr: (e) => void (e.kind === 'set' && refuse('a loop bound that assigns')) });
    const l = this.locals.get(s.index)!;
    // The index runs over [from, to): its interval, whatever the bounds turn out to be.
    l.type = int(from.t.lo, Math.max(from.t.lo, to.t.hi - 1));
    const i = (): number[] => [Op.local_get, ...uleb(this.localIndex(s.index))];
    const set = (): number[] => [Op.local_set, ...uleb(this.localIndex(s.index))];
    this.labels.push('exit', 'other');
    const body = this.stmts(s.body);
    // `to` is evaluated before each iteration, as JavaScript does.
    const toAgain = this.expr(s.to);
    this.labels.pop();
    this.labels.pop();
    if (!s.down) {
      return [
        ...from.code, ...set(),
        Op.block, voidBlock, Op.loop, voidBlock,
        ...i(), ...toAgain.code, Op.i32_ge_s, Op.br_if, 1,
        ...body,
        ...i(), ...i32c(1), Op.i32_add, ...set(), Op.br, 0,
        Op.end, Op.end,
      ];
    }
    // for (let i = to - 1; i >= from; i--): `to` once, `from` each time.
    const fromAgain = this.expr(s.from);
    return [
      ...to.code, ...i32c(1), Op.i32_sub, ...set(),
      Op.block, voidBlock, Op.loop, voidBlock,
      ...i(), ...fromAgain.code, Op.i32_lt_s, Op.br_if, 1,
      ...body,
      ...i(), ...i32c(1), Op.i32_sub, ...set(), Op.br, 0,
      Op.end, Op.end,
    ];
  }

  private localIndex(name: string): number {
    const l = this.locals.get(name);
    if (l === undefined || l.index < 0) return -1; // inference rounds: no code is kept
    return l.index;
  }

  /** `name = v`: the value in the local's representation. */
  private store(name: string, v: Val): number[] {
    const l = this.define(name, v.t);
    const code = l.type.k === 'never' ? v.code : this.coerce(v, l.type);
    return [...code, Op.local_set, ...uleb(Math.max(0, this.localIndex(name)))];
  }

  /** `v` in a representation that holds every value of `t` (t ⊇ v.t). */
  private coerce(v: Val, t: VT): number[] {
    if (v.t.k === 'never') return v.code;
    // Inference rounds: the local's type may not include this value yet; the next round's will.
    if (!this.final && !sameType(join(v.t, t), t)) return v.code;
    if (t.k === 'f64') return this.f64(v);
    if (t.k === 'bool') return v.t.k === 'bool' ? v.code : refuse('a number where a boolean is kept');
    if (v.t.k === 'bool') return refuse('a boolean where a number is kept');
    if (v.t.k === 'f64') return refuse('a double where an integer is kept'); // not reached: join says f64
    return v.code;
  }

  /** Address of `array[index]` (bounds checked unless the interval proves it). */
  private address(object: JsExpr, index: JsExpr): { code: number[]; a: StagedArray } {
    if (object.kind !== 'id') return refuse('an index into a computed object');
    const a = this.layout.get(object.name);
    if (a === undefined) return refuse(`${object.name} is not an array parameter`);
    const { log2 } = access(a.elem);
    const ix = this.expr(index);
    const code: number[] = [];
    const t = this.tmpI;
    if (ix.t.k === 'never') return { code: ix.code, a };
    if (ix.t.k === 'int' || ix.t.k === 'u32') {
      code.push(...ix.code);
      const proven = ix.t.k === 'int' && ix.t.lo >= 0 && ix.t.hi < a.length;
      if (!proven) code.push(Op.local_tee, ...uleb(t), ...i32c(a.length), Op.i32_ge_u, ...bailIf, Op.local_get, ...uleb(t));
    } else if (ix.t.k === 'f64') {
      // An integer-valued double in [0, length): anything else (fractions, NaN, -1) bails.
      code.push(
        ...ix.code, Op.local_tee, ...uleb(this.tmpF), Op.prefix_fc, SatOp.i32_trunc_sat_f64_u, Op.local_tee, ...uleb(t),
        Op.f64_convert_i32_u, Op.local_get, ...uleb(this.tmpF), Op.f64_ne, ...bailIf,
        Op.local_get, ...uleb(t), ...i32c(a.length), Op.i32_ge_u, ...bailIf, Op.local_get, ...uleb(t),
      );
    } else return refuse('a boolean index');
    if (log2 > 0) code.push(...i32c(log2), Op.i32_shl);
    return { code, a };
  }

  private storeElement(object: JsExpr, index: JsExpr, value: JsExpr): number[] {
    const { code, a } = this.address(object, index);
    this.written.add(a.param);
    const v = this.expr(value);
    const { log2, store } = access(a.elem);
    let conv: number[];
    switch (a.elem) {
      case 'f64':
        conv = this.f64(v);
        break;
      case 'f32':
        conv = [...this.f64(v), Op.f32_demote_f64];
        break;
      case 'i32':
      case 'u32':
      case 'u8':
      case 'i8':
      case 'bool':
        // store8 keeps the low 8 bits, as a Uint8Array or Int8Array store of the int32 does.
        conv = this.toInt32(v);
        break;
      default:
        return a.elem satisfies never;
    }
    return [...code, ...conv, store, ...memarg(log2, a.offset)];
  }

  // ---- expressions ---------------------------------------------------------------------------

  private expr(e: JsExpr): Val {
    switch (e.kind) {
      case 'num':
        if (Number.isInteger(e.value) && fits(e.value, e.value) && !Object.is(e.value, -0)) return { t: int(e.value, e.value), code: i32c(e.value) };
        return { t: F64, code: f64c(e.value) };
      case 'id':
        return this.ident(e.name);
      case 'binary':
        return this.binary(e.op, e.lhs, e.rhs);
      case 'unary':
        // `await` is only in the device variant's main, never in a cluster function.
        if (e.op === 'await') return refuse('await in a cluster function');
        return this.unary(e.op, e.arg);
      case 'cond': {
        const test = this.truthy(this.expr(e.test));
        this.labels.push('other');
        const a = this.narrowed(e.test, true, [exprStmt(e.then)], () => this.expr(e.then));
        const b = this.narrowed(e.test, false, [exprStmt(e.else)], () => this.expr(e.else));
        this.labels.pop();
        const t = join(a.t, b.t);
        const bt = t.k === 'never' ? ValType.i32 : wasmType(t);
        return { t, code: [...test, Op.if, bt, ...this.coerce(a, t), Op.else, ...this.coerce(b, t), Op.end] };
      }
      case 'call':
        return this.call(e.callee, e.args);
      case 'index': {
        const { code, a } = this.address(e.object, e.index);
        this.read.add(a.param);
        const { log2, load } = access(a.elem);
        const c = [...code, load, ...memarg(log2, a.offset)];
        switch (a.elem) {
          case 'f64':
            return { t: F64, code: c };
          case 'f32':
            return { t: F64, code: [...c, Op.f64_promote_f32] };
          case 'i32':
            return { t: FULL, code: c };
          case 'u32':
            return { t: U32, code: c };
          case 'u8':
          case 'bool':
            return { t: int(0, 255), code: c };
          case 'i8':
            return { t: int(-128, 127), code: c };
          default:
            return a.elem satisfies never;
        }
      }
      case 'set': {
        const v = this.expr(e.value);
        const l = this.define(e.name, v.t);
        const code = l.type.k === 'never' ? v.code : this.coerce(v, l.type);
        const t = l.type.k === 'never' ? v.t : l.type;
        return { t, code: [...code, Op.local_tee, ...uleb(Math.max(0, this.localIndex(e.name)))] };
      }
      case 'seq': {
        const first = this.expr(e.first);
        const then = this.expr(e.then);
        return { t: then.t, code: [...first.code, ...(first.t.k === 'never' ? [] : [Op.drop]), ...then.code] };
      }
      case 'member':
      case 'array':
        return refuse(`a ${e.kind} expression as a value`);
      default:
        return e satisfies never;
    }
  }

  /**
   * Runs `walk` with an integer local's interval narrowed by a test `x < c`, `x >= c`, … (`c` a
   * literal) that holds (`holds`) or fails on that branch: `x >= 0 ? x % 5 : …` is not -0. Only
   * when the branch (`branch`) never assigns `x`: then every read in it sees the tested value.
   */
  private narrowed<T>(test: JsExpr, holds: boolean, branch: readonly JsStmt[], walk: () => T): T {
    if (test.kind !== 'binary' || test.lhs.kind !== 'id' || test.rhs.kind !== 'num') return walk();
    if (assigns(branch, test.lhs.name)) return walk();
    const l = this.locals.get(test.lhs.name);
    const c = test.rhs.value;
    if (l === undefined || l.type.k !== 'int' || !Number.isInteger(c)) return walk();
    const negate = { '<': '>=', '<=': '>', '>': '<=', '>=': '<' } as const;
    const op = test.op === '<' || test.op === '<=' || test.op === '>' || test.op === '>=' ? (holds ? test.op : negate[test.op]) : null;
    if (op === null) return walk();
    const t = l.type;
    const [lo, hi] =
      op === '<' ? [t.lo, Math.min(t.hi, c - 1)] : op === '<=' ? [t.lo, Math.min(t.hi, c)] : op === '>' ? [Math.max(t.lo, c + 1), t.hi] : [Math.max(t.lo, c), t.hi];
    if (lo > hi) return walk(); // a branch that never runs: keep the type as it is
    const saved = l.type;
    l.type = int(lo, hi, t.nz && lo <= 0 && hi >= 0);
    try {
      return walk();
    } finally {
      l.type = saved;
    }
  }

  private ident(name: string): Val {
    const extent = this.spec.extents[name];
    if (extent !== undefined) return { t: int(extent, extent), code: i32c(extent) };
    const l = this.locals.get(name);
    if (l === undefined) return refuse(`${name} is not a number the kernel knows`);
    if (this.final && l.type.k === 'never') return refuse(`${name} may be read before it is assigned`);
    const code = [Op.local_get, ...uleb(Math.max(0, this.localIndex(name)))];
    const c = this.constInts.get(name);
    if (c !== undefined && l.type.k === 'int') {
      // Both hold (the local's settled type, narrowed by any test around, and the value's own).
      const lo = Math.max(c.lo, l.type.lo);
      const hi = Math.min(c.hi, l.type.hi);
      if (lo <= hi) return { t: int(lo, hi, c.nz && l.type.nz), code };
    }
    return { t: l.type, code };
  }

  /** JavaScript truthiness as an i32 (0 or not): NaN and ±0 are false. */
  private truthy(v: Val): number[] {
    if (v.t.k === 'f64') return [...v.code, Op.f64_abs, ...f64c(0), Op.f64_gt];
    return v.code;
  }

  /** The JavaScript number `v` as an f64. */
  private f64(v: Val, ignoreSignOfZero = false): number[] {
    switch (v.t.k) {
      case 'f64':
      case 'never':
        return v.code;
      case 'int':
        if (v.t.nz && !ignoreSignOfZero) return refuse('a value that may be -0 used as a double');
        return [...v.code, Op.f64_convert_i32_s];
      case 'u32':
      case 'bool':
        return [...v.code, Op.f64_convert_i32_u];
      default:
        return v.t satisfies never;
    }
  }

  /** ToInt32(v), as `v | 0` gives it. */
  private toInt32(v: Val): number[] {
    return v.t.k === 'f64' ? [...v.code, Op.call, toInt32Index] : v.code;
  }

  /** A number operand: booleans are 0 or 1 to arithmetic, as in JavaScript. */
  private numeric(v: Val): Val {
    return v.t.k === 'bool' ? { t: int(0, 1), code: v.code } : v;
  }

  private f64op(op: number, a: Val, b: Val, t: VT = F64): Val {
    return { t, code: [...this.f64(a), ...this.f64(b), op] };
  }

  private binary(op: Extract<JsExpr, { kind: 'binary' }>['op'], lhs: JsExpr, rhs: JsExpr): Val {
    if (op === '&&' || op === '||') {
      const a = this.expr(lhs);
      this.labels.push('other');
      const b = this.expr(rhs);
      this.labels.pop();
      if ((a.t.k !== 'bool' && a.t.k !== 'never') || (b.t.k !== 'bool' && b.t.k !== 'never')) return refuse(`${op} on numbers`);
      const code = op === '&&'
        ? [...a.code, Op.if, ValType.i32, ...b.code, Op.else, ...i32c(0), Op.end]
        : [...a.code, Op.if, ValType.i32, ...i32c(1), Op.else, ...b.code, Op.end];
      return { t: BOOL, code };
    }
    if ((op === '===' || op === '!==') && isUndefined(rhs)) {
      // `x === void 0`: a gather's check of a read past the end. The kernel's reads never give
      // undefined (one out of range bails first), and every value it computes is a number.
      const a = this.expr(lhs);
      if (a.t.k === 'never') return a;
      return { t: BOOL, code: [...a.code, Op.drop, ...i32c(op === '===' ? 0 : 1)] };
    }
    if (op === '|' && rhs.kind === 'num' && rhs.value === 0 && lhs.kind === 'binary' && (lhs.op === '+' || lhs.op === '-')) {
      // `(a + b) | 0` of two integers: ToInt32 of the exact sum (a double holds it: |a + b| < 2^32)
      // is the wrapping i32 sum, with no double in between.
      const a = this.numeric(this.expr(lhs.lhs));
      const b = this.numeric(this.expr(lhs.rhs));
      if (a.t.k === 'int' && b.t.k === 'int') {
        const [lo, hi] = lhs.op === '+' ? [a.t.lo + b.t.lo, a.t.hi + b.t.hi] : [a.t.lo - b.t.hi, a.t.hi - b.t.lo];
        return { t: fits(lo, hi) ? int(lo, hi) : FULL, code: [...a.code, ...b.code, lhs.op === '+' ? Op.i32_add : Op.i32_sub] };
      }
      const stop = firstNever([a, b]);
      if (stop !== null) return stop;
      const sum = this.arith(lhs.op, a, b);
      return { t: sum.t.k === 'int' ? int(sum.t.lo, sum.t.hi) : FULL, code: this.toInt32(sum) };
    }
    const ra = this.expr(lhs);
    const rb = this.expr(rhs);
    if (op === '===' || op === '!==') {
      if ((ra.t.k === 'bool') !== (rb.t.k === 'bool') && ra.t.k !== 'never' && rb.t.k !== 'never') return refuse('a boolean compared with a number');
      if (ra.t.k === 'bool' || rb.t.k === 'bool' || this.sameBits(ra.t, rb.t)) return { t: BOOL, code: [...ra.code, ...rb.code, op === '===' ? Op.i32_eq : Op.i32_ne] };
      return { t: BOOL, code: [...this.f64(ra, true), ...this.f64(rb, true), op === '===' ? Op.f64_eq : Op.f64_ne] };
    }
    const a = this.numeric(ra);
    const b = this.numeric(rb);
    const stop = firstNever([a, b]);
    if (stop !== null && op !== '<' && op !== '<=' && op !== '>' && op !== '>=') return stop;
    const folded = foldConstant(op, a, b);
    if (folded !== null) return folded;
    switch (op) {
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.compare(op, a, b);
      case '+':
      case '-':
      case '*':
        return this.arith(op, a, b);
      case '/':
        return this.f64op(Op.f64_div, a, b);
      case '%':
        return this.remainder(a, b);
      case '|':
      case '&':
      case '^':
        return this.bitwise(op, a, b);
      case '<<':
      case '>>':
      case '>>>':
        return this.shift(op, a, b);
      default:
        return op satisfies never;
    }
  }

  /** Both are i32-represented numbers whose bit patterns are equal exactly when the numbers are. */
  private sameBits(a: VT, b: VT): boolean {
    const signed = (t: VT): boolean => t.k === 'int';
    const unsigned = (t: VT): boolean => t.k === 'u32' || (t.k === 'int' && t.lo >= 0);
    return (signed(a) && signed(b)) || (unsigned(a) && unsigned(b)) || a.k === 'never' || b.k === 'never';
  }

  private compare(op: '<' | '<=' | '>' | '>=', a: Val, b: Val): Val {
    const ops = {
      s: { '<': Op.i32_lt_s, '<=': Op.i32_le_s, '>': Op.i32_gt_s, '>=': Op.i32_ge_s },
      u: { '<': Op.i32_lt_u, '<=': Op.i32_le_u, '>': Op.i32_gt_u, '>=': Op.i32_ge_u },
      f: { '<': Op.f64_lt, '<=': Op.f64_le, '>': Op.f64_gt, '>=': Op.f64_ge },
    } as const;
    const isInt = (t: VT): boolean => t.k === 'int' || t.k === 'never';
    const isUnsigned = (t: VT): boolean => t.k === 'u32' || t.k === 'never' || (t.k === 'int' && t.lo >= 0);
    if (isInt(a.t) && isInt(b.t)) return { t: BOOL, code: [...a.code, ...b.code, ops.s[op]] };
    if (isUnsigned(a.t) && isUnsigned(b.t)) return { t: BOOL, code: [...a.code, ...b.code, ops.u[op]] };
    return { t: BOOL, code: [...this.f64(a, true), ...this.f64(b, true), ops.f[op]] };
  }

  private arith(op: '+' | '-' | '*', a: Val, b: Val): Val {
    if (a.t.k === 'int' && b.t.k === 'int') {
      const x = a.t;
      const y = b.t;
      let lo: number;
      let hi: number;
      let nz: boolean;
      if (op === '+') {
        lo = x.lo + y.lo;
        hi = x.hi + y.hi;
        nz = x.nz && y.nz;
      } else if (op === '-') {
        lo = x.lo - y.hi;
        hi = x.hi - y.lo;
        nz = x.nz && y.lo <= 0 && y.hi >= 0;
      } else {
        const corners = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi];
        lo = Math.min(...corners);
        hi = Math.max(...corners);
        const zero = (t: typeof x): boolean => t.nz || (t.lo <= 0 && t.hi >= 0);
        nz = (zero(x) && y.lo < 0) || (zero(y) && x.lo < 0) || x.nz || y.nz;
      }
      if (fits(lo, hi)) {
        const wop = op === '+' ? Op.i32_add : op === '-' ? Op.i32_sub : Op.i32_mul;
        return { t: int(lo, hi, nz), code: [...a.code, ...b.code, wop] };
      }
      return this.f64op(op === '+' ? Op.f64_add : op === '-' ? Op.f64_sub : Op.f64_mul, a, b, { k: 'f64', integral: { nz } });
    }
    const integral = (t: VT): { nz: boolean } | null => (t.k === 'int' ? { nz: t.nz } : t.k === 'f64' && t.integral !== undefined ? t.integral : null);
    const x = integral(a.t);
    const y = integral(b.t);
    // An integer-valued double with another integer: still one (rounding keeps doubles past 2^53
    // integers); -0 only as for ints, and without intervals a difference or product may be -0.
    const t: VT = x !== null && y !== null ? { k: 'f64', integral: { nz: op === '+' ? x.nz && y.nz : true } } : F64;
    return this.f64op(op === '+' ? Op.f64_add : op === '-' ? Op.f64_sub : Op.f64_mul, a, b, t);
  }

  /**
   * A const whose value is an integer-valued double, not -0, that reaches an array index (index
   * arithmetic that the intervals cannot keep in int32, such as a row base `g * n` of an
   * unbounded scalar `g`: `indexFeeding`) is held as an i32 in
   * [-2^30, 2^30], checked once where it is computed: outside that range (no staged array is
   * that long, so as an index it would be out of range) the kernel bails and JavaScript runs.
   * Indices built on it then stay i32, one unsigned compare a load instead of a conversion and
   * two compares of a double (FlashAttention's Q·Kᵀ kernel).
   */
  private narrowIntegral(v: Val): Val {
    // Only a value that cannot be -0: an i32 has no -0, and one that may be -0 could not go
    // where -0 and +0 differ.
    if (v.t.k !== 'f64' || v.t.integral === undefined || v.t.integral.nz) return v;
    const code = [
      ...v.code, Op.local_tee, ...uleb(this.tmpF), Op.prefix_fc, SatOp.i32_trunc_sat_f64_s, Op.local_tee, ...uleb(this.tmpI),
      Op.f64_convert_i32_s, Op.local_get, ...uleb(this.tmpF), Op.f64_ne, ...bailIf,
      Op.local_get, ...uleb(this.tmpI), ...i32c(narrowLimit), Op.i32_add, ...i32c(MIN), Op.i32_gt_u, ...bailIf,
      Op.local_get, ...uleb(this.tmpI),
    ];
    return { t: int(-narrowLimit, narrowLimit, v.t.integral.nz), code };
  }

  private remainder(a: Val, b: Val): Val {
    // Only integers by a divisor that cannot be 0: i32.rem_s then is JavaScript's `%` (the sign
    // of the dividend; INT_MIN % -1 is 0, which JavaScript makes -0: `nz`).
    // A divisor that may be 0 is tested: JavaScript's NaN is left to JavaScript (the kernel bails).
    if (a.t.k !== 'int' || b.t.k !== 'int') return refuse('% on doubles');
    const m = Math.max(Math.abs(b.t.lo), Math.abs(b.t.hi)) - 1;
    const lo = a.t.lo < 0 ? Math.max(a.t.lo, -m) : 0;
    const hi = a.t.hi > 0 ? Math.min(a.t.hi, m) : 0;
    const t = int(lo, hi, a.t.lo < 0 || a.t.nz);
    if (b.t.lo > 0 || b.t.hi < 0) return { t, code: [...a.code, ...b.code, Op.i32_rem_s] };
    const guard = [Op.local_tee, ...uleb(this.tmpI), Op.i32_eqz, ...bailIf, Op.local_get, ...uleb(this.tmpI)];
    return { t, code: [...a.code, ...b.code, ...guard, Op.i32_rem_s] };
  }

  private bitwise(op: '|' | '&' | '^', a: Val, b: Val): Val {
    const code = [...this.toInt32(a), ...this.toInt32(b), op === '|' ? Op.i32_or : op === '&' ? Op.i32_and : Op.i32_xor];
    const nonNeg = (t: VT): t is Extract<VT, { k: 'int' }> => t.k === 'int' && t.lo >= 0;
    if (op === '|' && b.t.k === 'int' && b.t.lo === 0 && b.t.hi === 0) {
      // `x | 0`: ToInt32 alone (no instruction but the conversion); -0 becomes 0.
      return { t: a.t.k === 'int' ? int(a.t.lo, a.t.hi) : FULL, code: this.toInt32(a) };
    }
    if (op === '&' && (nonNeg(a.t) || nonNeg(b.t))) {
      const his = [a.t, b.t].filter(nonNeg).map((t) => t.hi);
      return { t: int(0, Math.min(...his)), code };
    }
    if (op !== '&' && nonNeg(a.t) && nonNeg(b.t)) {
      const bits = Math.ceil(Math.log2(Math.max(a.t.hi, b.t.hi) + 1));
      return { t: int(0, 2 ** bits - 1), code };
    }
    return { t: FULL, code };
  }

  /**
   * JavaScript's shifts are wasm's on the ToInt32 bits: both take the count modulo 32
   * (ToUint32(n) & 31 is ToInt32(n) & 31). `<<` may overflow any interval: its result is any int32.
   */
  private shift(op: '<<' | '>>' | '>>>', a: Val, b: Val): Val {
    const code = [...this.toInt32(a), ...this.toInt32(b), op === '<<' ? Op.i32_shl : op === '>>' ? Op.i32_shr_s : Op.i32_shr_u];
    if (op === '<<') return { t: FULL, code };
    const k = b.t.k === 'int' && b.t.lo === b.t.hi ? b.t.lo & 31 : null;
    if (op === '>>') {
      if (k === null) return { t: FULL, code };
      const [lo, hi] = a.t.k === 'int' ? [a.t.lo, a.t.hi] : [MIN, MAX];
      return { t: int(lo >> k, hi >> k), code };
    }
    if (k === null) return { t: U32, code };
    if (a.t.k === 'int' && a.t.lo >= 0) return { t: int(a.t.lo >>> k, a.t.hi >>> k), code };
    if (k === 0) return { t: U32, code };
    return { t: int(0, 2 ** (32 - k) - 1), code };
  }

  private unary(op: '-' | '!' | '~' | 'void', arg: JsExpr): Val {
    // A negative literal (`-0`, `-1`): a constant.
    if (op === '-' && arg.kind === 'num') return this.expr({ kind: 'num', value: -arg.value });
    const a = this.numeric(this.expr(arg));
    if (op === 'void') return refuse('void');
    if (op === '!') return { t: BOOL, code: [...this.truthy(a), Op.i32_eqz] };
    if (a.t.k === 'never') return a;
    // `~x` is ToInt32(x) with every bit flipped: −x − 1 on an int interval (-0 becomes −1).
    if (op === '~') return { t: a.t.k === 'int' ? int(~a.t.hi, ~a.t.lo) : FULL, code: [...this.toInt32(a), ...i32c(-1), Op.i32_xor] };
    if (a.t.k === 'int' && a.t.lo > MIN) {
      return { t: int(-a.t.hi, -a.t.lo, a.t.lo <= 0 && a.t.hi >= 0), code: [...i32c(0), ...a.code, Op.i32_sub] };
    }
    return { t: F64, code: [...this.f64(a), Op.f64_neg] };
  }

  private call(callee: JsExpr, args: readonly JsExpr[]): Val {
    if (callee.kind !== 'member' || callee.object.kind !== 'id') return refuse('a call of a computed function');
    const owner = callee.object.name;
    const fn = callee.prop;
    if (owner === 'rt') {
      if (!faultHelpers.has(fn)) return refuse(`rt.${fn}`);
      return { t: NEVER, code: [...i32c(faultCode), Op.return] };
    }
    if (owner !== 'Math') return refuse(`${owner}.${fn}`);
    const vs = args.map((x) => this.numeric(this.expr(x)));
    const stop = firstNever(vs);
    if (stop !== null) return stop;
    const one = (wop: number): Val => {
      if (vs.length !== 1) return refuse(`Math.${fn} of ${vs.length} arguments`);
      return { t: F64, code: [...this.f64(vs[0]!), wop] };
    };
    switch (fn) {
      case 'imul': {
        if (vs.length !== 2) return refuse('Math.imul arity');
        const code = [...this.toInt32(vs[0]!), ...this.toInt32(vs[1]!), Op.i32_mul];
        const [x, y] = [vs[0]!.t, vs[1]!.t];
        if (x.k === 'int' && y.k === 'int') {
          // The exact product when it fits in int32 (then imul is it): `Math.imul(2, i) + 1`.
          const corners = [x.lo * y.lo, x.lo * y.hi, x.hi * y.lo, x.hi * y.hi];
          const lo = Math.min(...corners);
          const hi = Math.max(...corners);
          if (fits(lo, hi)) return { t: int(lo, hi), code };
        }
        return { t: FULL, code };
      }
      case 'clz32':
        // ToUint32(x)'s leading zeros, wasm's i32.clz of the same bits.
        if (vs.length !== 1) return refuse('Math.clz32 arity');
        return { t: int(0, 32), code: [...this.toInt32(vs[0]!), Op.i32_clz] };
      case 'fround':
        if (vs.length !== 1) return refuse('Math.fround arity');
        return { t: F64, code: [...this.f64(vs[0]!), Op.f32_demote_f64, Op.f64_promote_f32] };
      case 'floor':
      case 'ceil':
      case 'trunc': {
        // Of an integer (not -0), the integer itself: the interior pass's bounds
        // (`Math.ceil(n1 - 1)`) stay i32, so its loops are int32 loops.
        const v = vs[0];
        if (vs.length === 1 && v!.t.k === 'int' && !v!.t.nz) return v!;
        return one(fn === 'floor' ? Op.f64_floor : fn === 'ceil' ? Op.f64_ceil : Op.f64_trunc);
      }
      case 'sqrt':
        return one(Op.f64_sqrt);
      case 'abs':
        return one(Op.f64_abs);
      case 'min':
      case 'max':
        return this.minMax(fn, vs);
      default:
        return refuse(`Math.${fn} (no wasm instruction)`);
    }
  }

  private minMax(fn: 'min' | 'max', vs: readonly Val[]): Val {
    if (vs.length === 0) return refuse(`Math.${fn}()`);
    const ints = vs.every((v) => v.t.k === 'int' && !v.t.nz);
    if (!ints) {
      // f64.min/max: NaN if either is NaN, -0 below +0: Math.min/max's rules, pair by pair.
      const wop = fn === 'min' ? Op.f64_min : Op.f64_max;
      const code = [...this.f64(vs[0]!), ...vs.slice(1).flatMap((v) => [...this.f64(v), wop])];
      return { t: F64, code };
    }
    // Integers: a select on the signed comparison, pairwise, through two scratch locals.
    const x = this.newScratch();
    const y = this.newScratch();
    let t = vs[0]!.t as Extract<VT, { k: 'int' }>;
    const code = [...vs[0]!.code];
    for (const v of vs.slice(1)) {
      const u = v.t as Extract<VT, { k: 'int' }>;
      code.push(Op.local_set, ...uleb(x), ...v.code, Op.local_set, ...uleb(y));
      code.push(Op.local_get, ...uleb(x), Op.local_get, ...uleb(y), Op.local_get, ...uleb(x), Op.local_get, ...uleb(y));
      code.push(fn === 'min' ? Op.i32_lt_s : Op.i32_gt_s, Op.select);
      t = fn === 'min'
        ? (int(Math.min(t.lo, u.lo), Math.min(t.hi, u.hi)) as typeof t)
        : (int(Math.max(t.lo, u.lo), Math.max(t.hi, u.hi)) as typeof t);
    }
    return { t, code };
  }

  private scratch: number[] = [];
  private scratchUsed = 0;

  /** An i32 scratch local (fresh per use: a nested min/max needs its own). */
  private newScratch(): number {
    // Inference rounds would allocate again each time: reuse by position in the walk.
    if (this.scratchUsed < this.scratch.length) return this.scratch[this.scratchUsed++]!;
    const l = this.newLocal(ValType.i32);
    this.scratch.push(l);
    this.scratchUsed++;
    return l;
  }

  resetScratch(): void {
    this.scratchUsed = 0;
  }
}

/**
 * An arithmetic or bitwise operation on two known integers (extents: `(n - n % 4) / 4`), done
 * now by JavaScript itself, when its value is an int32 other than -0; operands still evaluated.
 */
function foldConstant(op: string, a: Val, b: Val): Val | null {
  if (a.t.k !== 'int' || b.t.k !== 'int' || a.t.lo !== a.t.hi || b.t.lo !== b.t.hi || a.t.nz || b.t.nz) return null;
  const x = a.t.lo;
  const y = b.t.lo;
  const table: Record<string, (() => number) | undefined> = {
    '+': () => x + y,
    '-': () => x - y,
    '*': () => x * y,
    '/': () => x / y,
    '%': () => x % y,
    '|': () => x | y,
    '&': () => x & y,
    '^': () => x ^ y,
    '<<': () => x << y,
    '>>': () => x >> y,
    '>>>': () => x >>> y,
  };
  const f = table[op];
  if (f === undefined) return null;
  const r = f();
  if (!Number.isInteger(r) || !fits(r, r) || Object.is(r, -0)) return null;
  return { t: int(r, r), code: [...a.code, Op.drop, ...b.code, Op.drop, ...i32c(r)] };
}

/** Whether `stmts` assign `name` (a declaration, an assignment, a `set`, a loop index). */
function assigns(stmts: readonly JsStmt[], name: string): boolean {
  let found = false;
  forEachNode(stmts, {
    stmt(s) {
      if ((s.kind === 'decl' && s.name === name) || (s.kind === 'for' && s.index === name)) found = true;
      if (s.kind === 'assign' && s.target.kind === 'id' && s.target.name === name) found = true;
    },
    expr(e) {
      if (e.kind === 'set' && e.name === name) found = true;
    },
  });
  return found;
}

/** `void 0`. */
function isUndefined(e: JsExpr): boolean {
  return e.kind === 'unary' && e.op === 'void';
}

/**
 * The value of an operation one of whose operands does not complete (a fault's `return`, or in
 * an inference round a local not typed yet): the operands up to that one, earlier values
 * dropped, so the code after the `return` still validates. Null when all complete.
 */
function firstNever(vs: readonly Val[]): Val | null {
  const k = vs.findIndex((v) => v.t.k === 'never');
  if (k < 0) return null;
  return { t: NEVER, code: vs.slice(0, k + 1).flatMap((v, j) => (j < k ? [...v.code, Op.drop] : v.code)) };
}

function uleb(n: number): number[] {
  const out: number[] = [];
  let v = n;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

/** Function 0 of every kernel: ToInt32 of a double, exactly (see the header). */
const toInt32Index = 0;
const toInt32Body: number[] = [
  // |x| < 2^63: the i64 truncation is exact and its low 32 bits are ToInt32 (NaN gives 0).
  Op.local_get, 0, Op.f64_abs, ...f64c(2 ** 63), Op.f64_lt,
  Op.if, ValType.i32,
  Op.local_get, 0, Op.prefix_fc, SatOp.i64_trunc_sat_f64_s, Op.i32_wrap_i64,
  Op.else,
  // Larger (or ±inf): x minus its multiple of 2^32 toward zero is exact (Sterbenz), in (-2^32, 2^32);
  // ±inf gives NaN, hence 0.
  Op.local_get, 0, Op.local_get, 0, ...f64c(2 ** -32), Op.f64_mul, Op.f64_trunc, ...f64c(2 ** 32), Op.f64_mul, Op.f64_sub,
  Op.prefix_fc, SatOp.i64_trunc_sat_f64_s, Op.i32_wrap_i64,
  Op.end,
];

/** Byte offsets of the staged arrays: in parameter order, each 16-byte aligned. */
function layoutOf(src: KernelSource, spec: Specialisation): { arrays: StagedArray[]; bytes: number } {
  let at = 0;
  const arrays: StagedArray[] = [];
  for (const p of src.params) {
    const elem = src.arrays[p];
    if (elem === undefined) continue;
    const length = spec.lengths[p];
    if (length === undefined) throw new Error(`no length for ${p}`);
    arrays.push({ param: p, elem, offset: at, length, read: false, written: false });
    at += Math.ceil((length * elemBytes(elem)) / 16) * 16;
  }
  return { arrays, bytes: at };
}

/** The largest memory a kernel may stage into (wasm32 addresses; memarg offsets are u32). */
const maxMemoryBytes = 2 ** 31;

/**
 * `stmts` with every loop index that shares its name with another declaration renamed (unroll
 * and jam declares `const i = k * 4` where its remainder loop has `for (let i …)`): each name is
 * then one local with one meaning. The loop's `let` scopes the name to its body, so renaming the
 * loop alone keeps the meaning.
 */
function uniqueLoopIndices(stmts: readonly JsStmt[]): JsStmt[] {
  const count = new Map<string, number>();
  const bump = (n: string): void => void count.set(n, (count.get(n) ?? 0) + 1);
  forEachNode(stmts, {
    stmt(s) {
      if (s.kind === 'decl') bump(s.name);
      if (s.kind === 'for') bump(s.index);
    },
    expr(e) {
      if (e.kind === 'set') bump(e.name);
    },
  });
  let next = 0;
  const taken = new Set(count.keys());
  const freshName = (base: string): string => {
    let n: string;
    do n = `${base}_${next++}`;
    while (taken.has(n));
    taken.add(n);
    return n;
  };
  const walk = (s: JsStmt): JsStmt => {
    switch (s.kind) {
      case 'for': {
        const body = s.body.map(walk);
        const loop = { ...s, body };
        if ((count.get(s.index) ?? 0) <= 1) return loop;
        const to = freshName(s.index);
        const rename = (n: string): string => (n === s.index ? to : n);
        // from and to are evaluated outside the loop's scope: only the index and the body change.
        return { ...loop, index: to, body: body.map((b) => renameStmt(b, rename)) };
      }
      case 'while':
        return { ...s, body: s.body.map(walk) };
      case 'if':
        return { ...s, then: s.then.map(walk), else: s.else.map(walk) };
      case 'block':
        return { ...s, body: s.body.map(walk) };
      default:
        return s;
    }
  };
  return stmts.map(walk);
}

/** Translates `src` for the facts of `spec`, or says why not. */
export function translateKernel(src: KernelSource, spec: Specialisation): Translation {
  try {
    const { arrays, bytes } = layoutOf(src, spec);
    if (bytes > maxMemoryBytes) return { ok: false, reason: 'the arrays need more than 2 GiB' };
    const layout = new Map(arrays.map((a) => [a.param, a]));
    const scalars = src.params.filter((p) => src.arrays[p] === undefined && spec.extents[p] === undefined);
    const extentParams = new Set(src.extents);
    for (const p of src.params) if (extentParams.has(p) && spec.extents[p] === undefined) return { ok: false, reason: `no value for extent ${p}` };
    const tr = new Translator({ ...src, body: uniqueLoopIndices(src.body) }, spec, layout, scalars);
    const { body, locals } = tr.translate();
    const staged = arrays.map((a) => ({ ...a, read: tr.read.has(a.param), written: tr.written.has(a.param) }));
    const entry = 'kernel';
    const bytesOut = encodeModule({
      types: [
        { params: [ValType.f64], results: [ValType.i32] },
        { params: scalars.map((s) => (spec.intScalars.has(s) ? ValType.i32 : ValType.f64)), results: [ValType.i32] },
      ],
      memory: { module: 'env', name: 'memory', minPages: Math.max(1, Math.ceil(bytes / 65536)) },
      functions: [
        { type: 0, locals: [], body: toInt32Body },
        { type: 1, locals, body },
      ],
      exports: [{ name: entry, func: 1 }],
    });
    return { ok: true, kernel: { bytes: bytesOut, entry, arrays: staged, scalars, memoryBytes: bytes } };
  } catch (err) {
    if (err instanceof Refusal) return { ok: false, reason: err.message };
    throw err;
  }
}
