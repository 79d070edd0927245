// The program editor: CodeMirror 6 with line numbers, history and search (basicSetup), the
// `.fuse` highlighter, and the compiler's diagnostics as lint markers (an underline at the
// span, a marker in the gutter of its line, the message on hover).

import { basicSetup, EditorView } from 'codemirror';
import { keymap } from '@codemirror/view';
import { EditorSelection } from '@codemirror/state';
import { lintGutter, setDiagnostics, type Diagnostic as LintDiagnostic } from '@codemirror/lint';
import { fuseLanguage } from './fuseLanguage.js';
import type { PageDiagnostic } from './diagnostics.js';

export interface FuseEditor {
  text(): string;
  /** Replaces the whole text (a new example); clears the markers. */
  setText(text: string): void;
  /** Marks the placed diagnostics; the others are only listed by the page. */
  showDiagnostics(diagnostics: readonly PageDiagnostic[]): void;
  /** Puts the cursor on a range and scrolls to it (a click on a listed diagnostic). */
  reveal(from: number, to: number): void;
}

function lintOf(d: PageDiagnostic): LintDiagnostic | undefined {
  if (d.range === undefined) return undefined;
  const message = [`error[${d.code}]: ${d.message}`, ...d.notes].join('\n');
  return { from: d.range.from, to: d.range.to, severity: 'error', message, source: 'arrayfuse' };
}

/** The editor under `parent`; `onEdit` after every change of the text, `onRun` on Ctrl+Enter (Cmd+Enter). */
export function createEditor(parent: HTMLElement, text: string, onEdit: () => void, onRun: () => void): FuseEditor {
  const view = new EditorView({
    parent,
    doc: text,
    extensions: [
      keymap.of([{ key: 'Mod-Enter', run: () => (onRun(), true) }]),
      basicSetup,
      fuseLanguage,
      lintGutter(),
      EditorView.lineWrapping,
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onEdit();
      }),
      EditorView.contentAttributes.of({ 'aria-label': '.fuse program' }),
    ],
  });
  return {
    text: () => view.state.doc.toString(),
    setText(next) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: next }, selection: EditorSelection.cursor(0) });
      view.dispatch(setDiagnostics(view.state, []));
    },
    showDiagnostics(diagnostics) {
      const marks = diagnostics.map(lintOf).filter((d): d is LintDiagnostic => d !== undefined);
      // A span past the end of an edited document would make CodeMirror throw: keep those in range.
      const length = view.state.doc.length;
      view.dispatch(setDiagnostics(view.state, marks.filter((d) => d.to <= length)));
    },
    reveal(from, to) {
      view.dispatch({ selection: EditorSelection.range(from, to), scrollIntoView: true });
      view.focus();
    },
  };
}
