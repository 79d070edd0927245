// The command line on bad input (issue 9: C8, C9, H2, D1, D2, D4, exit codes): every case is a
// diagnostic with its exit code — 1 for the user's error, 2 for a usage error — never a raw
// Node error, a stack trace (exit 3) or a hang.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { compile } from '../../src/index.js';

async function cli(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  const code = await main(argv, { out: (t) => (out += t.endsWith('\n') ? t : t + '\n'), err: (t) => (err += t.endsWith('\n') ? t : t + '\n') });
  return { code, out, err };
}

const dir = mkdtempSync(join(tmpdir(), 'arrayfuse-cli-errors-'));
function file(name: string, contents: string): string {
  const path = join(dir, name);
  writeFileSync(path, contents);
  return path;
}

const saxpy = file('saxpy.fuse', 'def main(xs, k):\n  return map(lam x: x * k, xs)\n');
const xs = file('xs.json', '[1.0, 2.0, 3.0]');
// A size known only at run time (xs[0] = 1.0): E406 when allocated; a static one is E313.
const big = file('big.fuse', 'def main(xs):\n  n = i32(xs[0]) * 100000\n  g = generate((n, n), lam i, j: xs[0])\n  return fold(+, fold(+, g))\n');
const bigStatic = file('bigStatic.fuse', 'def main(xs):\n  g = generate((100000, 100000), lam i, j: xs[0])\n  return fold(+, fold(+, g))\n');
const existing = file('existing.txt', 'not a directory');
// An extent beyond i32 with no elements at all: it must not wrap into shape(xs).
const wideEmpty = file('wideEmpty.json', '{"dtype": "f64", "shape": [2147483648, 0], "data": []}');
const shapeOf = file('shapeOf.fuse', 'def main(xs):\n  r, c = shape(xs)\n  return r, c\n');
const run = ['run', saxpy, '--input', `xs=${xs}`, '--arg', 'k=2.0'];

describe('arrayfuse on bad command lines', () => {
  it.each([
    // [what, argv, exit code, message fragment]
    // A --random spec no array can have is a bad command-line value (exit 2).
    ['C8 a random array larger than any array', ['run', saxpy, '--random', 'xs=f64[100000000000]', '--arg', 'k=1.0'], 2, 'error[E406]: --random "f64[100000000000]": extent 100000000000 is more than'],
    ['C8 a random array one past 2^32', ['run', saxpy, '--random', 'xs=f64[4294967297]', '--arg', 'k=1.0'], 2, 'error[E406]'],
    ['an input extent beyond i32, even with no elements', ['run', shapeOf, '--input', `xs=${wideEmpty}`], 1, "error[E414]: input 'xs': shape [2147483648, 0]: extent 2147483648 is more than the 2147483647"],
    ['a random extent beyond i32, even with no elements', ['run', shapeOf, '--random', 'xs=i32[0,4294967297]'], 2, 'extent 4294967297 is more than the 2147483647'],
    ['a --shape extent beyond i32', ['plan', shapeOf, '--shape', 'xs=f64[4294967297,1]'], 2, 'extent 4294967297 is more than the 2147483647'],
    ['C8 a random array past i32 addressing', ['run', saxpy, '--random', 'xs=bool[65536,32768]', '--arg', 'k=1.0'], 2, '2147483648 elements are more than the 2147483647 an array can have'],
    ['C8 a generate too large, interpreted', ['run', big, '--input', `xs=${xs}`, '--interpret'], 1, 'big.fuse:3:7: error[E406]: generate: an array of shape [100000, 100000] is too large'],
    ['C8 a generate too large, unfused', ['run', big, '--input', `xs=${xs}`, '--strategy', 'none'], 1, 'big.fuse:3:7: error[E406]: generate: an array of shape [100000, 100000] is too large'],
    ['C8 a static shape too large', ['run', bigStatic, '--input', `xs=${xs}`], 1, 'bigStatic.fuse:2:16: error[E313]: an array of shape [100000, 100000] has 10000000000 elements'],
    ['C9 --out naming an existing file', [...run, '--out', existing], 1, `error[E500]: cannot create the directory ${existing}: a file of that name exists`],
    ['C9 --out under an existing file', [...run, '--out', join(existing, 'sub')], 1, 'error[E500]: cannot create the directory'],
    ['C9 --emit-lp into a missing directory', ['plan', saxpy, '--emit-lp', join(dir, 'missing', 'x.lp')], 1, `error[E500]: cannot write ${join(dir, 'missing', 'x.lp')}`],
    ['C9 --emit-mps into a missing directory', ['plan', saxpy, '--emit-mps', join(dir, 'missing', 'x.mps')], 1, 'error[E500]: cannot write'],
    ['H2 --out under /proc fails at once', [...run, '--out', '/proc/arrayfuse-x'], 1, 'error[E500]: cannot create the directory /proc/arrayfuse-x'],
    ['--time-limit abc', ['plan', saxpy, '--time-limit', 'abc'], 2, 'error[E600]: --time-limit "abc"'],
    ['--time-limit empty', ['plan', saxpy, '--time-limit', ''], 2, 'error[E600]'],
    ['--time-limit on run', [...run, '--time-limit', 'x'], 2, 'error[E600]'],
    ['--seed abc', [...run, '--seed', 'abc'], 2, 'error[E524]: --seed "abc": expected an integer'],
    ['--seed 1.5', [...run, '--seed', '1.5'], 2, 'error[E524]'],
    ['demo --size abc', ['demo', '--size', 'abc'], 2, 'error[E524]: --size "abc": expected a positive integer'],
    ['demo --size 0', ['demo', '--size', '0'], 2, 'error[E524]'],
    ['--cost unknown', [...run, '--cost', 'speed'], 2, 'error[E651]'],
    ['--shape malformed', ['check', saxpy, '--shape', 'xs'], 2, 'error[E523]'],
    ['--shape bad spec', ['plan', saxpy, '--shape', 'xs=f65[3]'], 2, 'error[E521]'],
    ['--input without a name', ['run', saxpy, '--input', xs], 2, 'error[E524]: --input'],
    ['--random bad spec', ['run', saxpy, '--random', 'xs=f64[a]', '--arg', 'k=1.0'], 2, 'error[E521]'],
    ['--arg not a number', ['run', saxpy, '--input', `xs=${xs}`, '--arg', 'k=abc'], 2, 'error[E520]'],
    ['--arg malformed', ['run', saxpy, '--input', `xs=${xs}`, '--arg', '=1'], 2, 'error[E520]'],
    ['a parameter given twice', [...run, '--arg', 'k=3.0'], 2, "error[E524]: --arg: parameter 'k' was given more than once"],
    ['--strategy unknown', [...run, '--strategy', 'magic'], 2, "error: option '--strategy <name>' argument 'magic' is invalid"],
    ['an input file that is missing', ['run', saxpy, '--input', `xs=${join(dir, 'nope.json')}`, '--arg', 'k=1.0'], 1, 'error[E500]: cannot read'],
  ] as const)('%s → exit %s', async (_what, argv, code, fragment) => {
    const result = await cli(...argv);
    expect(result.err).toContain(fragment);
    expect(result.code).toBe(code);
    expect(result.err).not.toMatch(/internal error|\n\s+at /);
  });

  it('D4 no arguments: the help on stderr, exit 2', async () => {
    const result = await cli();
    expect(result.code).toBe(2);
    expect(result.out).toBe('');
    expect(result.err).toContain('Usage: arrayfuse');
  });

  it('--help and --version still exit 0', async () => {
    expect((await cli('--help')).code).toBe(0);
    expect((await cli('--version')).code).toBe(0);
    expect((await cli('help', 'run')).code).toBe(0);
  });

  it('writes results into a new nested --out directory', async () => {
    const out = join(dir, 'a', 'b', 'c');
    const result = await cli(...run, '--out', out);
    expect(result.code).toBe(0);
    expect(readFileSync(join(out, 'result.npy')).length).toBeGreaterThan(0);
  });
});

describe('D1 parameters named like Object.prototype members', () => {
  const source = 'def main(__proto__, constructor, toString, valueOf, hasOwnProperty):\n  return map(lam x: x + constructor + toString + valueOf + hasOwnProperty, __proto__)\n';
  const path = file('proto.fuse', source);
  const args = ['--input', `__proto__=${xs}`, '--arg', 'constructor=1.0', '--arg', 'toString=10.0', '--arg', 'valueOf=100.0', '--arg', 'hasOwnProperty=1000.0'];

  it.each([['--interpret'], ['--strategy', 'ilp'], ['--strategy', 'none']])('run %s', async (...flags) => {
    const result = await cli('run', path, ...args, ...flags);
    expect(result.err).toBe('');
    expect(result.out).toContain('result = [1112.0, 1113.0, 1114.0]');
    expect(result.code).toBe(0);
  });

  it('a missing one is named, not taken from Object.prototype', async () => {
    const result = await cli('run', path, ...args.slice(0, 8));
    expect(result.code).toBe(1);
    expect(result.err).toContain("error[E410]: no input was given for parameter 'hasOwnProperty'");
  });

  it('--shape works for them too', async () => {
    const result = await cli('check', path, '--shape', '__proto__=f64[3]', '--shape', 'toString=2.0');
    expect(result.err).toBe('');
    expect(result.code).toBe(0);
  });

  it('through the API', async () => {
    const program = compile(source);
    const inputs = Object.fromEntries([
      ['__proto__', Float64Array.from([1, 2])],
      ['constructor', 1],
      ['toString', 10],
      ['valueOf', 100],
      ['hasOwnProperty', 1000],
    ]);
    for (const options of [{ interpret: true }, { strategy: 'ilp' as const }]) {
      const out = await program.run(inputs, options);
      expect(Array.from((out.result as { data: Float64Array }).data)).toEqual([1112, 1113]);
    }
  });
});

describe('D2 run reads the inputs before inferring types', () => {
  // Inference without inputs rejects this program (E308); with an f64 array for xs it lowers.
  const source = 'def main(xs):\n  m = 1.0e20\n  while m > 1.0:\n    xs = map(lam x: x * 0.5, xs)\n    m = fold(max, xs)\n  return xs\n';
  const path = file('halve.fuse', source);
  const input = file('fives.json', '[2.0, 4.0]');

  it('the CLI runs it', async () => {
    const result = await cli('run', path, '--input', `xs=${input}`);
    expect(result.err).toBe('');
    expect(result.out).toContain('xs = [0.5, 1.0]');
    expect(result.code).toBe(0);
  });

  it('check, plan and emit take it with --shape', async () => {
    for (const command of ['check', 'plan', 'emit']) {
      const result = await cli(command, path, '--shape', 'xs=f64[2]');
      expect(result.err).toBe('');
      expect(result.code).toBe(0);
    }
  });

  it('the API runs it', async () => {
    const out = await compile(source).run({ xs: Float64Array.from([2, 4]) });
    expect(Array.from((out.xs as { data: Float64Array }).data)).toEqual([0.5, 1]);
  });
});

describe('run --stats says when the interpreter decided (W3)', () => {
  const path = file('w3.fuse', 'def main(is: i32[n], ix: i32[m]):\n  a = map(lam i: 10 // i, is)\n  return gather(ix, a)\n');
  const is = file('is.json', '[1, 1, 0]');
  const ix = file('ix.json', '[0, 1]');

  it.each(['ilp', 'greedy-down', 'greedy-up', 'none'])('%s', async (strategy) => {
    const result = await cli('run', path, '--input', `is=${is}`, '--input', `ix=${ix}`, '--strategy', strategy, '--stats');
    expect(result.code).toBe(0);
    expect(result.out).toContain('result = [10, 10]');
    // Whether this plan met the fault depends on what it fused; `none` computes every element.
    if (strategy === 'none') expect(result.out).toContain(`the fused run stopped at a fault (E401 at ${path}:2:18) in an element no result depends on`);
  });

  it('without --stats the fallback is silent', async () => {
    const result = await cli('run', path, '--input', `is=${is}`, '--input', `ix=${ix}`, '--strategy', 'none');
    expect(result.out).toBe('result = [10, 10]\n');
    expect(result.err).toBe('');
  });
});

describe("run --input with NumPy's default integer (int64 .npy)", () => {
  const fixture = (name: string): string => join(import.meta.dirname, '../io/fixtures', name);
  const gather = file('gather64.fuse', 'def main(is: i32[n], xs: f64[m]):\n  return gather(is, xs)\n');
  const counts = file('counts64.fuse', 'def main(us: u32[n, m]):\n  return map(lam u: u + u32(1), us)\n');
  const xs3 = file('xs3.json', '[10.0, 20.0, 30.0, 40.0]');

  it('reads it as the parameter integer type when every value fits', async () => {
    const result = await cli('run', gather, '--input', `is=${fixture('i64_3.npy')}`, '--input', `xs=${xs3}`);
    expect(result.err).toBe('');
    expect(result.out).toBe('result = [20.0, 30.0, 40.0]\n');
    const unsigned = await cli('run', counts, '--input', `us=${fixture('i64_arange_2x3.npy')}`);
    expect(unsigned.err).toBe('');
    expect(unsigned.code).toBe(0);
  });

  it('names the first value that does not fit', async () => {
    const result = await cli('run', counts, '--input', `us=${fixture('i64_wide.npy')}`);
    expect(result.code).toBe(1);
    expect(result.err).toContain('error[E509]: ');
    expect(result.err).toContain('element 1 is -1, which does not fit u32');
  });
});
