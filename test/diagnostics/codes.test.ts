// The registry of diagnostic codes and docs/ERRORS.md agree: the "Every code" table lists
// exactly the registered codes, in order, with the registered titles. The registry's key type
// is what `userError` and `Diagnostic.code` accept, so an unregistered code does not compile
// (checked by `npm run typecheck`, which covers this file's @ts-expect-error).

import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { diagnosticCodes, userError, type DiagnosticCode } from '../../src/diagnostics/index.js';

const errorsDoc = readFileSync(new URL('../../docs/ERRORS.md', import.meta.url), 'utf8');

/** The rows `| E123 | title |` of the "Every code" section. */
function documentedCodes(doc: string): [string, string][] {
  const section = doc.split(/^## Every code$/m)[1];
  if (section === undefined) throw new Error('docs/ERRORS.md has no "## Every code" section');
  return [...section.matchAll(/^\| (E\d{3}) \| (.*) \|$/gm)].map((m) => [m[1]!, m[2]!]);
}

describe('diagnostic code registry', () => {
  it('docs/ERRORS.md lists exactly the registered codes with their titles', () => {
    expect(documentedCodes(errorsDoc)).toEqual(Object.entries(diagnosticCodes));
  });

  it('codes are E and three digits, in increasing order, with non-empty titles', () => {
    const codes = Object.keys(diagnosticCodes);
    for (const code of codes) expect(code).toMatch(/^E\d{3}$/);
    expect([...codes].sort()).toEqual(codes);
    for (const title of Object.values(diagnosticCodes)) expect(title.trim()).not.toBe('');
  });

  it('accepts registered codes only', () => {
    const known: DiagnosticCode = 'E201';
    expect(userError(known, 'unknown name').code).toBe('E201');
    // @ts-expect-error E999 is not a registered code
    const unknown: DiagnosticCode = 'E999';
    expect(unknown in diagnosticCodes).toBe(false);
  });
});
