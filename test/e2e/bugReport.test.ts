// The CLI's report of a CompilerBug writes the bug's attachment (e.g. the LP model of an
// infeasible plan) to a fresh temporary directory and names it; the core writes no files.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bugReport } from '../../src/cli/bugReport.js';
import { CompilerBug } from '../../src/diagnostics/index.js';

describe('bugReport', () => {
  it('is the message alone without an attachment', () => {
    const bug = new CompilerBug('plan/ilp', 'something broke');
    expect(bugReport(bug)).toBe(bug.message);
  });

  it('writes the attachment and names its file', () => {
    const root = mkdtempSync(join(tmpdir(), 'arrayfuse-test-'));
    const bug = new CompilerBug('plan/ilp', 'the fusion ILP is infeasible', { fileName: 'model.lp', text: 'Minimize\n obj: x\nEnd\n' });
    const report = bugReport(bug, root);
    const m = /\n {2}note: model\.lp is in (.*)$/.exec(report);
    expect(report.startsWith(bug.message)).toBe(true);
    expect(m?.[1]?.startsWith(join(root, 'arrayfuse-'))).toBe(true);
    expect(readFileSync(m![1]!, 'utf8')).toBe('Minimize\n obj: x\nEnd\n');
  });

  it('says so when the file cannot be written', () => {
    const root = mkdtempSync(join(tmpdir(), 'arrayfuse-test-'));
    const notADirectory = join(root, 'file');
    writeFileSync(notADirectory, '');
    const bug = new CompilerBug('plan/ilp', 'the fusion ILP is infeasible', { fileName: 'model.lp', text: '' });
    expect(bugReport(bug, notADirectory)).toMatch(/\n {2}note: model\.lp could not be written: /);
  });
});
