// Array sizes the memory planner can count on at compile time: src/graph/sizes.ts `staticSizes`,
// plus what a `while` loop keeps invariant.
//
// `staticSizes` (which the planner's costs read, so it must not change) leaves every `while`
// parameter and output unknown, since a body may change the shapes it carries. Most loops do
// not (MG's V-cycle, a time-step loop): assume each carried array keeps its initial shape,
// evaluate the loop's blocks under that assumption, and keep the assumption for exactly the
// carried positions whose body result then has the initial shape again. By induction over the
// iterations those positions really keep their shape (the body is a function of the shapes it
// is given and of scalars that do not change between iterations: carried scalars stay unknown),
// so everything computed from them inside the loop and after it is static as well. A position
// that fails is dropped and the loop evaluated again (the set only shrinks, so this ends).

import { evaluateStatic, staticSizes, type EntrySizes } from '../graph/sizes.js';
import { outputShapeOf } from '../ir/rules.js';
import type { Block, Expr, Program, Shape, VarName, WhileNode } from '../ir/types.js';

/**
 * Shapes of the arrays whose shape is known at compile time, `while` loops that keep the shapes
 * they carry included. A superset of `staticSizes(program, entry)`, equal to it on every array
 * `staticSizes` knows.
 */
export function memorySizes(program: Program, entry: EntrySizes): ReadonlyMap<VarName, Shape> {
  // Own entries only: a parameter named `constructor` must not find Object's (`{}` is the default).
  const own = Object.assign(Object.create(null) as Record<string, Shape | number>, entry) as EntrySizes;
  const shapes = new Map<VarName, Shape>();
  const scalars = new Map<VarName, number>();
  for (const p of program.params) {
    for (const comp of p.components) {
      const given = own[comp.name] ?? own[p.name];
      if (given === undefined) continue;
      if (comp.kind === 'array' && Array.isArray(given)) shapes.set(comp.name, given);
      if (comp.kind === 'scalar' && typeof given === 'number') scalars.set(comp.name, given);
    }
  }
  visitBlock(program.body, shapes, scalars);
  // staticSizes is the planner's own view: where both know a shape they must agree.
  for (const [name, shape] of staticSizes(program, own)) shapes.set(name, shape);
  return shapes;
}

function evalExpr(e: Expr, shapes: ReadonlyMap<VarName, Shape>, scalars: ReadonlyMap<VarName, number>): number | undefined {
  try {
    return evaluateStatic(e, shapes, scalars);
  } catch {
    return undefined; // a division by zero: not known statically
  }
}

const sameShape = (a: Shape | undefined, b: Shape | undefined): boolean => a !== undefined && b !== undefined && a.join() === b.join();

function visitBlock(b: Block, shapes: Map<VarName, Shape>, scalars: Map<VarName, number>): void {
  for (const s of b.stmts) {
    switch (s.kind) {
      case 'scalar': {
        const value = evalExpr(s.expr, shapes, scalars);
        if (value !== undefined) scalars.set(s.name, value);
        continue;
      }
      case 'if':
        visitBlock(s.then, shapes, scalars);
        visitBlock(s.else, shapes, scalars);
        s.outs.forEach((o, k) => {
          const a = shapes.get(s.then.results[k]!);
          if (o.kind === 'array' && sameShape(a, shapes.get(s.else.results[k]!))) shapes.set(o.name, a!);
        });
        continue;
      case 'while':
        visitWhile(s, shapes, scalars);
        continue;
      default: {
        const rule = outputShapeOf(s);
        let shape: Shape | undefined;
        if (rule.kind === 'sizes') {
          const dims = rule.sizes.map((e) => evalExpr(e, shapes, scalars));
          shape = dims.every((d) => d !== undefined) ? (dims as number[]) : undefined;
        } else {
          const input = rule.like === undefined ? undefined : shapes.get(rule.like);
          shape = rule.dropInnermost ? input?.slice(0, -1) : input;
        }
        if (shape !== undefined) for (const o of s.outs) shapes.set(o.name, shape);
      }
    }
  }
}

/** A loop under the assumption that the carried positions `kept` keep their initial shapes, until the assumption holds. */
function visitWhile(w: WhileNode, shapes: Map<VarName, Shape>, scalars: Map<VarName, number>): void {
  let kept = w.outs.flatMap((o, k) => (o.kind === 'array' && shapes.has(w.init[k]!) ? [k] : []));
  for (;;) {
    const trialShapes = new Map(shapes);
    const trialScalars = new Map(scalars);
    for (const k of kept) {
      const initial = shapes.get(w.init[k]!)!;
      trialShapes.set(w.cond.params[k]!.name, initial);
      trialShapes.set(w.body.params[k]!.name, initial);
    }
    visitBlock(w.cond, trialShapes, trialScalars);
    visitBlock(w.body, trialShapes, trialScalars);
    const holds = kept.filter((k) => sameShape(trialShapes.get(w.body.results[k]!), shapes.get(w.init[k]!)));
    if (holds.length === kept.length) {
      for (const [name, shape] of trialShapes) shapes.set(name, shape);
      // Scalars of the loop's blocks that depend on no carried scalar are the same every iteration.
      for (const [name, value] of trialScalars) scalars.set(name, value);
      for (const k of kept) shapes.set(w.outs[k]!.name, shapes.get(w.init[k]!)!);
      return;
    }
    kept = holds;
  }
}
