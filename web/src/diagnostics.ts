// Diagnostics for the page: a UserError's diagnostics with their place in the editor's text.
// A span is a pair of UTF-16 offsets (src/diagnostics), the unit CodeMirror's positions count
// in too, so a span is a CodeMirror range as it is. Only spans into the editor's own text are
// placed: a diagnostic may point into the prelude, or nowhere (a bad option).

import { UserError, type Diagnostic } from '../../src/index.js';

export interface PlacedRange {
  /** Offsets into the editor's text, `from < to` (an empty span is widened to one character where there is one). */
  readonly from: number;
  readonly to: number;
  /** 1-based line and column of `from`. */
  readonly line: number;
  readonly col: number;
}

export interface PageDiagnostic {
  readonly code: string;
  readonly message: string;
  readonly notes: readonly string[];
  /** Where it is in the editor; undefined for a diagnostic without a place there. */
  readonly range?: PlacedRange;
}

/** 1-based line and column of an offset into `text`. */
export function lineColOf(text: string, offset: number): { readonly line: number; readonly col: number } {
  let line = 1;
  let lineStart = 0;
  for (let k = text.indexOf('\n'); k !== -1 && k < offset; k = text.indexOf('\n', k + 1)) {
    line++;
    lineStart = k + 1;
  }
  return { line, col: offset - lineStart + 1 };
}

function placed(d: Diagnostic, source: string): PlacedRange | undefined {
  if (d.span === undefined || d.file === undefined || d.file.text !== source) return undefined;
  const from = Math.min(Math.max(d.span.start, 0), source.length);
  let to = Math.min(Math.max(d.span.end, from), source.length);
  if (to === from && to < source.length && source[to] !== '\n') to++;
  return { from, to, ...lineColOf(source, from) };
}

/** The diagnostics of an error thrown for `source`: a UserError's own, else one without a place. */
export function diagnosticsOf(error: unknown, source: string): PageDiagnostic[] {
  if (error instanceof UserError) {
    return error.diagnostics.map((d) => {
      const range = placed(d, source);
      return { code: d.code, message: d.message, notes: d.notes ?? [], ...(range === undefined ? {} : { range }) };
    });
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return [{ code: 'error', message, notes: [] }];
}

/** One line for the list under the editor: `file:line:col: error[CODE]: message`. */
export function diagnosticLine(d: PageDiagnostic, fileName: string): string {
  const where = d.range === undefined ? fileName : `${fileName}:${d.range.line}:${d.range.col}`;
  const code = d.code === 'error' ? 'error' : `error[${d.code}]`;
  return `${where}: ${code}: ${d.message}`;
}
