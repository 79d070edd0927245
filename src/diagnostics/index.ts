// Diagnostics: source files, spans, user errors with stable codes, and compiler bugs.
//
// Locations are cheap: a Span is two offsets into the source text (UTF-16 code units, the
// unit JavaScript strings index by); line and column are computed only when a diagnostic is
// printed. Every error the user can cause is a UserError carrying one or more Diagnostics; an
// error that is our fault is a CompilerBug naming the pass that found it.

import type { DiagnosticCode } from './codes.js';

export interface Span {
  readonly start: number;
  readonly end: number;
}

export const noSpan: Span = { start: 0, end: 0 };

export function joinSpans(a: Span, b: Span): Span {
  return { start: Math.min(a.start, b.start), end: Math.max(a.end, b.end) };
}

/** A named source text with a lazily built line index. */
export class SourceFile {
  private lineStarts: number[] | undefined;

  constructor(
    readonly name: string,
    readonly text: string,
  ) {}

  /** 1-based line and column of an offset. */
  lineCol(offset: number): { line: number; col: number } {
    const starts = this.starts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, col: offset - starts[lo]! + 1 };
  }

  /** The text of a 1-based line, without its line break. */
  lineText(line: number): string {
    const starts = this.starts();
    const start = starts[line - 1] ?? this.text.length;
    const next = starts[line] ?? this.text.length + 1;
    return this.text.slice(start, next - 1).replace(/\r$/, '');
  }

  private starts(): number[] {
    if (this.lineStarts === undefined) {
      const starts = [0];
      for (let i = 0; i < this.text.length; i++) if (this.text.charCodeAt(i) === 10) starts.push(i + 1);
      this.lineStarts = starts;
    }
    return this.lineStarts;
  }
}

/**
 * Stable diagnostic codes, by stage: E1xx syntax, E2xx names and lowering, E3xx types and
 * shapes, E4xx run-time errors, E5xx input/output files, E6xx planner and options. Only codes
 * registered in ./codes.ts exist; docs/ERRORS.md lists them with their titles.
 */
export { diagnosticCodes, type DiagnosticCode } from './codes.js';

export interface Diagnostic {
  readonly code: DiagnosticCode;
  readonly message: string;
  /** The source the span points into; absent for errors without a location (a bad file name). */
  readonly file?: SourceFile;
  readonly span?: Span;
  /** Extra lines printed after the caret, e.g. "note: the shapes were [3] and [4]". */
  readonly notes?: readonly string[];
}

/** An error the user caused: bad syntax, bad types, an index out of range, a bad input file. */
export class UserError extends Error {
  readonly diagnostics: readonly Diagnostic[];

  constructor(diagnostics: Diagnostic | readonly Diagnostic[]) {
    const list = Array.isArray(diagnostics) ? (diagnostics as readonly Diagnostic[]) : [diagnostics as Diagnostic];
    super(list.map((d) => `error[${d.code}]: ${d.message}`).join('\n'));
    this.name = 'UserError';
    this.diagnostics = list;
  }

  /** The first diagnostic's code (most errors carry exactly one). */
  get code(): DiagnosticCode {
    return this.diagnostics[0]!.code;
  }
}

/**
 * A file that helps reproduce a bug, e.g. the ILP model of an infeasible plan. The core writes
 * no files (it runs in a browser too): a CompilerBug carries the text, the CLI writes it out and
 * says where.
 */
export interface BugAttachment {
  /** A file name for it, e.g. `model.lp`. */
  readonly fileName: string;
  readonly text: string;
}

/** Our fault, never the user's: an invariant broke. Says which pass found it. */
export class CompilerBug extends Error {
  constructor(
    readonly pass: string,
    message: string,
    readonly attachment?: BugAttachment,
  ) {
    super(`internal compiler error in ${pass}: ${message} (this is a bug in arrayfuse; please report it)`);
    this.name = 'CompilerBug';
  }
}

/** Shorthand for a single-diagnostic user error. */
export function userError(
  code: DiagnosticCode,
  message: string,
  where?: { file?: SourceFile; span?: Span },
  notes?: readonly string[],
): UserError {
  return new UserError({ code, message, file: where?.file, span: where?.span, notes });
}

/**
 * Renders a diagnostic as `file:line:col: error[CODE]: message`, then the source line and a
 * caret under the span, then any notes.
 */
export function renderDiagnostic(d: Diagnostic): string {
  const lines: string[] = [];
  if (d.file !== undefined && d.span !== undefined) {
    const { line, col } = d.file.lineCol(d.span.start);
    lines.push(`${d.file.name}:${line}:${col}: error[${d.code}]: ${d.message}`);
    const text = d.file.lineText(line);
    const endOnLine = Math.min(d.span.end, d.file.text.length);
    const endPos = d.file.lineCol(Math.max(endOnLine, d.span.start));
    const width = endPos.line === line ? Math.max(1, endPos.col - col) : Math.max(1, text.length - col + 1);
    const shown = sourceWindow(text, col - 1, width);
    const gutter = `${line} | `;
    lines.push(gutter + shown.text);
    lines.push(' '.repeat(gutter.length + shown.caret) + '^'.repeat(shown.width));
  } else if (d.file !== undefined) {
    lines.push(`${d.file.name}: error[${d.code}]: ${d.message}`);
  } else {
    lines.push(`error[${d.code}]: ${d.message}`);
  }
  for (const note of d.notes ?? []) lines.push(`  note: ${note}`);
  return lines.join('\n');
}

/** Diagnostics one error reports at most (a broken file can have thousands of broken lines). */
export const maxReportedDiagnostics = 50;

/** The first maxReportedDiagnostics of a list; the last one shown says how many were left out. */
export function capDiagnostics(list: readonly Diagnostic[]): readonly Diagnostic[] {
  if (list.length <= maxReportedDiagnostics) return list;
  const shown = list.slice(0, maxReportedDiagnostics);
  const last = shown[shown.length - 1]!;
  const more = list.length - shown.length;
  shown[shown.length - 1] = { ...last, notes: [...(last.notes ?? []), `${more} more error${more === 1 ? '' : 's'} not shown`] };
  return shown;
}

/** Characters of a source line a diagnostic echoes; longer lines are cut around the caret. */
export const maxEchoedLine = 160;

/**
 * The part of a source line to echo and where the caret goes in it: the whole line when it is
 * short, else a window of maxEchoedLine characters starting a little before the caret, with `…`
 * where it was cut (an 800 KB line is not printed, twice, for one error).
 */
export function sourceWindow(text: string, start: number, width: number): { text: string; caret: number; width: number } {
  if (text.length <= maxEchoedLine) return { text, caret: start, width };
  const from = Math.max(0, Math.min(start - 40, text.length - maxEchoedLine));
  const to = Math.min(text.length, from + maxEchoedLine);
  const head = from > 0 ? '…' : '';
  const tail = to < text.length ? '…' : '';
  const caret = start - from + head.length;
  return { text: head + text.slice(from, to) + tail, caret, width: Math.max(1, Math.min(width, to - start + tail.length)) };
}

/** Line and column of a diagnostic, for tests: "3:7", or "" without a location. */
export function diagnosticPosition(d: Diagnostic): string {
  if (d.file === undefined || d.span === undefined) return '';
  const { line, col } = d.file.lineCol(d.span.start);
  return `${line}:${col}`;
}
