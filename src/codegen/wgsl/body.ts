// One cluster function or work function (the JS AST after the loop passes) → a WGSL compute
// kernel that computes what the JavaScript function computes, or a refusal saying why not. The
// WebGPU back end (src/runtime/webgpu) dispatches it; a refused function runs on the host.
//
// Types. The JavaScript code computes in doubles; the program's values are f32, i32, u32 or bool
// (f64 programs never get here), so each JavaScript value is held in one 32-bit WGSL type chosen
// where it is made (types.ts, `VT`):
// - integers are i32 with an interval, or u32: exact. `+ - *` whose interval proves no overflow
//   are plain WGSL operations; otherwise the kernel computes the wrapped result and tests for
//   overflow, and on overflow bails (status 2: the runtime re-runs on the CPU, which computes the
//   double JavaScript has). Under a consumer that applies ToInt32 or ToUint32 (`| 0`, `>>> 0`, bit
//   operations, Math.imul, a store to an integer array) `+ -` (and `*` while the product is exact in
//   a double) are computed modulo 2^32 without a test, which is what the consumer takes (`bits`).
// - `a / b` of integers is kept as the pair until a consumer decides: `| 0` and Math.trunc
//   truncate, Math.floor/ceil round (the integer division of scalar.ts `divide`, exactly); any
//   other use takes the f32 quotient.
// - f32: f32 data, Math.fround results and f32 scalars are exact; arithmetic JavaScript does in
//   doubles on them is done in f32 (Math.fround(a op b) is exactly f32 `a op b` for + - * / and
//   sqrt; transcendental functions may differ in the last bits). Where WGSL's builtins differ from
//   JavaScript (Math.min/max with NaN and ±0, Math.pow, `%` on floats, ToInt32 of a float, NaN's
//   truthiness) the kernel calls library.ts functions with JavaScript's meaning.
// - bool: comparisons, `!`, `&&`, `||` of booleans. Literals take their context's type.
// Locals hold the join of what is assigned to them (a fixpoint over the body); no 32-bit type
// holding two definitions exactly (an int and a float, a boolean and a number) is a refusal.
//
// Control: every expression is flattened into statements in JavaScript's order of evaluation, so
// `c ? a : b`, `&&` and `||` evaluate only the branch JavaScript evaluates (a load or a fault in
// the other never happens), and each load and atomic operation happens exactly where JavaScript
// does it (bound to a `let`).
//
// Faults: a call of an rt fault helper stores 1 in the status word and returns; an index out of
// range of its array (a JavaScript read of `undefined`, a store JavaScript ignores), or a value
// the kernel cannot hold exactly (an integer overflow above), stores 2 and returns. Either way
// the runtime re-runs the program on the JavaScript back end, which raises the located
// diagnostic (or computes the odd value): the kernel never guesses.
//
// Generated code never splices user text: every identifier is made here from the generator's

import type { ScalarType } from '../../ir/types.js';
import type { JsBinaryOp, JsExpr, JsStmt } from '../jsast.js';
import { assigns, hasEffects, partialComponent } from './analysis.js';
import type { LibraryName } from './library.js';
import { f32Literal, i32Literal, localName, u32Literal } from './print.js';
import {
  BOOL, bits, F32, FULL, fitsI32, I32_MAX, I32_MIN, i32, isI32Value, isU32Value, join, lit, litFits, natural, NEVER, Refusal, refuse,
  sameType, U32, U32_MAX, UNDEF, wgslType, type IntVT, type VT,
} from './types.js';
import { flip, fromWord, jsArith, jsCompare, joinValues, magnitude, nextDown, nextUp, toWord, type Comparison } from './values.js';

/** The status word's values (element 0 of `status`): a fault helper was called; the kernel cannot follow JavaScript here (bail). */
export const STATUS_FAULT = 1;
export const STATUS_BAIL = 2;

/** The rt helpers that only raise a diagnostic (never return). */
const faultHelpers = new Set(['index', 'divzero', 'oob', 'shapes', 'size', 'loop']);

/** A translated value: its type and a pure WGSL expression of `wgslType(t)` (empty for lits and never). */
export interface Val {
  readonly t: VT;
  readonly code: string;
  /** An integer quotient `a / b` (t is then f32, `code` the f32 quotient for other uses). */
  readonly quot?: { readonly a: Val; readonly b: Val };
}

export interface ArrayInfo {
  readonly param: string;
  readonly elem: ScalarType | 'partials';
  readonly buffer: string;
  readonly length: string;
  readonly atomic: boolean;
  readonly written: boolean;
}

export type Binding =
  | { readonly kind: 'value'; readonly val: Val }
  | { readonly kind: 'var'; readonly name: string }
  | { readonly kind: 'array'; readonly info: ArrayInfo };

const never: Val = { t: NEVER, code: '' };

/** Translates one function body (its statements and expressions) into the lines of `main`'s body. */
export class Translator {
  /** The settled (so far) type of each mutable local, by JavaScript name. */
  private readonly varTypes = new Map<string, VT>();
  /** The definitions met in this round's walk, joined by name. */
  private defs = new Map<string, VT>();
  private final = false;
  private lines: string[] = [];
  private depth = 1;
  private tmp = 0;
  private scopes: Map<string, Binding>[] = [];
  /** Library functions the code calls. */
  readonly used = new Set<LibraryName>();
  /** Mutable reads are copied into lets in an expression that assigns (so a later assignment in it cannot change them). */
  private snapshotReads = false;
  /** The current block has ended (a fault, a bail, `return`, `break`): what follows is not emitted (WGSL warns of unreachable code). */
  private terminated = false;

  constructor(
    private readonly body: readonly JsStmt[],
    private readonly globals: ReadonlyMap<string, Binding>,
    private readonly mutable: ReadonlySet<string>,
    private readonly partials: readonly ScalarType[] | null,
  ) {
    for (const n of mutable) this.varTypes.set(n, NEVER);
  }

  /** Infers the locals' types (fixpoint), then emits the body. */
  translate(): string[] {
    for (let round = 0; ; round++) {
      if (round > 40) refuse('local types do not settle');
      this.walk();
      let changed = false;
      for (const [n, t] of this.varTypes) {
        const next = this.joinFor(n, t, this.defs.get(n) ?? NEVER);
        if (!sameType(next, t)) {
          this.varTypes.set(n, next);
          changed = true;
        }
      }
      if (!changed) break;
    }
    this.final = true;
    this.used.clear();
    this.walk();
    return this.lines;
  }

  private walk(): void {
    this.defs = new Map();
    this.lines = [];
    this.depth = 1;
    this.tmp = 0;
    this.scopes = [new Map(this.globals)];
    this.stmts(this.body);
  }

  // ---- emission ------------------------------------------------------------------------------

  private emit(line: string): void {
    if (!this.terminated) this.lines.push('  '.repeat(this.depth) + line);
  }

  /** Emits `line`, which ends the block (`return;`, `break;`). */
  private emitEnd(line: string): void {
    this.emit(line);
    this.terminated = true;
  }

  private fresh(): string {
    return `t_${this.tmp++}`;
  }

  /** Runs `f` with its emitted lines collected apart (one level deeper), for a branch or a loop test. */
  private capture<T>(f: () => T): { lines: string[]; value: T; ended: boolean } {
    const saved = this.lines;
    const ended = this.terminated;
    this.lines = [];
    this.depth++;
    this.terminated = false;
    try {
      const value = f();
      return { lines: this.lines, value, ended: this.terminated };
    } finally {
      this.lines = saved;
      this.depth--;
      this.terminated = ended;
    }
  }

  private emitLines(lines: readonly string[]): void {
    if (!this.terminated) this.lines.push(...lines);
  }

  /** `if (cond) { status = code; return; }` */
  private bailIf(cond: string, code = STATUS_BAIL): void {
    if (cond === 'false') return;
    if (cond === 'true') {
      this.emit(`atomicStore(&status[0], ${code}u);`);
      this.emitEnd('return;');
      return;
    }
    this.emit(`if (${cond}) { atomicStore(&status[0], ${code}u); return; }`);
  }

  /** Binds `code` (of WGSL type `w`) to a fresh let, unless it is already a name or a literal. */
  private bind(code: string, w?: string): string {
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(code) || /^\(?-?[0-9.e+]+[iuf]?\)?$/.test(code)) return code;
    const t = this.fresh();
    this.emit(w === undefined ? `let ${t} = ${code};` : `let ${t}: ${w} = ${code};`);
    return t;
  }

  private lib(name: LibraryName): void {
    this.used.add(name);
  }

  // ---- scopes --------------------------------------------------------------------------------

  private lookup(name: string): Binding | undefined {
    for (let k = this.scopes.length - 1; k >= 0; k--) {
      const b = this.scopes[k]!.get(name);
      if (b !== undefined) return b;
    }
    return undefined;
  }

  private scoped<T>(f: () => T): T {
    this.scopes.push(new Map());
    try {
      return f();
    } finally {
      this.scopes.pop();
    }
  }

  private declare(name: string, b: Binding): void {
    this.scopes[this.scopes.length - 1]!.set(name, b);
  }

  private varType(name: string): VT {
    return this.varTypes.get(name) ?? NEVER;
  }

  /** Records a definition of mutable local `name`; returns the code of `v` in the local's type. */
  private define(name: string, v: Val): string {
    if (!this.mutable.has(name)) return refuse(`assignment to ${name}, which is not a mutable local`);
    this.defs.set(name, this.joinFor(name, this.defs.get(name) ?? NEVER, v.t));
    return this.coerce(v, this.varType(name));
  }

  /** join(a, b) for local `name`, a refusal naming it. */
  private joinFor(name: string, a: VT, b: VT): VT {
    try {
      return join(a, b);
    } catch (err) {
      if (err instanceof Refusal) return refuse(`${name}: ${err.message}`);
      throw err;
    }
  }

  // ---- statements ----------------------------------------------------------------------------

  private stmts(ss: readonly JsStmt[]): void {
    for (const s of ss) {
      if (this.terminated) return;
      this.stmt(s);
    }
  }

  /** The statements of a nested block, and whether they end it (every path returns or breaks). */
  private block(ss: readonly JsStmt[]): { lines: string[]; ended: boolean } {
    const c = this.capture(() => this.scoped(() => this.stmts(ss)));
    return { lines: c.lines, ended: c.ended };
  }

  private stmt(s: JsStmt): void {
    this.snapshotReads = false;
    switch (s.kind) {
      case 'decl':
        return this.decl(s);
      case 'assign': {
        if (s.op !== '=') return refuse(`${s.op} assignment`);
        this.snapshotReads = hasEffects(s.value) || hasEffects(s.target);
        if (s.target.kind === 'id') {
          const name = s.target.name;
          const b = this.lookup(name);
          if (b === undefined || b.kind !== 'var') return refuse(`assignment to ${name}, which is not a mutable local`);
          const v = this.expr(s.value);
          if (v.t.k === 'never') return;
          const code = this.define(name, v);
          this.emit(`${localName(name)} = ${code};`);
          return;
        }
        if (s.target.kind === 'index') return this.store(s.target.object, s.target.index, s.value);
        return refuse(`assignment to a ${s.target.kind}`);
      }
      case 'expr':
        this.snapshotReads = hasEffects(s.expr);
        this.expr(s.expr);
        return;
      case 'for':
        return this.forLoop(s);
      case 'while': {
        this.snapshotReads = hasEffects(s.test);
        const test = this.capture(() => this.truthy(this.expr(s.test)));
        const body = this.block(s.body);
        this.emit('loop {');
        this.emitLines(test.lines);
        this.emit(`  if (!(${test.value})) { break; }`);
        this.emitLines(body.lines);
        this.emit('}');
        return;
      }
      case 'if': {
        this.snapshotReads = hasEffects(s.test);
        const test = this.truthy(this.expr(s.test));
        const then = this.block(s.then);
        const otherwise = this.block(s.else);
        this.emit(`if (${test}) {`);
        this.emitLines(then.lines);
        if (otherwise.lines.length > 0) {
          this.emit('} else {');
          this.emitLines(otherwise.lines);
        }
        this.emit('}');
        // Both branches end (a fault each): nothing after the if is reached.
        if (then.ended && otherwise.ended) this.terminated = true;
        return;
      }
      case 'block': {
        const body = this.block(s.body);
        this.emit('{');
        this.emitLines(body.lines);
        this.emit('}');
        if (body.ended) this.terminated = true;
        return;
      }
      case 'break':
        this.emitEnd('break;');
        return;
      case 'return':
        if (s.value !== null) return refuse('a return with a value');
        this.emitEnd('return;');
        return;
      case 'comment':
        return;
      case 'function':
        return refuse('a nested function');
      default:
        return s satisfies never;
    }
  }

  private decl(s: Extract<JsStmt, { kind: 'decl' }>): void {
    const name = s.name;
    const wname = localName(name);
    if (!s.mutable) {
      if (s.init === null) return refuse(`const ${name} without a value`);
      this.snapshotReads = hasEffects(s.init);
      const v = this.expr(s.init);
      if (v.t.k === 'never' || v.t.k === 'lit' || v.t.k === 'undef') {
        // A literal const is a constant of its readers' types; a never one is not reached.
        this.declare(name, { kind: 'value', val: v });
        return;
      }
      if (v.t.k === 'bits') return refuse(`const ${name} may leave 32 bits`);
      this.emit(`let ${wname}: ${wgslType(v.t)} = ${v.code};`);
      this.declare(name, { kind: 'value', val: { ...v, code: wname } });
      return;
    }
    if (!this.mutable.has(name)) return refuse(`${name} is declared as both const and let`);
    this.declare(name, { kind: 'var', name });
    let init: string | null = null;
    if (s.init !== null) {
      this.snapshotReads = hasEffects(s.init);
      const v = this.expr(s.init);
      if (v.t.k === 'never') return;
      init = this.define(name, v);
    }
    const t = this.varType(name);
    // Never assigned a value: never read either (a read refuses).
    if (t.k === 'never') return;
    this.emit(`var ${wname}: ${wgslType(t)}${init === null ? '' : ` = ${init}`};`);
  }

  private forLoop(s: Extract<JsStmt, { kind: 'for' }>): void {
    if (assigns(s.body, s.index)) return refuse(`the body of a loop assigns its index ${s.index}`);
    const asInt = (v: Val, what: string, ceil = false): Val => {
      if (!this.final && v.t.k === 'never') return { t: i32(0, 0), code: '0i' };
      // `i < a / b` (and a downward `i >= a / b`): against the quotient rounded up, exactly.
      if (ceil && v.quot !== undefined && v.quot.a.t.k === 'i32') {
        const q = this.quotient(v.quot.a, v.quot.b, 'ceil', false);
        if (q.t.k === 'i32') return q;
      }
      if (v.quot !== undefined) return asInt(this.integral(v), what);
      const t = v.t;
      if (t.k === 'lit' && isI32Value(t.value)) return { t: i32(t.value, t.value), code: i32Literal(t.value) };
      if (t.k === 'i32') return v;
      return refuse(`a loop ${what} that is not an int32 (${t.k})`);
    };
    const wname = localName(s.index);
    const first = s.down ? s.to : s.from;
    const again = s.down ? s.from : s.to;
    this.snapshotReads = hasEffects(first);
    let start = asInt(this.expr(first), s.down ? 'end' : 'start');
    if (start.t.k === 'never') return;
    const test = this.capture(() => {
      this.snapshotReads = hasEffects(again);
      return asInt(this.expr(again), s.down ? 'start' : 'end', true);
    });
    const a = start.t as IntVT;
    const b = test.value.t as IntVT;
    let interval: IntVT;
    if (!s.down) interval = i32(a.lo, Math.max(a.lo, b.hi - 1));
    else {
      // for (let i = to - 1; i >= from; i--): the start is to − 1, the index never below from.
      if (b.lo === I32_MIN) return refuse('a downward loop that may count below int32');
      if (a.lo === I32_MIN) {
        this.bailIf(`${start.code} == ${i32Literal(I32_MIN)}`);
        start = { t: i32(I32_MIN + 1, a.hi), code: start.code };
      }
      interval = i32(b.lo, Math.max(b.lo, (start.t as IntVT).hi - 1));
      start = { t: interval, code: `(${start.code} - 1i)` };
    }
    const body = this.capture(() =>
      this.scoped(() => {
        this.declare(s.index, { kind: 'value', val: { t: interval, code: wname } });
        this.stmts(s.body);
      }),
    );
    this.emit('{');
    this.emit(`  var ${wname}: i32 = ${start.code};`);
    this.emit('  loop {');
    this.emitLines(test.lines.map((l) => '  ' + l));
    this.emit(`    if (!(${wname} ${s.down ? '>=' : '<'} ${test.value.code})) { break; }`);
    this.emitLines(body.lines.map((l) => '  ' + l));
    // A body that always ends (a fault, a break) never reaches the step: WGSL warns of it.
    if (!body.ended) this.emit(`    ${wname} = ${wname} ${s.down ? '-' : '+'} 1i;`);
    this.emit('  }');
    this.emit('}');
  }

  // ---- arrays --------------------------------------------------------------------------------

  private arrayOf(object: JsExpr): ArrayInfo {
    if (object.kind !== 'id') return refuse('an index into a computed object');
    const b = this.lookup(object.name);
    if (b === undefined || b.kind !== 'array') return refuse(`${object.name} is not an array parameter`);
    return b.info;
  }

  /** The element index of `index` into `a` as a u32 let, checked against its length (bail if out). */
  private elementIndex(a: ArrayInfo, index: JsExpr): string | null {
    const v = this.integral(this.expr(index));
    let code: string;
    switch (v.t.k) {
      case 'never':
        return null;
      case 'lit':
        if (!isU32Value(v.t.value)) {
          // JavaScript reads undefined there (and a store does nothing): the kernel bails.
          this.bailIf('true');
          return null;
        }
        code = u32Literal(v.t.value);
        break;
      case 'i32':
        code = `u32(${v.code})`;
        break;
      case 'u32':
        code = v.code;
        break;
      case 'f32':
        this.lib('index_f32');
        code = `js_index_f32(${v.code})`;
        break;
      case 'bool':
        this.bailIf('true');
        return null;
      case 'bits':
      case 'undef':
        return refuse(`an index that is ${v.t.k}`);
      default:
        return v.t satisfies never;
    }
    const at = this.bind(code, 'u32');
    this.bailIf(`${at} >= ${a.length}`);
    return at;
  }

  /** The partial component that `partials[index]` is (chunk·width + j), or null when all components are alike. */
  private partialType(index: JsExpr): ScalarType {
    const ps = this.partials;
    if (ps === null || ps.length === 0) return refuse('partials used by a function without partials');
    const j = partialComponent(index, ps.length);
    if (j !== null && j < ps.length) return ps[j]!;
    if (ps.every((p) => p === ps[0])) return ps[0]!;
    return refuse('a partial whose component the translator cannot tell');
  }

  private load(object: JsExpr, index: JsExpr): Val {
    const a = this.arrayOf(object);
    const at = this.elementIndex(a, index);
    if (at === null) return never;
    const raw = a.atomic ? `atomicLoad(&${a.buffer}[${at}])` : `${a.buffer}[${at}]`;
    const t = this.fresh();
    if (a.elem === 'partials') {
      const p = this.partialType(index);
      const [type, code] = fromWord(p, raw);
      this.emit(`let ${t}: ${wgslType(type)} = ${code};`);
      return { t: type, code: t };
    }
    switch (a.elem) {
      case 'f32':
        this.emit(`let ${t}: f32 = ${raw};`);
        return { t: F32, code: t };
      case 'i32':
        this.emit(`let ${t}: i32 = ${raw};`);
        return { t: FULL, code: t };
      case 'u32':
        this.emit(`let ${t}: u32 = ${raw};`);
        return { t: U32, code: t };
      case 'bool':
        // A Uint8Array element: 0 or 1 on the device (0..255 in JavaScript).
        this.emit(`let ${t}: i32 = i32(${raw});`);
        return { t: i32(0, 255), code: t };
      case 'f64':
      case 'u8':
      case 'i8':
        return refuse(`an ${a.elem} array`);
      default:
        return a.elem satisfies never;
    }
  }

  private store(object: JsExpr, index: JsExpr, value: JsExpr): void {
    const a = this.arrayOf(object);
    const at = this.elementIndex(a, index);
    if (at === null) return;
    const elem = a.elem === 'partials' ? this.partialType(index) : a.elem;
    // Integer arrays store ToInt32 / ToUint32 of the value: modulo 2^32 is all they keep.
    const v = this.expr(value, elem !== 'f32' && a.elem !== 'partials');
    if (v.t.k === 'never') return;
    let code: string;
    if (a.elem === 'partials') code = toWord(elem, this.coerce(v, elem === 'f32' ? F32 : elem === 'u32' ? U32 : FULL));
    else
      switch (elem) {
        case 'f32':
          code = this.coerce(v, F32);
          break;
        case 'i32':
          code = this.toInt32(v);
          break;
        case 'u32':
          code = this.toUint32(v);
          break;
        case 'bool':
          code = v.t.k === 'i32' && v.t.lo >= 0 && v.t.hi <= 255 ? `u32(${v.code})` : `(${this.toUint32(v)} & 255u)`;
          break;
        case 'f64':
        case 'u8':
        case 'i8':
          return refuse(`an ${elem} array`);
        default:
          return elem satisfies never;
      }
    if (a.atomic) this.emit(`atomicStore(&${a.buffer}[${at}], ${code});`);
    else this.emit(`${a.buffer}[${at}] = ${code};`);
  }

  // ---- conversions ---------------------------------------------------------------------------

  /** `v` as a value of `t`'s WGSL type (t holds every value of v.t). */
  private coerce(v: Val, t0: VT): string {
    // A variable only ever given one literal is held in that literal's natural type.
    const t = t0.k === 'lit' ? natural(t0.value) : t0;
    if (v.t.k === 'never' || t.k === 'never') return v.code;
    const bad = (): string => (this.final ? refuse(`a ${v.t.k} value where a ${t.k} is kept`) : v.code);
    if (v.t.k === 'lit') {
      if (t.k === 'bool') return bad();
      if (!litFits(v.t.value, t)) return bad();
      return this.literal(v.t.value, t);
    }
    switch (t.k) {
      case 'i32':
        if (v.t.k === 'i32') return v.code;
        if (v.t.k === 'bool') return `select(0i, 1i, ${v.code})`;
        return bad();
      case 'u32':
        if (v.t.k === 'u32') return v.code;
        if (v.t.k === 'i32' && v.t.lo >= 0) return `u32(${v.code})`;
        if (v.t.k === 'bool') return `select(0u, 1u, ${v.code})`;
        return bad();
      case 'f32':
        if (v.t.k === 'f32') return v.code;
        if (v.t.k === 'i32' && v.t.lo >= -(2 ** 24) && v.t.hi <= 2 ** 24) return `f32(${v.code})`; // exact
        if (v.t.k === 'i32') {
          this.lib('f32_from_i32');
          return `js_f32_from_i32(${v.code})`;
        }
        if (v.t.k === 'u32') {
          this.lib('f32_from_u32');
          return `js_f32_from_u32(${v.code})`;
        }
        if (v.t.k === 'bool') return `select(0.0f, 1.0f, ${v.code})`;
        return bad();
      case 'bool':
        if (v.t.k === 'bool') return v.code;
        return bad();
      default:
        return bad();
    }
  }

  /** Literal `v` printed as a value of `t` (which it fits). */
  private literal(v: number, t: VT): string {
    switch (t.k) {
      case 'i32':
      case 'bits':
        return i32Literal(v);
      case 'u32':
        return u32Literal(v);
      case 'f32': {
        const f = Math.fround(v);
        if (Number.isNaN(f)) {
          this.lib('nan');
          return 'js_nan()';
        }
        if (!Number.isFinite(f)) {
          this.lib('inf');
          return f > 0 ? 'js_inf()' : '(-js_inf())';
        }
        return f32Literal(f);
      }
      default:
        return refuse(`a literal as ${t.k}`);
    }
  }

  /** A value as a number: a boolean is 0 or 1, as JavaScript's arithmetic takes it. */
  private numeric(v: Val): Val {
    if (v.t.k === 'bool') return { t: i32(0, 1), code: `select(0i, 1i, ${v.code})` };
    if (v.t.k === 'undef') return refuse('arithmetic on undefined');
    return v;
  }

  /** ToInt32(v) as an i32. */
  private toInt32(v: Val): string {
    if (v.quot !== undefined) return this.quotient(v.quot.a, v.quot.b, 'trunc').code;
    switch (v.t.k) {
      case 'i32':
      case 'bits':
        return v.code;
      case 'u32':
        return `bitcast<i32>(${v.code})`;
      case 'f32':
        this.lib('to_int32');
        return `js_to_int32(${v.code})`;
      case 'bool':
        return `select(0i, 1i, ${v.code})`;
      case 'lit':
        return i32Literal(v.t.value | 0);
      case 'never':
        return '0i';
      case 'undef':
        return '0i'; // ToInt32(undefined) is 0
      default:
        return v.t satisfies never;
    }
  }

  /** ToUint32(v) as a u32. */
  private toUint32(v: Val): string {
    if (v.t.k === 'u32') return v.code;
    if (v.t.k === 'lit') return u32Literal(v.t.value >>> 0);
    if (v.t.k === 'i32' && v.t.lo >= 0) return `u32(${v.code})`;
    return `bitcast<u32>(${this.toInt32(v)})`;
  }

  /** JavaScript truthiness as a WGSL bool. */
  private truthy(v: Val): string {
    switch (v.t.k) {
      case 'bool':
        return v.code;
      case 'i32':
        return `(${v.code} != 0i)`;
      case 'u32':
        return `(${v.code} != 0u)`;
      case 'f32':
        this.lib('truthy_f32');
        return `js_truthy(${v.code})`;
      case 'lit':
        return v.t.value !== 0 && !Number.isNaN(v.t.value) ? 'true' : 'false';
      case 'never':
        return 'false';
      case 'undef':
        return 'false';
      case 'bits':
        return refuse('the truth of an integer that may leave 32 bits');
      default:
        return v.t satisfies never;
    }
  }

  // ---- expressions ---------------------------------------------------------------------------

  /** `e`'s value; `mod`: the consumer takes it modulo 2^32 (ToInt32 / ToUint32), so `+ - *` may wrap. */
  private expr(e: JsExpr, mod = false): Val {
    switch (e.kind) {
      case 'num':
        return { t: lit(e.value), code: '' };
      case 'id':
        return this.ident(e.name);
      case 'binary':
        return this.binary(e.op, e.lhs, e.rhs, mod);
      case 'unary':
        // `await` is only in the device variant's main, never in a kernel's function.
        if (e.op === 'await') return refuse('await in a cluster function');
        return this.unary(e.op, e.arg, mod);
      case 'cond':
        return this.conditional(e.test, e.then, e.else, mod);
      case 'call':
        return this.call(e.callee, e.args);
      case 'index':
        return this.load(e.object, e.index);
      case 'set': {
        const b = this.lookup(e.name);
        if (b === undefined || b.kind !== 'var') return refuse(`${e.name} is not a temporary`);
        const v = this.expr(e.value);
        if (v.t.k === 'never') return never;
        const code = this.define(e.name, v);
        const t = this.varType(e.name);
        if (t.k === 'never') return v;
        const w = wgslType(t);
        const snap = this.bind(code, w);
        this.emit(`${localName(e.name)} = ${snap};`);
        return { t: v.t.k === 'i32' || v.t.k === 'lit' ? v.t : t, code: v.t.k === 'lit' ? '' : snap };
      }
      case 'seq': {
        const first = this.expr(e.first);
        if (first.t.k === 'never') return never;
        return this.expr(e.then, mod);
      }
      case 'member':
      case 'array':
        return refuse(`a ${e.kind} expression as a value`);
      default:
        return e satisfies never;
    }
  }

  private ident(name: string): Val {
    const b = this.lookup(name);
    if (b === undefined) return refuse(`${name} is not a value the kernel knows`);
    if (b.kind === 'array') return refuse(`the array ${name} used as a value`);
    if (b.kind === 'value') return b.val;
    const t = this.varType(name);
    if (t.k === 'never') return this.final ? refuse(`${name} may be read before it is assigned`) : never;
    if (t.k === 'lit') return { t, code: '' }; // only ever that literal
    const code = localName(name);
    if (!this.snapshotReads) return { t, code };
    const snap = this.fresh();
    this.emit(`let ${snap}: ${wgslType(t)} = ${code};`);
    return { t, code: snap };
  }

  private conditional(test: JsExpr, then: JsExpr, otherwise: JsExpr, mod: boolean): Val {
    const c = this.truthy(this.expr(test));
    // A test known here (`0 === 0 ? rt.divzero(…) : a % 0`, the inline zero check of a constant
    // divisor that is 0) translates the branch taken only: WGSL rejects a shader whose dead
    // branch divides by the constant 0.
    if (c === 'true' || c === 'false') {
      const only = this.capture(() => this.scoped(() => this.expr(c === 'true' ? then : otherwise, mod)));
      this.emitLines(only.lines);
      if (only.ended) this.terminated = true;
      return only.value;
    }
    const a = this.capture(() => this.scoped(() => this.expr(then, mod)));
    const b = this.capture(() => this.scoped(() => this.expr(otherwise, mod)));
    const t = joinValues(a.value.t, b.value.t);
    if (t.k === 'never') {
      this.emit(`if (${c}) {`);
      this.emitLines(a.lines);
      this.emit('} else {');
      this.emitLines(b.lines);
      this.emit('}');
      if (a.ended && b.ended) this.terminated = true;
      return never;
    }
    if (t.k === 'lit') {
      // Both the same literal: the branches run for their effects only.
      if (a.lines.length + b.lines.length > 0) {
        this.emit(`if (${c}) {`);
        this.emitLines(a.lines);
        this.emit('} else {');
        this.emitLines(b.lines);
        this.emit('}');
      }
      return { t, code: '' };
    }
    const w = wgslType(t);
    const as = a.value.t.k === 'never' ? null : this.coerceAny(a.value, t);
    const bs = b.value.t.k === 'never' ? null : this.coerceAny(b.value, t);
    if (a.lines.length === 0 && b.lines.length === 0 && as !== null && bs !== null) return { t, code: `select(${bs}, ${as}, ${c})` };
    const r = this.fresh();
    this.emit(`var ${r}: ${w};`);
    this.emit(`if (${c}) {`);
    this.emitLines(a.lines);
    if (as !== null) this.emit(`  ${r} = ${as};`);
    this.emit('} else {');
    this.emitLines(b.lines);
    if (bs !== null) this.emit(`  ${r} = ${bs};`);
    this.emit('}');
    return { t, code: r };
  }

  /** `v` in the representation of value type `t` (a join of branch types, bits included). */
  private coerceAny(v: Val, t: VT): string {
    if (t.k === 'bits') {
      if (v.t.k === 'lit') return i32Literal(v.t.value | 0);
      return this.toInt32(v);
    }
    if (t.k === 'i32' && v.t.k === 'i32') return v.code;
    return this.coerce(v.quot !== undefined ? { t: F32, code: v.code } : v, t);
  }

  private unary(op: '-' | '!' | '~' | 'void', arg: JsExpr, mod: boolean): Val {
    if (op === 'void') {
      if (arg.kind !== 'num') return refuse('void of an expression');
      return { t: UNDEF, code: '' };
    }
    if (op === '-' && arg.kind === 'num') return { t: lit(-arg.value), code: '' };
    if (op === '!') {
      const v = this.expr(arg);
      if (v.t.k === 'never') return never;
      if (v.t.k === 'lit') return { t: BOOL, code: this.truthy(v) === 'true' ? 'false' : 'true' };
      return { t: BOOL, code: `(!${this.truthy(v)})` };
    }
    if (op === '~') {
      const v = this.numeric(this.expr(arg, true));
      if (v.t.k === 'never') return never;
      if (v.t.k === 'lit') return { t: lit(~v.t.value), code: '' };
      const t = v.t.k === 'i32' ? i32(~v.t.hi, ~v.t.lo) : FULL;
      return { t, code: `(~${this.toInt32(v)})` };
    }
    const v = this.numeric(this.expr(arg, mod));
    switch (v.t.k) {
      case 'never':
        return never;
      case 'lit':
        return { t: lit(-v.t.value), code: '' };
      case 'f32':
        return { t: F32, code: `(-${v.code})` };
      case 'i32': {
        const { lo, hi } = v.t;
        if (lo > I32_MIN) return { t: i32(-hi, -lo), code: `(-${v.code})` };
        if (mod) return { t: bits(-hi, -lo), code: `(-${v.code})` };
        const x = this.bind(v.code, 'i32');
        this.bailIf(`${x} == ${i32Literal(I32_MIN)}`);
        return { t: i32(-hi, I32_MAX), code: `(-${x})` };
      }
      case 'bits':
        if (mod) return { t: bits(-v.t.hi, -v.t.lo), code: `(-${v.code})` };
        return refuse('the negation of an integer that may leave 32 bits');
      case 'u32': {
        if (mod) return { t: bits(-U32_MAX, 0), code: `(-bitcast<i32>(${v.code}))` };
        const x = this.bind(v.code, 'u32');
        this.bailIf(`${x} > 2147483648u`);
        return { t: i32(I32_MIN, 0), code: `(-bitcast<i32>(${x}))` };
      }
      case 'undef':
      case 'bool': // numeric() made booleans numbers
        return refuse(`the negation of ${v.t.k}`);
      default:
        return v.t satisfies never;
    }
  }

  private binary(op: JsBinaryOp, lhs: JsExpr, rhs: JsExpr, mod: boolean): Val {
    switch (op) {
      case '&&':
      case '||':
        return this.logical(op, lhs, rhs);
      case '===':
      case '!==':
      case '<':
      case '<=':
      case '>':
      case '>=':
        return this.compare(op, lhs, rhs);
      case '+':
      case '-':
      case '*':
        return this.arith(op, lhs, rhs, mod);
      case '/':
        return this.divide(lhs, rhs);
      case '%':
        return this.remainder(lhs, rhs);
      case '|':
      case '&':
      case '^':
        return this.bitwise(op, lhs, rhs);
      case '<<':
      case '>>':
      case '>>>':
        return this.shift(op, lhs, rhs);
      default:
        return op satisfies never;
    }
  }

  private logical(op: '&&' | '||', lhs: JsExpr, rhs: JsExpr): Val {
    const a = this.expr(lhs);
    if (a.t.k === 'never') return never;
    const b = this.capture(() => this.scoped(() => this.expr(rhs)));
    if (a.t.k === 'lit' || (a.t.k === 'bool' && (a.code === 'true' || a.code === 'false'))) {
      // A constant left side: JavaScript evaluates the right side or not, by its value.
      const holds = this.truthy(a) === 'true';
      if (op === '&&' ? !holds : holds) return a.t.k === 'lit' ? a : { t: BOOL, code: a.code };
      this.emitLines(b.lines.map((l) => l.slice(2)));
      return b.value;
    }
    if (a.t.k !== 'bool' || (b.value.t.k !== 'bool' && b.value.t.k !== 'never')) return refuse(`${op} of values that are not both booleans`);
    // Both sides pure: WGSL's non-short-circuit & and | (SwiftShader took minutes to build a
    // kernel whose conditions were chains of short-circuit && — one branch each — and 0.3 s
    // with &).
    if (b.lines.length === 0) return { t: BOOL, code: `(${a.code} ${op === '&&' ? '&' : '|'} ${b.value.code})` };
    const r = this.fresh();
    this.emit(`var ${r}: bool = ${a.code};`);
    this.emit(`if (${op === '&&' ? r : `!${r}`}) {`);
    this.emitLines(b.lines);
    if (b.value.t.k !== 'never') this.emit(`  ${r} = ${b.value.code};`);
    this.emit('}');
    return { t: BOOL, code: r };
  }

  private compare(op: Comparison, lhs: JsExpr, rhs: JsExpr): Val {
    const a = this.expr(lhs);
    if (a.t.k === 'never') return never;
    const b = this.expr(rhs);
    if (b.t.k === 'never') return never;
    return this.compareVals(op, a, b);
  }

  private compareVals(op: Comparison, a0: Val, b0: Val): Val {
    let a = a0;
    let b = b0;
    const equality = op === '===' || op === '!==';
    const answer = (x: boolean): Val => ({ t: BOOL, code: x ? 'true' : 'false' });
    if (a.t.k === 'undef' || b.t.k === 'undef') {
      // Every load is checked (an index out of range bails), so no value here is undefined.
      if (!equality) return refuse('an ordering comparison with undefined');
      const same = a.t.k === b.t.k;
      return answer(op === '===' ? same : !same);
    }
    if (equality && (a.t.k === 'bool') !== (b.t.k === 'bool')) return answer(op === '!=='); // strict: a boolean is no number
    if (equality && a.t.k === 'bool' && b.t.k === 'bool') return { t: BOOL, code: `(${a.code} ${op === '===' ? '==' : '!='} ${b.code})` };
    a = this.numeric(a);
    b = this.numeric(b);
    const isInt = (v: Val): boolean => v.quot === undefined && (v.t.k === 'i32' || v.t.k === 'u32' || (v.t.k === 'lit' && Number.isInteger(v.t.value)));
    if (b.quot !== undefined && isInt(a) && b.quot.a.t.k !== 'u32') return this.compareQuotient(op, a, b.quot.a, b.quot.b);
    if (a.quot !== undefined && isInt(b) && a.quot.a.t.k !== 'u32') return this.compareQuotient(flip(op), b, a.quot.a, a.quot.b);
    if (a.quot !== undefined) a = { t: F32, code: a.code };
    if (b.quot !== undefined) b = { t: F32, code: b.code };
    const w = op === '===' ? '==' : op === '!==' ? '!=' : op;
    if (a.t.k === 'lit' && b.t.k === 'lit') return answer(jsCompare(op, a.t.value, b.t.value));
    if (a.t.k === 'bits' || b.t.k === 'bits') return refuse('a comparison of an integer that may leave 32 bits');
    if (a.t.k === 'lit') return this.compareLit(flip(op), b, a.t.value);
    if (b.t.k === 'lit') return this.compareLit(op, a, b.t.value);
    if (a.t.k === 'f32' || b.t.k === 'f32') return { t: BOOL, code: `(${this.coerce(a, F32)} ${w} ${this.coerce(b, F32)})` };
    if (a.t.k === 'i32' && b.t.k === 'i32') return { t: BOOL, code: `(${a.code} ${w} ${b.code})` };
    if (a.t.k === 'u32' && b.t.k === 'u32') return { t: BOOL, code: `(${a.code} ${w} ${b.code})` };
    // An i32 and a u32: exactly, as the mathematical integers compare.
    if (a.t.k === 'u32') return this.mixedCompare(flip(op), b, a);
    return this.mixedCompare(op, a, b);
  }

  /**
   * `x op a / b` for an integer x and the exact quotient of i32s a, b (unroll and jam's
   * `k < (n - n % 4) / 4`): against the quotient rounded up or down, as an integer compares with
   * a rational. b = 0 bails (JavaScript's quotient is ±Infinity or NaN there).
   */
  private compareQuotient(op: Comparison, x: Val, a: Val, b: Val): Val {
    if (op === '===' || op === '!==') {
      const q = this.quotient(a, b, 'trunc', false);
      const xs = x.t.k === 'lit' ? i32Literal(x.t.value) : this.coerce(x, FULL);
      const exact = `(((${a.code} % ${b.code}) == 0i) & (${xs} == ${q.code}))`;
      return { t: BOOL, code: op === '===' ? exact : `(!${exact})` };
    }
    const up = op === '<' || op === '>=';
    const q = this.quotient(a, b, up ? 'ceil' : 'floor', false);
    if (q.t.k === 'bits') return refuse('a comparison with a quotient that may leave 32 bits');
    return this.compareVals(op, x, q);
  }

  /** `x op c` for a literal `c`, exactly (an integer x against a fraction or an out-of-range c included). */
  private compareLit(op: Comparison, x: Val, c: number): Val {
    const w = op === '===' ? '==' : op === '!==' ? '!=' : op;
    if (x.t.k === 'f32') {
      const f = Math.fround(c);
      if (f === c || Number.isNaN(c) || !Number.isFinite(c)) return { t: BOOL, code: `(${x.code} ${w} ${this.literal(c, F32)})` };
      // c has no f32: x (an f32) equals it never; an order compares as with the f32 on c's side of x.
      if (op === '===') return { t: BOOL, code: 'false' };
      if (op === '!==') return { t: BOOL, code: 'true' };
      const below = f < c ? f : nextDown(f); // the f32 just below c
      const above = f > c ? f : nextUp(f);
      const code =
        op === '<' || op === '<='
          ? `(${x.code} <= ${this.literal(below, F32)})`
          : `(${x.code} >= ${this.literal(above, F32)})`;
      return { t: BOOL, code };
    }
    if (x.t.k !== 'i32' && x.t.k !== 'u32') return refuse(`a comparison of a ${x.t.k}`);
    const [lo, hi] = x.t.k === 'i32' ? [I32_MIN, I32_MAX] : [0, U32_MAX];
    const constant = (v: boolean): Val => ({ t: BOOL, code: v ? 'true' : 'false' });
    if (Number.isNaN(c)) return constant(op === '!==');
    let k: number;
    const o = w;
    if (op === '===' || op === '!==') {
      if (!Number.isInteger(c) || c < lo || c > hi) return constant(op === '!==');
      k = c;
    } else if (op === '<' || op === '>=') {
      k = Math.ceil(c); // x < c ⟺ x < ⌈c⌉ for an integer x
    } else {
      k = Math.floor(c); // x <= c ⟺ x <= ⌊c⌋
    }
    if (k < lo) return constant(o === '>' || o === '>=' || o === '!=');
    if (k > hi) return constant(o === '<' || o === '<=' || o === '!=');
    if (Object.is(k, -0)) k = 0;
    return { t: BOOL, code: `(${x.code} ${o} ${x.t.k === 'i32' ? i32Literal(k) : u32Literal(k)})` };
  }

  private mixedCompare(op: Comparison, a: Val, b: Val): Val {
    // a: i32, b: u32.
    if (a.t.k === 'i32' && a.t.lo >= 0) {
      const w = op === '===' ? '==' : op === '!==' ? '!=' : op;
      return { t: BOOL, code: `(u32(${a.code}) ${w} ${b.code})` };
    }
    const x = this.bind(a.code, 'i32');
    const y = this.bind(b.code, 'u32');
    const code = {
      '<': `((${x} < 0i) | (u32(${x}) < ${y}))`,
      '<=': `((${x} < 0i) | (u32(${x}) <= ${y}))`,
      '>': `((${x} >= 0i) & (u32(${x}) > ${y}))`,
      '>=': `((${x} >= 0i) & (u32(${x}) >= ${y}))`,
      '===': `((${x} >= 0i) & (u32(${x}) == ${y}))`,
      '!==': `((${x} < 0i) | (u32(${x}) != ${y}))`,
    }[op];
    return { t: BOOL, code };
  }

  /** Two integer operands in one representation: both i32 (or bits), or both u32; null: no exact common one. */
  private unifyInts(a: Val, b: Val): [Val, Val] | null {
    const asType = (v: Val, t: VT): Val => ({ t: v.t.k === 'lit' ? (t.k === 'i32' ? i32(v.t.value, v.t.value) : t) : t.k === 'u32' ? U32 : v.t, code: this.coerce(v, t) });
    if (a.t.k === 'lit' && b.t.k !== 'lit') {
      const r = this.unifyInts(b, a);
      return r === null ? null : [r[1], r[0]];
    }
    if (b.t.k === 'lit') {
      if ((a.t.k === 'i32' || a.t.k === 'bits') && isI32Value(b.t.value)) return [a, asType(b, FULL)];
      if (a.t.k === 'u32' && isU32Value(b.t.value)) return [a, asType(b, U32)];
      return null;
    }
    const isInt = (t: VT): boolean => t.k === 'i32' || t.k === 'bits';
    if (isInt(a.t) && isInt(b.t)) return [a, b];
    if (a.t.k === 'u32' && b.t.k === 'u32') return [a, b];
    if (a.t.k === 'u32' && b.t.k === 'i32' && b.t.lo >= 0) return [a, asType(b, U32)];
    if (b.t.k === 'u32' && a.t.k === 'i32' && a.t.lo >= 0) return [asType(a, U32), b];
    return null;
  }

  private arith(op: '+' | '-' | '*', lhs: JsExpr, rhs: JsExpr, mod: boolean): Val {
    const a0 = this.numeric(this.expr(lhs, mod));
    if (a0.t.k === 'never') return never;
    const b0 = this.numeric(this.expr(rhs, mod));
    if (b0.t.k === 'never') return never;
    const [a, b] = this.resolveQuotients(a0, b0);
    if (a.t.k === 'lit' && b.t.k === 'lit') return { t: lit(jsArith(op, a.t.value, b.t.value)), code: '' };
    const float = (): Val => ({ t: F32, code: `(${this.coerce(a, F32)} ${op} ${this.coerce(b, F32)})` });
    if (a.t.k === 'f32' || b.t.k === 'f32') return float();
    if (a.t.k === 'undef' || b.t.k === 'undef') return refuse('arithmetic on undefined');
    // Integers (a literal that is no integer of the other's type makes it a float operation).
    if ((a.t.k === 'lit' && !Number.isInteger(a.t.value)) || (b.t.k === 'lit' && !Number.isInteger(b.t.value))) return float();
    const wide = (t: VT): boolean => t.k === 'u32' || (t.k === 'lit' && !isI32Value(t.value));
    if (mod && (wide(a.t) || wide(b.t)) && (op !== '*' || Math.max(magnitude(a.t), 1) * Math.max(magnitude(b.t), 1) <= 2 ** 53)) {
      // Modulo 2^32 the u32 bits are the i32 bits: compute on those (a product only while
      // JavaScript's double product is exact).
      const asBits = (v: Val): Val => (v.t.k === 'u32' ? { t: bits(0, U32_MAX), code: `bitcast<i32>(${v.code})` } : v);
      return this.intArith(op, asBits(a), asBits(b), mod);
    }
    const pair = this.exactInts(a, b);
    if (pair === null) return float();
    return this.intArith(op, pair[0], pair[1], mod && pair[0].t.k !== 'u32');
  }

  /**
   * Operands with their integer quotients decided: a quotient beside an integer (or another
   * quotient) is used as an integer (exactQuotient tests that it is one: unroll and jam's
   * `(q - q % 4) / 4` of a quotient q); beside a float it is the f32 quotient.
   */
  private resolveQuotients(a: Val, b: Val): [Val, Val] {
    const intSide = (v: Val): boolean => v.quot !== undefined || v.t.k === 'i32' || v.t.k === 'u32' || v.t.k === 'bits' || (v.t.k === 'lit' && Number.isInteger(v.t.value));
    const resolve = (v: Val, other: Val): Val => (v.quot === undefined ? v : intSide(other) ? this.integral(v) : { t: F32, code: v.code });
    const x = resolve(a, b);
    return [x, resolve(b, x)];
  }

  /**
   * Two integer operands in one exact representation (unifyInts), or, for an i32 that may be
   * negative beside a u32, both as u32 with a test that bails when the i32 is negative (then
   * neither 32-bit type holds both). Null when one is not an integer.
   */
  private exactInts(a: Val, b: Val): [Val, Val] | null {
    const pair = this.unifyInts(a, b);
    if (pair !== null) return pair;
    const isInt = (t: VT): boolean => t.k === 'i32' || t.k === 'u32' || t.k === 'bits' || (t.k === 'lit' && Number.isInteger(t.value));
    if (!isInt(a.t) || !isInt(b.t)) return null;
    if (a.t.k === 'bits' || b.t.k === 'bits') return refuse('an integer that may leave 32 bits mixed with another');
    const fix = (v: Val): Val => {
      if (v.t.k !== 'i32') return v;
      const x = this.bind(v.code, 'i32');
      this.bailIf(`${x} < 0i`);
      return { t: i32(0, v.t.hi), code: x };
    };
    return this.unifyInts(fix(a), fix(b));
  }

  private intArith(op: '+' | '-' | '*', a: Val, b: Val, mod: boolean): Val {
    if (a.t.k === 'lit' || b.t.k === 'lit') {
      // Only in mod context with a u32: a literal beside bits.
      const lv = (v: Val): Val => (v.t.k === 'lit' ? { t: bits(v.t.value, v.t.value), code: i32Literal(v.t.value | 0) } : v);
      return this.intArith(op, lv(a), lv(b), mod);
    }
    if (a.t.k === 'u32' && b.t.k === 'u32') {
      const x = this.bind(a.code, 'u32');
      const y = this.bind(b.code, 'u32');
      // Exact u32 results only; anything else bails.
      if (op === '+') {
        const r = this.bind(`(${x} + ${y})`, 'u32');
        this.bailIf(`${r} < ${x}`);
        return { t: U32, code: r };
      }
      if (op === '-') {
        this.bailIf(`${x} < ${y}`);
        return { t: U32, code: `(${x} - ${y})` };
      }
      const r = this.bind(`(${x} * ${y})`, 'u32');
      this.bailIf(`(${x} != 0u) & ((${r} / ${x}) != ${y})`);
      return { t: U32, code: r };
    }
    const ia = a.t as Extract<VT, { k: 'i32' | 'bits' }>;
    const ib = b.t as Extract<VT, { k: 'i32' | 'bits' }>;
    const corners =
      op === '+'
        ? [ia.lo + ib.lo, ia.hi + ib.hi]
        : op === '-'
          ? [ia.lo - ib.hi, ia.hi - ib.lo]
          : [ia.lo * ib.lo, ia.lo * ib.hi, ia.hi * ib.lo, ia.hi * ib.hi];
    const lo = Math.min(...corners);
    const hi = Math.max(...corners);
    const code = `(${a.code} ${op} ${b.code})`;
    if (fitsI32(lo, hi) && a.t.k === 'i32' && b.t.k === 'i32') return { t: i32(lo, hi), code };
    // Modulo 2^32, while JavaScript's double result is exact (|x| ≤ 2^53), the wrapped i32 is its low bits.
    if (mod && Math.max(Math.abs(lo), Math.abs(hi)) <= 2 ** 53) return { t: bits(lo, hi), code };
    if (a.t.k === 'bits' || b.t.k === 'bits') return refuse('an integer that may leave 32 bits');
    const x = this.bind(a.code, 'i32');
    const y = this.bind(b.code, 'i32');
    const r = this.bind(`(${x} ${op} ${y})`, 'i32');
    const overflow =
      op === '+'
        ? `((${x} ^ ${r}) & (${y} ^ ${r})) < 0i`
        : op === '-'
          ? `((${x} ^ ${y}) & (${x} ^ ${r})) < 0i`
          : `(${x} != 0i) & (((${r} / ${x}) != ${y}) | ((${x} == -1i) & (${y} == ${i32Literal(I32_MIN)})))`;
    this.bailIf(overflow);
    return { t: i32(lo, hi), code: r };
  }

  private divide(lhs: JsExpr, rhs: JsExpr): Val {
    const a = this.numeric(this.expr(lhs));
    if (a.t.k === 'never') return never;
    const b = this.numeric(this.expr(rhs));
    if (b.t.k === 'never') return never;
    return this.divideVals(a, b);
  }

  private divideVals(a0: Val, b0: Val): Val {
    const [a, b] = this.resolveQuotients(a0, b0);
    if (a.t.k === 'lit' && b.t.k === 'lit') return { t: lit(a.t.value / b.t.value), code: '' };
    const af = a.quot !== undefined ? { t: F32, code: a.code } : a;
    const bf = b.quot !== undefined ? { t: F32, code: b.code } : b;
    const float = (): Val => ({ t: F32, code: `(${this.coerce(af, F32)} / ${this.coerce(bf, F32)})` });
    if (af.t.k === 'f32' || bf.t.k === 'f32') return float();
    const pair = this.exactInts(a, b);
    if (pair === null || pair[0].t.k === 'bits' || pair[1].t.k === 'bits') return float();
    // An exact quotient for `| 0`, Math.floor, …; the f32 quotient for anything else.
    const fa = this.bind(this.coerce(pair[0], F32), 'f32');
    const fb = this.bind(this.coerce(pair[1], F32), 'f32');
    return { t: F32, code: `(${fa} / ${fb})`, quot: { a: pair[0], b: pair[1] } };
  }

  /**
   * An integer quotient used as an integer (unroll and jam's `lo + q * 4` with q = `(n - n % 4) /
   * 4`): exact when b divides a, which the kernel tests (bailing otherwise, and for b = 0).
   */
  private exactQuotient(a: Val, b: Val): Val {
    if (a.t.k === 'u32') {
      const q = this.quotient(a, b, 'trunc', false);
      this.bailIf(`${a.code} % ${b.code} != 0u`);
      return q;
    }
    const q = this.quotient(a, b, 'trunc', false);
    if (q.t.k !== 'i32') {
      // −2^31 / −1: not an int32.
      this.bailIf(`(${a.code} == ${i32Literal(I32_MIN)}) & (${b.code} == -1i)`);
    }
    this.bailIf(`${a.code} % ${b.code} != 0i`);
    return { t: q.t.k === 'i32' ? q.t : FULL, code: q.code };
  }

  /** `v` as an integer where a quotient must be one (see exactQuotient); other values as they are. */
  private integral(v: Val): Val {
    return v.quot === undefined ? v : this.exactQuotient(v.quot.a, v.quot.b);
  }

  /** An integer quotient rounded by `how`: exact; b = 0 bails (JavaScript's ±Infinity or NaN) except where `| 0` makes it 0. */
  private quotient(a: Val, b: Val, how: 'trunc' | 'floor' | 'ceil', viaToInt32 = how === 'trunc'): Val {
    const unsigned = a.t.k === 'u32';
    const mayBeZero = b.t.k === 'u32' || (b.t.k === 'i32' && b.t.lo <= 0 && b.t.hi >= 0);
    const x = this.bind(a.code, unsigned ? 'u32' : 'i32');
    const y = this.bind(b.code, unsigned ? 'u32' : 'i32');
    const zero = unsigned ? '0u' : '0i';
    if (mayBeZero && !viaToInt32) this.bailIf(`${y} == ${zero}`);
    if (unsigned) {
      if (how === 'ceil') return { t: U32, code: `(${x} / ${y} + select(0u, 1u, ${x} % ${y} != 0u))` };
      const q = `(${x} / ${y})`;
      if (viaToInt32) return { t: FULL, code: mayBeZero ? `bitcast<i32>(select(${q}, 0u, ${y} == 0u))` : `bitcast<i32>(${q})` };
      return { t: U32, code: q };
    }
    const ia = a.t as IntVT;
    // −2^31 / −1 is 2^31, whose low bits WGSL's i32 division gives (−2^31).
    const overflows = ia.lo === I32_MIN && (b.t as IntVT).lo <= -1 && (b.t as IntVT).hi >= -1;
    let code: string;
    if (how === 'trunc') code = mayBeZero ? `select(${x} / ${y}, 0i, ${y} == 0i)` : `(${x} / ${y})`;
    else if (how === 'floor') {
      this.lib('floordiv_i32');
      code = `js_floordiv_i32(${x}, ${y})`;
    } else {
      this.lib('ceildiv_i32');
      code = `js_ceildiv_i32(${x}, ${y})`;
    }
    const ib = b.t as IntVT;
    if (ia.lo >= 0 && ib.lo > 0) {
      // Both non-negative: the quotient lies between the extreme ratios.
      return { t: i32(Math.floor(ia.lo / ib.hi), Math.ceil(ia.hi / ib.lo)), code };
    }
    if (viaToInt32 || !overflows) return { t: FULL, code };
    return { t: bits(I32_MIN, 2 ** 31), code };
  }

  private remainder(lhs: JsExpr, rhs: JsExpr): Val {
    const a0 = this.numeric(this.expr(lhs));
    if (a0.t.k === 'never') return never;
    const b0 = this.numeric(this.expr(rhs));
    if (b0.t.k === 'never') return never;
    const [a, b] = this.resolveQuotients(a0, b0);
    if (a.t.k === 'lit' && b.t.k === 'lit') return { t: lit(a.t.value % b.t.value), code: '' };
    const pair = a.quot === undefined && b.quot === undefined ? this.exactInts(a, b) : null;
    if (pair === null || pair[0].t.k === 'bits' || pair[1].t.k === 'bits') {
      if ((a.t.k === 'bits' || b.t.k === 'bits') && a.t.k !== 'f32' && b.t.k !== 'f32') return refuse('% of an integer that may leave 32 bits');
      this.lib('fmod_f32');
      const fa = this.coerce(a.quot !== undefined ? { t: F32, code: a.code } : a, F32);
      const fb = this.coerce(b.quot !== undefined ? { t: F32, code: b.code } : b, F32);
      return { t: F32, code: `js_fmod(${fa}, ${fb})` };
    }
    const [x, y] = pair;
    const unsigned = x.t.k === 'u32';
    const mayBeZero = y.t.k === 'u32' || (y.t.k === 'i32' && y.t.lo <= 0 && y.t.hi >= 0);
    const yc = this.bind(y.code, unsigned ? 'u32' : 'i32');
    // x % 0 is NaN in JavaScript (the generator tests for it first): the kernel bails.
    if (mayBeZero) this.bailIf(`${yc} == ${unsigned ? '0u' : '0i'}`);
    if (unsigned) return { t: U32, code: `(${x.code} % ${yc})` };
    // The sign of the dividend, smaller than the divisor in magnitude. (-2^31 % -1 is -0 in
    // JavaScript and 0 in WGSL: equal as integers.) A zero remainder of a negative dividend is -0
    // in JavaScript: equal to 0 for every integer use.
    const ix = x.t as IntVT;
    const iy = y.t as IntVT;
    const m = Math.max(Math.abs(iy.lo), Math.abs(iy.hi)) - 1;
    const lo = ix.lo < 0 ? Math.max(ix.lo, -m) : 0;
    const hi = ix.hi > 0 ? Math.min(ix.hi, m) : 0;
    return { t: i32(lo, hi), code: `(${x.code} % ${yc})` };
  }

  private bitwise(op: '|' | '&' | '^', lhs: JsExpr, rhs: JsExpr): Val {
    const a = this.numeric(this.expr(lhs, true));
    if (a.t.k === 'never') return never;
    const b = this.numeric(this.expr(rhs, true));
    if (b.t.k === 'never') return never;
    if (a.t.k === 'lit' && b.t.k === 'lit') return { t: lit(op === '|' ? a.t.value | b.t.value : op === '&' ? a.t.value & b.t.value : a.t.value ^ b.t.value), code: '' };
    if (op === '|' && b.t.k === 'lit' && b.t.value === 0) {
      // `x | 0`: ToInt32 alone.
      if (a.quot !== undefined) return this.quotient(a.quot.a, a.quot.b, 'trunc');
      if (a.t.k === 'i32') return a;
      if (a.t.k === 'bits' && fitsI32(a.t.lo, a.t.hi)) return { t: i32(a.t.lo, a.t.hi), code: a.code };
      return { t: FULL, code: this.toInt32(a) };
    }
    const code = `(${this.toInt32(a)} ${op} ${this.toInt32(b)})`;
    const nonNeg = (t: VT): number | null => (t.k === 'i32' && t.lo >= 0 ? t.hi : t.k === 'lit' && isI32Value(t.value) && t.value >= 0 ? t.value : null);
    const [na, nb] = [nonNeg(a.t), nonNeg(b.t)];
    if (op === '&' && (na !== null || nb !== null)) return { t: i32(0, Math.min(na ?? I32_MAX, nb ?? I32_MAX)), code };
    if (op !== '&' && na !== null && nb !== null) return { t: i32(0, 2 ** Math.ceil(Math.log2(Math.max(na, nb) + 1)) - 1), code };
    return { t: FULL, code };
  }

  private shift(op: '<<' | '>>' | '>>>', lhs: JsExpr, rhs: JsExpr): Val {
    const a = this.numeric(this.expr(lhs, true));
    if (a.t.k === 'never') return never;
    const b = this.numeric(this.expr(rhs, true));
    if (b.t.k === 'never') return never;
    if (a.t.k === 'lit' && b.t.k === 'lit') {
      const [x, y] = [a.t.value, b.t.value];
      return { t: lit(op === '<<' ? x << y : op === '>>' ? x >> y : x >>> y), code: '' };
    }
    const k = b.t.k === 'lit' ? (b.t.value >>> 0) & 31 : null;
    const count = k !== null ? `${k}u` : `(${this.toUint32(b)} & 31u)`;
    if (op === '>>>') {
      if (k === 0) {
        // `x >>> 0`: ToUint32 alone (a non-negative i32 stays one).
        if (a.t.k === 'i32' && a.t.lo >= 0) return a;
        if (a.t.k === 'bits' && a.t.lo >= 0 && a.t.hi <= I32_MAX) return { t: i32(a.t.lo, a.t.hi), code: a.code };
        return { t: U32, code: this.toUint32(a) };
      }
      const code = `(${this.toUint32(a)} >> ${count})`;
      if (k !== null) return { t: i32(0, 2 ** (32 - k) - 1), code: `bitcast<i32>${code}` };
      return { t: U32, code };
    }
    const x = this.toInt32(a);
    if (op === '<<') return { t: FULL, code: `(${x} << ${count})` };
    if (k !== null && a.t.k === 'i32') return { t: i32(a.t.lo >> k, a.t.hi >> k), code: `(${x} >> ${count})` };
    return { t: FULL, code: `(${x} >> ${count})` };
  }

  // ---- calls ---------------------------------------------------------------------------------

  private call(callee: JsExpr, args: readonly JsExpr[]): Val {
    if (callee.kind !== 'member' || callee.object.kind !== 'id') return refuse('a call of a computed function');
    const owner = callee.object.name;
    const fn = callee.prop;
    if (owner === 'rt') return this.runtimeCall(fn, args);
    if (owner === 'Atomics') return this.atomic(fn, args);
    if (owner === 'Math') return this.math(fn, args);
    return refuse(`a call of ${owner}.${fn}`);
  }

  private runtimeCall(fn: string, args: readonly JsExpr[]): Val {
    if (faultHelpers.has(fn)) {
      // The arguments only describe the fault (JavaScript evaluates them; none can fault).
      this.emit(`atomicStore(&status[0], ${STATUS_FAULT}u);`);
      this.emitEnd('return;');
      return never;
    }
    const operands = (): [Val, Val] | null => {
      if (args.length !== 3) return refuse(`rt.${fn} of ${args.length} arguments`);
      const a = this.numeric(this.expr(args[1]!));
      if (a.t.k === 'never') return null;
      const b = this.numeric(this.expr(args[2]!));
      if (b.t.k === 'never') return null;
      return [a, b];
    };
    const int = (v: Val): string => this.coerce(v, FULL);
    switch (fn) {
      case 'pow_i32': {
        const ab = operands();
        if (ab === null) return never;
        const x = this.bind(int(ab[0]), 'i32');
        const y = this.bind(int(ab[1]), 'i32');
        this.bailIf(`(${y} < 0i) & (${x} == 0i)`, STATUS_FAULT);
        this.lib('pow_i32');
        return { t: FULL, code: `js_pow_i32(${x}, ${y})` };
      }
      case 'pow_u32': {
        const ab = operands();
        if (ab === null) return never;
        this.lib('pow_u32');
        return { t: U32, code: `js_pow_u32(${this.coerce(ab[0], U32)}, ${this.coerce(ab[1], U32)})` };
      }
      case 'pow_bool': {
        const ab = operands();
        if (ab === null) return never;
        return { t: i32(0, 255), code: `select(${int(ab[0])}, 1i, ${int(ab[1])} == 0i)` };
      }
      case 'floordiv_bool':
      case 'mod_bool': {
        const ab = operands();
        if (ab === null) return never;
        const x = this.bind(int(ab[0]), 'i32');
        this.bailIf(`${int(ab[1])} == 0i`, STATUS_FAULT);
        // b is 1: a // 1 is a (a bool's 0 or 1), a % 1 is 0.
        return fn === 'floordiv_bool' ? { t: (ab[0].t.k === 'i32' ? ab[0].t : FULL), code: x } : { t: lit(0), code: '' };
      }
      default:
        return refuse(`rt.${fn}`);
    }
  }

  private atomic(fn: string, args: readonly JsExpr[]): Val {
    const ops: Record<string, string> = { add: 'atomicAdd', sub: 'atomicSub', and: 'atomicAnd', or: 'atomicOr', xor: 'atomicXor', exchange: 'atomicExchange' };
    const target = args[0];
    if (target === undefined) return refuse(`Atomics.${fn} without arguments`);
    const a = this.arrayOf(target);
    if (a.elem !== 'i32' && a.elem !== 'u32' && a.elem !== 'bool') return refuse(`Atomics.${fn} on a ${a.elem} array`);
    if (!a.atomic) return refuse('Atomics on an array not declared atomic');
    const at = args[1] === undefined ? refuse(`Atomics.${fn} without an index`) : this.elementIndex(a, args[1]);
    if (at === null) return never;
    const element = (e: JsExpr | undefined): string | null => {
      if (e === undefined) return refuse(`Atomics.${fn} without a value`);
      const v = this.numeric(this.expr(e, true));
      if (v.t.k === 'never') return null;
      if (a.elem === 'i32') return this.bind(this.toInt32(v), 'i32');
      if (a.elem === 'u32') return this.bind(this.toUint32(v), 'u32');
      return this.bind(`(${this.toUint32(v)} & 255u)`, 'u32');
    };
    const w = a.elem === 'i32' ? 'i32' : 'u32';
    const result = (code: string): Val => {
      if (a.elem === 'i32') return { t: FULL, code };
      if (a.elem === 'u32') return { t: U32, code };
      return { t: i32(0, 255), code: `i32(${code})` };
    };
    const r = this.fresh();
    if (fn === 'load') {
      if (args.length !== 2) return refuse('Atomics.load arity');
      this.emit(`let ${r}: ${w} = atomicLoad(&${a.buffer}[${at}]);`);
      return result(r);
    }
    if (fn === 'compareExchange') {
      if (args.length !== 4) return refuse('Atomics.compareExchange arity');
      const expected = element(args[2]);
      if (expected === null) return never;
      const replacement = element(args[3]);
      if (replacement === null) return never;
      // A strong compare-exchange from the weak one: a spurious failure (old value equal to the
      // expected one, nothing stored) tries again.
      const x = this.fresh();
      this.emit(`var ${r}: ${w};`);
      this.emit('loop {');
      this.emit(`  let ${x} = atomicCompareExchangeWeak(&${a.buffer}[${at}], ${expected}, ${replacement});`);
      this.emit(`  if (${x}.exchanged || ${x}.old_value != ${expected}) { ${r} = ${x}.old_value; break; }`);
      this.emit('}');
      return result(r);
    }
    const op = ops[fn];
    if (op === undefined) return refuse(`Atomics.${fn}`);
    if (args.length !== 3) return refuse(`Atomics.${fn} arity`);
    if (a.elem === 'bool' && (fn === 'add' || fn === 'sub')) return refuse(`Atomics.${fn} on a bool array (8-bit wrapping)`);
    const v = element(args[2]);
    if (v === null) return never;
    this.emit(`let ${r}: ${w} = ${op}(&${a.buffer}[${at}], ${v});`);
    return result(r);
  }

  private math(fn: string, args: readonly JsExpr[]): Val {
    const one = (): Val | null => {
      if (args.length !== 1) return refuse(`Math.${fn} of ${args.length} arguments`);
      const v = this.numeric(this.expr(args[0]!, fn === 'clz32'));
      return v.t.k === 'never' ? null : v;
    };
    const f32Of = (v: Val): string => this.coerce(v.quot !== undefined ? { t: F32, code: v.code } : v, F32);
    const float = (f: (x: string) => string, folded: (x: number) => number): Val => {
      const v = one();
      if (v === null) return never;
      if (v.t.k === 'lit') return { t: lit(folded(v.t.value)), code: '' };
      return { t: F32, code: f(f32Of(v)) };
    };
    switch (fn) {
      case 'fround': {
        const v = one();
        if (v === null) return never;
        if (v.t.k === 'lit') return { t: lit(Math.fround(v.t.value)), code: '' };
        if (v.t.k === 'bits') return refuse('Math.fround of an integer that may leave 32 bits');
        return { t: F32, code: f32Of(v) };
      }
      case 'imul': {
        if (args.length !== 2) return refuse('Math.imul arity');
        const a = this.numeric(this.expr(args[0]!, true));
        if (a.t.k === 'never') return never;
        const b = this.numeric(this.expr(args[1]!, true));
        if (b.t.k === 'never') return never;
        if (a.t.k === 'lit' && b.t.k === 'lit') return { t: lit(Math.imul(a.t.value, b.t.value)), code: '' };
        const code = `(${this.toInt32(a)} * ${this.toInt32(b)})`;
        const ia = a.t.k === 'i32' ? a.t : a.t.k === 'lit' && isI32Value(a.t.value) ? i32(a.t.value, a.t.value) : null;
        const ib = b.t.k === 'i32' ? b.t : b.t.k === 'lit' && isI32Value(b.t.value) ? i32(b.t.value, b.t.value) : null;
        if (ia !== null && ib !== null) {
          const corners = [ia.lo * ib.lo, ia.lo * ib.hi, ia.hi * ib.lo, ia.hi * ib.hi];
          if (fitsI32(Math.min(...corners), Math.max(...corners))) return { t: i32(Math.min(...corners), Math.max(...corners)), code };
        }
        return { t: FULL, code };
      }
      case 'clz32': {
        const v = one();
        if (v === null) return never;
        if (v.t.k === 'lit') return { t: lit(Math.clz32(v.t.value)), code: '' };
        return { t: i32(0, 32), code: `i32(countLeadingZeros(${this.toUint32(v)}))` };
      }
      case 'floor':
      case 'ceil':
      case 'trunc': {
        const arg = args[0];
        if (fn === 'floor' && args.length === 1 && arg?.kind === 'binary' && arg.op === '/') {
          // Floor division of floats (scalar.ts `divide`): exactly JavaScript's, not the f32 quotient's floor.
          const a = this.numeric(this.expr(arg.lhs));
          if (a.t.k === 'never') return never;
          const b = this.numeric(this.expr(arg.rhs));
          if (b.t.k === 'never') return never;
          if (a.quot === undefined && b.quot === undefined && (a.t.k === 'f32' || b.t.k === 'f32')) {
            this.lib('floordiv_f32');
            return { t: F32, code: `js_floordiv_f32(${this.coerce(a, F32)}, ${this.coerce(b, F32)})` };
          }
          return this.rounded(fn, this.divideVals(a, b));
        }
        const v = one();
        if (v === null) return never;
        return this.rounded(fn, v);
      }

      case 'abs': {
        const v = one();
        if (v === null) return never;
        if (v.t.k === 'lit') return { t: lit(Math.abs(v.t.value)), code: '' };
        if (v.t.k === 'u32') return v;
        if (v.t.k === 'i32') {
          const { lo, hi } = v.t;
          const range = lo >= 0 ? [lo, hi] : hi <= 0 ? [-hi, -lo] : [0, Math.max(-lo, hi)];
          if (lo > I32_MIN) return { t: i32(range[0]!, range[1]!), code: `abs(${v.code})` };
          // |−2^31| = 2^31 is no i32: as a u32 it is exact.
          return { t: U32, code: `u32(abs(${v.code}))` };
        }
        if (v.t.k === 'bits') return refuse('Math.abs of an integer that may leave 32 bits');
        return { t: F32, code: `abs(${f32Of(v)})` };
      }
      case 'sqrt':
        this.lib('nan');
        return float((x) => `select(sqrt(${x}), js_nan(), ${x} < 0.0f)`, Math.sqrt);
      case 'exp':
        return float((x) => `exp(${x})`, Math.exp);
      case 'log':
        this.lib('nan');
        return float((x) => `select(log(${x}), js_nan(), ${x} < 0.0f)`, Math.log);
      case 'sin':
        return float((x) => `sin(${x})`, Math.sin);
      case 'cos':
        return float((x) => `cos(${x})`, Math.cos);
      case 'tan':
        return float((x) => `tan(${x})`, Math.tan);
      case 'tanh':
        this.lib('tanh_f32');
        return float((x) => `js_tanh(${x})`, Math.tanh);
      case 'cbrt':
        this.lib('cbrt_f32');
        return float((x) => `js_cbrt(${x})`, Math.cbrt);
      case 'pow': {
        if (args.length !== 2) return refuse('Math.pow arity');
        const a = this.numeric(this.expr(args[0]!));
        if (a.t.k === 'never') return never;
        const b = this.numeric(this.expr(args[1]!));
        if (b.t.k === 'never') return never;
        if (a.t.k === 'lit' && b.t.k === 'lit') return { t: lit(Math.pow(a.t.value, b.t.value)), code: '' };
        this.lib('pow_f32');
        return { t: F32, code: `js_pow(${f32Of(a)}, ${f32Of(b)})` };
      }
      case 'min':
      case 'max':
        return this.minMax(fn, args);
      default:
        return refuse(`Math.${fn}`);
    }
  }

  /** Math.floor / ceil / trunc of a translated value. */
  private rounded(fn: 'floor' | 'ceil' | 'trunc', v: Val): Val {
    if (v.t.k === 'never') return never;
    if (v.quot !== undefined) return this.quotient(v.quot.a, v.quot.b, fn, false);
    if (v.t.k === 'lit') return { t: lit(Math[fn](v.t.value)), code: '' };
    if (v.t.k === 'i32' || v.t.k === 'u32') return v;
    if (v.t.k === 'bits') return refuse(`Math.${fn} of an integer that may leave 32 bits`);
    return { t: F32, code: `${fn}(${this.coerce(v, F32)})` };
  }

  private minMax(fn: 'min' | 'max', args: readonly JsExpr[]): Val {
    if (args.length === 0) return refuse(`Math.${fn}()`);
    const vs: Val[] = [];
    for (const e of args) {
      const v = this.numeric(this.expr(e));
      if (v.t.k === 'never') return never;
      if (v.t.k === 'bits' || v.t.k === 'undef') return refuse(`Math.${fn} of ${v.t.k}`);
      vs.push(v.quot !== undefined ? { t: F32, code: v.code } : v);
    }
    const pick = (x: number, y: number): number => (fn === 'min' ? Math.min(x, y) : Math.max(x, y));
    let acc = vs[0]!;
    for (const v of vs.slice(1)) {
      const a = acc;
      if (a.t.k === 'lit' && v.t.k === 'lit') {
        acc = { t: lit(pick(a.t.value, v.t.value)), code: '' };
        continue;
      }
      const ints = a.t.k !== 'f32' && v.t.k !== 'f32' ? this.unifyInts(a, v) : null;
      if (ints !== null && ints[0].t.k !== 'bits' && ints[1].t.k !== 'bits') {
        const [x, y] = ints;
        if (x.t.k === 'i32' && y.t.k === 'i32') {
          acc = { t: i32(pick(x.t.lo, y.t.lo), pick(x.t.hi, y.t.hi)), code: `${fn}(${x.code}, ${y.code})` };
        } else acc = { t: U32, code: `${fn}(${x.code}, ${y.code})` };
        continue;
      }
      const intLike = (t: VT): boolean => t.k === 'i32' || t.k === 'u32';
      if (intLike(a.t) && intLike(v.t)) return refuse(`Math.${fn} of an int32 that may be negative and a uint32: no 32-bit type holds the result`);
      // Floats (or an int with a non-integer literal): NaN and ±0 as JavaScript orders them.
      this.lib(fn === 'min' ? 'min_f32' : 'max_f32');
      acc = { t: F32, code: `js_${fn}(${this.coerce(a, F32)}, ${this.coerce(v, F32)})` };
    }
    return acc;
  }
}

