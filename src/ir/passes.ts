// Pipelines of IR-to-IR passes (lowering's finishing steps: src/lower/finish.ts). A pipeline is
// a plain list of named passes run in order; with `verifyEachPass` the IR verifier checks the
// program after each one, so a pass that breaks an invariant is named in the CompilerBug
// instead of surfacing later as a miscompile. Tests turn it on; the driver verifies once, after
// the whole of lowering.

import type { Pass } from '../util/pass.js';
import type { Program } from './types.js';
import { verifyProgram, type VerifyOptions } from './verify.js';

/** A pass from core IR to core IR. */
export interface ProgramPass extends Pass<Program, Program> {
  /** The promises its output keeps, when not all of them (see VerifyOptions). */
  readonly keeps?: VerifyOptions;
}

export interface PipelineOptions {
  /** Run the IR verifier after every pass; a failure is a CompilerBug naming the pass. */
  readonly verifyEachPass?: boolean;
}

/** Runs the passes in order on `program`. */
export function runPasses(program: Program, passes: readonly ProgramPass[], options: PipelineOptions = {}): Program {
  let current = program;
  for (const pass of passes) {
    current = pass.run(current);
    if (options.verifyEachPass === true) verifyProgram(current, pass.name, pass.keeps);
  }
  return current;
}
