// The prelude: derived combinators written in .fuse (prelude/prelude.fuse, shipped in the npm
// package), read and parsed once when this module loads. Its definitions are inlined like the
// user's own; spans inside it are never shown to users (lowering reports the user's call).

import { readFileSync } from 'node:fs';
import { SourceFile } from '../diagnostics/index.js';
import { parseModule, type Def } from '../syntax/index.js';

/** Works from src/lower (tests) and dist/lower (the package): both sit two levels below the root. */
const preludeUrl = new URL('../../prelude/prelude.fuse', import.meta.url);

const preludeText: string = readFileSync(preludeUrl, 'utf8');

/** The prelude's source text, for tools that show or re-parse it. */
export function preludeSource(): string {
  return preludeText;
}

export const preludeFile = new SourceFile('<prelude>', preludeText);

/** The prelude's definitions by name (parsed at module load; a syntax error there is our bug). */
export const preludeDefs: ReadonlyMap<string, Def> = new Map(parseModule(preludeFile).defs.map((d) => [d.name, d]));
