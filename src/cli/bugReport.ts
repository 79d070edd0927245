// What the CLI prints for a CompilerBug: its message and, when the bug carries a file that
// helps reproduce it (the ILP model of an infeasible plan), that file written to a fresh
// temporary directory and named. The core never writes files; this is where they land.

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CompilerBug } from '../diagnostics/index.js';

/** The report of a bug, writing its attachment under the system's temporary directory. */
export function bugReport(bug: CompilerBug, temporaryRoot: string = tmpdir()): string {
  const attachment = bug.attachment;
  if (attachment === undefined) return bug.message;
  try {
    const file = join(mkdtempSync(join(temporaryRoot, 'arrayfuse-')), attachment.fileName);
    writeFileSync(file, attachment.text);
    return `${bug.message}\n  note: ${attachment.fileName} is in ${file}`;
  } catch (e) {
    return `${bug.message}\n  note: ${attachment.fileName} could not be written: ${e instanceof Error ? e.message : String(e)}`;
  }
}
