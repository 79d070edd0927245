// `--static name=VALUE` on the command line (docs/LANGUAGE.md, "Static arguments"): check,
// lower, plan and emit compile for the value; run takes it as a scalar input, as `--arg`, which
// a run always specialises to. Errors: E525 (no such parameter, an array parameter, a graph),
// E520 (not a value of the parameter's type), E524 (given twice). Results are checked against
// values computed here, fused (ILP and none) and interpreted.

import { describe, expect, it } from 'vitest';
import { cli, printedArray, tempFile } from './cliHarness.js';

const annotated = tempFile('steps.fuse', 'def main(xs: f64[n], tsteps: i32) -> f64[n]:\n  ys = xs\n  for t in range(tsteps):\n    ys = map(lam x: x * 2.0 + f64(t), ys)\n  return ys\n');
const inferred = tempFile('inferred.fuse', 'def main(xs, tsteps):\n  for t in range(tsteps):\n    xs = map(lam x: x * 3.0, xs)\n  return xs\n');
const xsFile = tempFile('xs.json', JSON.stringify({ dtype: 'f64', shape: [3], data: [1, -0.5, 4] }));

/** y ← 2y + t for t = 0 … tsteps − 1, computed here. */
const stepped = (tsteps: number): number[] =>
  [1, -0.5, 4].map((x) => {
    let y = x;
    for (let t = 0; t < tsteps; t++) y = 2 * y + t;
    return y;
  });

describe('without --static', () => {
  it('check, lower, plan and emit are E204, with a note that names --static', async () => {
    for (const command of ['check', 'lower', 'plan', 'emit']) {
      const r = await cli(command, annotated, ...(command === 'plan' || command === 'emit' ? ['--no-progress'] : []));
      expect(r.code, `${command}: ${r.err}`).toBe(1);
      expect(r.err).toContain('steps.fuse:3:18: error[E204]');
      expect(r.err).toContain("note: the value of the scalar parameter 'tsteps' is not known at compile time; give it, e.g. --static tsteps=VALUE");
    }
  });
});

describe('with --static', () => {
  it('check and lower compile for the value: the for loop unrolls', async () => {
    expect(await cli('check', annotated, '--static', 'tsteps=3')).toMatchObject({ code: 0, out: 'ok: main(xs: f64[_], tsteps: i32) -> f64[_]\n' });
    const lowered = await cli('lower', annotated, '--static', 'tsteps=3');
    expect(lowered.code).toBe(0);
    expect(lowered.out.match(/= map\(/g)).toHaveLength(3);
    expect(lowered.out).not.toContain('while');
    // An unannotated parameter, whose type inference cannot find without the value.
    const inferredLowered = await cli('lower', inferred, '--static', 'tsteps=2');
    expect(inferredLowered.code).toBe(0);
    expect(inferredLowered.out.match(/= map\(/g)).toHaveLength(2);
  });

  it('plan and emit: one fused loop for the unrolled chain', async () => {
    const plan = await cli('plan', annotated, '--static', 'tsteps=4', '--no-progress', '--format', 'json');
    expect(plan.code, plan.err).toBe(0);
    expect((JSON.parse(plan.out) as { clusters: unknown[] }).clusters).toHaveLength(1);
    const emitted = await cli('emit', annotated, '--static', 'tsteps=4', '--no-progress', '--shape', 'xs=f64[3]');
    expect(emitted.code, emitted.err).toBe(0);
    expect(emitted.out).toContain('for (');
  });

  it('run: --static and --arg give the same results, fused (ILP, none) and interpreted, as computed here', async () => {
    for (const tsteps of [0, 1, 5]) {
      const outs = await Promise.all(
        [
          ['--arg', `tsteps=${tsteps}`],
          ['--static', `tsteps=${tsteps}`],
          ['--static', `tsteps=${tsteps}`, '--strategy', 'none'],
          ['--static', `tsteps=${tsteps}`, '--interpret'],
        ].map((flags) => cli('run', annotated, '--input', `xs=${xsFile}`, '--threads', '1', '--no-progress', ...flags)),
      );
      for (const o of outs) {
        expect(o.code, o.err).toBe(0);
        expect(printedArray(o.out, 'ys')).toEqual(stepped(tsteps));
      }
    }
  });
});

describe('--static errors', () => {
  it('E525 with the location for a name that is no parameter, and for an array parameter', async () => {
    const none = await cli('check', annotated, '--static', 'steps=3');
    expect(none.code).toBe(2);
    expect(none.err).toContain("steps.fuse:1:5: error[E525]: --static steps: 'main' has no parameter named 'steps' (its parameters: xs, tsteps)");
    const array = await cli('lower', annotated, '--static', 'xs=3');
    expect(array.code).toBe(2);
    expect(array.err).toContain("steps.fuse:1:10: error[E525]: --static xs: 'xs' is an array parameter");
    const run = await cli('run', annotated, '--static', 'xs=3', '--arg', 'tsteps=1');
    expect(run.code).toBe(2);
    expect(run.err).toContain('error[E525]');
    const odd = await cli('check', annotated, '--static', '__proto__=1');
    expect(odd.code).toBe(2);
    expect(odd.err).toContain("has no parameter named '__proto__'");
  });

  it('E520 for a value of the wrong type or a malformed assignment, E524 for a parameter given twice', async () => {
    const float = await cli('check', annotated, '--static', 'tsteps=2.5');
    expect(float).toMatchObject({ code: 2, err: expect.stringContaining('error[E520]: --static tsteps: "2.5" is not a value of type i32') });
    const bare = await cli('plan', annotated, '--static', 'tsteps');
    expect(bare).toMatchObject({ code: 2, err: expect.stringContaining('error[E520]: --static "tsteps": expected name=value, e.g. --static m=1000') });
    expect(await cli('check', annotated, '--static', 'tsteps=1', '--static', 'tsteps=2')).toMatchObject({ code: 2, err: expect.stringContaining('error[E524]') });
    expect(await cli('check', annotated, '--static', 'tsteps=1', '--shape', 'tsteps=2')).toMatchObject({ code: 2, err: expect.stringContaining('error[E524]') });
    expect(await cli('run', annotated, '--input', `xs=${xsFile}`, '--static', 'tsteps=1', '--arg', 'tsteps=2')).toMatchObject({ code: 2, err: expect.stringContaining('error[E524]') });
  });

  it('E525 for --static on a dependence graph, which has no parameters', async () => {
    const graph = tempFile('g.json', '{}');
    expect(await cli('plan', graph, '--static', 'k=1')).toMatchObject({ code: 2, err: expect.stringContaining('error[E525]') });
  });

  it('every command that takes it says so in --help', async () => {
    for (const command of ['check', 'lower', 'plan', 'run', 'emit']) {
      const help = await cli(command, '--help');
      expect(help.out, command).toContain('--static <name=value>');
    }
  });
});
