// A pass: a named step of the compiler, from one representation to the next (Futhark's pass
// manager, in one type). The name is what an internal error blames: a CompilerBug carries the
// name of the pass that broke an invariant. The driver's stages (parse, lower, …) and
// lowering's finishing steps (src/lower/finish.ts) are passes; src/ir/passes.ts runs a
// pipeline of IR-to-IR passes, verifying the IR after each when asked.

/** A named step from `In` to `Out`. */
export interface Pass<In, Out> {
  readonly name: string;
  run(input: In): Out;
}
