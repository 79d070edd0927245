// Lowering: a parsed `.fuse` module and its entry `def` → one core IR Program.
//
// The entry's parameters get their types from the signature (what the program is run with),
// else from annotations, else by inference: a first run of the partial evaluator over type
// variables solves them from their uses, and a second, concrete run produces the Program.
// Then the finishing passes of ./finish.ts run (`finishingPasses`): dead statements removed,
// scatter destinations copied where the update could be observed, and the provisional names
// replaced by readable SSA names. With `verifyEachPass` the IR verifier runs after the evaluator
// and after each pass (src/ir/passes.ts).

import type { SourceFile, Span } from '../diagnostics/index.js';
import type { Def, ElemAnn, Module, TypeAnn } from '../syntax/ast.js';
import type { Interface, Program, ScalarType, Stmt, Value, VarName } from '../ir/types.js';
import { asScalar, deref, describe, evalBody } from './evaluator.js';
import { finishingPasses, type NameSupply } from './finish.js';
import { runPasses } from '../ir/passes.js';
import { verifyProgram } from '../ir/verify.js';
import { preludeDefs } from './prelude.js';
import { toExpr } from './scalar.js';
import { Infer, elemLeaves, rankOf, showArrayType, showElem, type ETy, type ElemType } from './types.js';
import { LowerState, hintLocal, hintUser, type Frame, type SVal } from './values.js';

export { preludeSource } from './prelude.js';
export type { ElemType } from './types.js';

/** What one entry parameter is run with: an array of known shape, or a scalar (maybe known). */
export type InputSignature =
  | {
      readonly kind: 'array';
      readonly elem: ElemType;
      readonly shape: readonly number[];
      /** The caller donates the input's buffer: an in-place update may write it instead of a copy. */
      readonly donated?: true;
    }
  | { readonly kind: 'scalar'; readonly elem: ScalarType; readonly value?: number };

export interface LowerOptions {
  /** The entry `def`: else `main`, else the last one. */
  readonly entry?: string;
  readonly signature?: Readonly<Record<string, InputSignature>>;
  /** Verify the IR after the evaluator and after each finishing pass (tests; see src/ir/passes.ts). */
  readonly verifyEachPass?: boolean;
}

/** An entry parameter's type as lowering sees it (annotation, signature or inference). */
export type EntryParamType =
  | { readonly kind: 'array'; readonly elem: ElemType; readonly rank: number; readonly shape: readonly number[] | null }
  | { readonly kind: 'scalar'; readonly elem: ScalarType; readonly value: number | null };

export function lowerModule(module: Module, file: SourceFile, options: LowerOptions = {}): Program {
  const { def, defs } = entryOf(module, file, options);
  const declared = declaredTypes(def, file, options, defs);
  const types = declared.every((t) => t !== null)
    ? (declared as EntryParamType[])
    : inferTypes(def, file, defs, declared);
  return lowerEntry(def, file, defs, types, options.verifyEachPass ?? false, donatedParams(options));
}

/** The entry parameters' types: declared ones as given, the others inferred from their uses. */
export function inferEntryTypes(module: Module, file: SourceFile, options: LowerOptions = {}): Readonly<Record<string, EntryParamType>> {
  const { def, defs } = entryOf(module, file, options);
  const declared = declaredTypes(def, file, options, defs);
  const types = declared.every((t) => t !== null) ? (declared as EntryParamType[]) : inferTypes(def, file, defs, declared);
  return Object.fromEntries(def.params.map((p, i) => [p.name, types[i]!]));
}

/** The entry `def`: `entry`, else `main`, else the last one (E214 when there is none, E218 for duplicates). */
export function entryDef(module: Module, file: SourceFile, entry?: string): Def {
  return entryOf(module, file, { entry }).def;
}

function entryOf(module: Module, file: SourceFile, options: LowerOptions): { def: Def; defs: ReadonlyMap<string, Def> } {
  const st = new LowerState(file, new Map(), preludeDefs, new Infer(), [], []);
  const defs = new Map<string, Def>();
  for (const d of module.defs) {
    if (defs.has(d.name)) throw st.error('E218', `'${d.name}' is defined more than once`, d.nameSpan);
    defs.set(d.name, d);
  }
  const name = options.entry ?? (defs.has('main') ? 'main' : module.defs[module.defs.length - 1]?.name);
  const def = name === undefined ? undefined : defs.get(name);
  if (def === undefined) {
    throw st.error('E214', name === undefined ? 'the file defines no function to run' : `there is no def named '${name}' to use as the entry`, module.span);
  }
  return { def, defs };
}

function elemOfAnn(a: ElemAnn): ElemType {
  return a.kind === 'scalar' ? a.name : a.elems.map(elemOfAnn);
}

function showType(t: EntryParamType): string {
  return t.kind === 'scalar' ? t.elem : showArrayType(showElem(t.elem), t.rank);
}

function typeOfAnn(a: TypeAnn): EntryParamType | string {
  if (a.kind === 'array') return { kind: 'array', elem: elemOfAnn(a.elem), rank: a.dims.length, shape: null };
  const elem = elemOfAnn(a.elem);
  if (typeof elem !== 'string') return 'a tuple-typed scalar parameter (use an array of tuples)';
  return { kind: 'scalar', elem, value: null };
}

function typeOfSignature(s: InputSignature): EntryParamType {
  return s.kind === 'array'
    ? { kind: 'array', elem: s.elem, rank: s.shape.length, shape: s.shape }
    : { kind: 'scalar', elem: s.elem, value: s.value ?? null };
}

/** Types from the signature and annotations (checked against each other), null where neither. */
function declaredTypes(def: Def, file: SourceFile, options: LowerOptions, defs: ReadonlyMap<string, Def>): (EntryParamType | null)[] {
  const st = new LowerState(file, defs, preludeDefs, new Infer(), [], []);
  const sig = options.signature ?? {};
  for (const name of Object.keys(sig)) {
    if (!def.params.some((p) => p.name === name)) {
      throw st.error('E307', `the inputs give a value for '${name}', which is not a parameter of '${def.name}'`, def.nameSpan);
    }
  }
  return def.params.map((p) => {
    // Own properties only: a parameter may be named `constructor` or `toString`.
    const given = Object.hasOwn(sig, p.name) ? sig[p.name] : undefined;
    const fromSig = given === undefined ? null : typeOfSignature(given);
    const fromAnn = p.type === null ? null : typeOfAnn(p.type);
    if (typeof fromAnn === 'string') throw st.error('E307', `parameter '${p.name}': ${fromAnn}`, p.span);
    if (fromSig !== null && fromAnn !== null && showType(fromSig) !== showType(fromAnn)) {
      throw st.error('E307', `parameter '${p.name}' is declared ${showType(fromAnn)} but the input is ${showType(fromSig)}`, p.span);
    }
    return fromSig ?? fromAnn;
  });
}

function initialFrame(st: LowerState, env: ReadonlyMap<string, SVal>, stmts: Stmt[]): Frame {
  return { st, env, inPrelude: false, userSpan: null, em: { kind: 'array', stmts }, depth: 0, conditions: [] };
}

/** The inference run: unknown parameters resolve on first use; what is left takes defaults. */
function inferTypes(def: Def, file: SourceFile, defs: ReadonlyMap<string, Def>, declared: readonly (EntryParamType | null)[]): EntryParamType[] {
  const infer = new Infer();
  const names = def.params.map((p) => p.name);
  const st = new LowerState(file, defs, preludeDefs, infer, [], names, true);
  let env = new Map<string, SVal>();
  declared.forEach((t, i) => {
    const v: SVal = t === null ? { kind: 'param', index: i } : entryValue(names[i]!, t).value;
    st.paramValues.push(v);
    env.set(names[i]!, v);
  });
  const fr = initialFrame(st, env, []);
  evalBody(fr, def.body);
  return declared.map((t, i): EntryParamType => {
    if (t !== null) return t;
    const v = st.paramValues[i]!;
    if (v.kind === 'array') {
      return { kind: 'array', elem: infer.defaultElem(v.elem), rank: infer.concreteRank(v.rank), shape: null };
    }
    if (v.kind === 'dyn') return { kind: 'scalar', elem: infer.defaultScalar(v.ty), value: null };
    return { kind: 'array', elem: 'f64', rank: 1, shape: null };
  });
}

/** The abstract value an entry parameter starts as, and its IR components. */
function entryValue(name: string, t: EntryParamType): { value: SVal; components: Value[] } {
  if (t.kind === 'scalar') {
    const value: SVal = t.value !== null
      ? { kind: 'static', ty: t.elem, value: t.value, weak: false }
      : { kind: 'dyn', expr: { kind: 'var', name, type: t.elem }, ty: t.elem };
    return { value, components: [{ kind: 'scalar', name, elem: t.elem }] };
  }
  const leaves = elemLeaves(t.elem);
  const comps = leaves.map((_, i) => (leaves.length === 1 ? name : `${name}.${i}`));
  const elem: ETy = t.elem;
  return {
    value: { kind: 'array', comps, elem, rank: rankOf(t.rank), shape: t.shape },
    components: leaves.map((e, i) => ({ kind: 'array', name: comps[i]!, elem: e, rank: t.rank })),
  };
}

/** The entry parameters the signature donates (arrays only: a scalar has no buffer). */
function donatedParams(options: LowerOptions): ReadonlySet<string> {
  return new Set(Object.entries(options.signature ?? {}).flatMap(([name, sig]) => (sig.kind === 'array' && sig.donated === true ? [name] : [])));
}

function lowerEntry(
  def: Def,
  file: SourceFile,
  defs: ReadonlyMap<string, Def>,
  types: readonly EntryParamType[],
  verifyEachPass: boolean,
  donated: ReadonlySet<string> = new Set(),
): Program {
  const st = new LowerState(file, defs, preludeDefs, new Infer(), [], def.params.map((p) => p.name));
  const env = new Map<string, SVal>();
  const params: Interface[] = def.params.map((p, i) => {
    const { value, components } = entryValue(p.name, types[i]!);
    env.set(p.name, value);
    st.paramValues.push(value);
    return { name: p.name, components, span: p.span, ...(donated.has(p.name) && components.some((c) => c.kind === 'array') ? { donated: true as const } : {}) };
  });
  const stmts: Stmt[] = [];
  const fr = initialFrame(st, env, stmts);
  const r = evalBody(fr, def.body);
  if (r.ret === null) throw st.error('E210', `'${def.name}' ends without a 'return'`, def.span);
  const retStmt = findReturn(def);
  const results = resultInterfaces(fr, r.ret, retStmt);
  const raw: Program = {
    name: def.name,
    params,
    body: { params: params.flatMap((i) => i.components), stmts, results: results.flatMap((i) => i.components.map((c) => c.name)) },
    results,
  };
  // The evaluator's output keeps every promise of the IR but unobserved in-place updates.
  if (verifyEachPass) verifyProgram(raw, 'lower', { inPlaceUpdates: false });
  const names: NameSupply = { fresh: (h) => st.fresh(h, hintLocal), nodeId: () => st.nodeId() };
  return runPasses(raw, finishingPasses(names, () => st.allVars()), { verifyEachPass });
}

function findReturn(def: Def): { span: Span; names: readonly (string | null)[] | null; name: string | null } {
  const last = [...def.body].reverse().find((s) => s.kind === 'return');
  if (last === undefined || last.kind !== 'return') return { span: def.span, names: null, name: null };
  const v = last.value;
  const nameOf = (e: typeof v): string | null => (e.kind === 'name' ? e.name : null);
  return { span: last.value.span, names: v.kind === 'tuple' ? v.elems.map(nameOf) : null, name: nameOf(v) };
}

function resultInterfaces(fr: Frame, ret: SVal, where: ReturnType<typeof findReturn>): Interface[] {
  const value = deref(fr, ret, where.span);
  const parts: { name: string; value: SVal }[] =
    value.kind === 'tuple'
      ? value.elems.map((v, i) => ({ name: where.names?.[i] ?? `result${i}`, value: v }))
      : [{ name: where.name ?? 'result', value }];
  return parts.map((p) => ({ name: p.name, components: resultComponents(fr, p.value, p.name, where.span), span: where.span }));
}

function resultComponents(fr: Frame, v0: SVal, name: string, span: Span): Value[] {
  const v = deref(fr, v0, span);
  switch (v.kind) {
    case 'array': {
      const leaves = v.comps.length;
      v.comps.forEach((c, i) => fr.st.hint(c, leaves === 1 ? name : `${name}.${i}`, hintLocal));
      const types = fr.st.infer.defaultElem(v.elem);
      const scalars = typeof types === 'string' ? [types] : elemLeaves(types);
      const rank = fr.st.infer.peekRank(v.rank);
      return v.comps.map((c, i) => ({ kind: 'array', name: c, elem: scalars[i] ?? 'f64', rank }));
    }
    case 'tuple':
      return v.elems.flatMap((e, i) => resultComponents(fr, e, `${name}.${i}`, span));
    case 'static':
    case 'dyn': {
      const s = asScalar(fr, v, span, 'a result');
      const elem = fr.st.infer.defaultScalar(s.ty);
      if (s.kind === 'dyn' && s.expr.kind === 'var') return [{ kind: 'scalar', name: s.expr.name, elem }];
      const fresh: VarName = fr.st.fresh(name, hintUser);
      if (fr.em.kind === 'array') fr.em.stmts.push({ kind: 'scalar', name: fresh, expr: toExpr(fr, s, span), span });
      return [{ kind: 'scalar', name: fresh, elem }];
    }
    case 'fn':
      throw fr.st.error('E208', 'the entry returns a function; it must return arrays or scalars', span);
    case 'param':
    case 'undef':
      throw fr.st.error('E208', `the entry returns ${describe(fr, v)}`, span);
    default:
      return v satisfies never;
  }
}
