// The prelude: derived combinators written in .fuse (prelude/prelude.fuse), parsed once when
// this module loads. Its text is embedded at build time (scripts/embed-prelude.mjs writes
// prelude.generated.ts), so the compiler reads no file and runs in a browser as in Node. Its
// definitions are inlined like the user's own; spans inside it are never shown to users
// (lowering reports the user's call).

import { SourceFile } from '../diagnostics/index.js';
import { parseModule, type Def } from '../syntax/index.js';
import { preludeText } from './prelude.generated.js';

/** The prelude's source text, for tools that show or re-parse it. */
export function preludeSource(): string {
  return preludeText;
}

export const preludeFile = new SourceFile('<prelude>', preludeText);

/** The prelude's definitions by name (parsed at module load; a syntax error there is our bug). */
export const preludeDefs: ReadonlyMap<string, Def> = new Map(parseModule(preludeFile).defs.map((d) => [d.name, d]));
