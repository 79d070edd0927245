// The playground in a real browser: Debian's chromium driven by playwright-core (its own
// browser downloads are unreachable here, so no `playwright install`). The site is built with
// scripts/build-web.mjs into a folder of this test's own, served by scripts/playground.mjs on
// 127.0.0.1 at a free port, and loaded; the test runs an example and checks the results shown
// against its own computation, the agreement with the interpreter, the plan picture and text,
// the LP download, and an error's marker at its line. Screenshots go to out/screenshots/.
// Launched with --enable-unsafe-webgpu (SwiftShader's adapter where there is no GPU), the page
// offers the back-end switch when the build has the WebGPU back end, and an example run on
// WebGPU shows what it shows on JavaScript, within the f32 tolerance; without the flag there
// is no adapter and no switch.
//
// Without /usr/bin/chromium the test is skipped with a notice, except under CI (`CI` set),
// where it fails: .ci/run installs chromium, so a missing one is a broken setup. So is a
// Chromium that gives no WebGPU adapter with the flag.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWeb } from '../../scripts/build-web.mjs';
import { serve } from '../../scripts/playground.mjs';
import { backends, randomInput, type ParameterType } from '../../src/index.js';
import { parameterSeed } from '../../web/src/settings.js';
import { chromiumArgs, webgpuArg } from './gpuPage.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const chromiumPath = '/usr/bin/chromium';
const screenshots = join(root, 'out/screenshots');
const found = existsSync(chromiumPath);
/** Whether this build has the WebGPU back end: only then does the page offer it. */
const webgpuRegistered = Object.hasOwn(backends, 'webgpu');

if (!found && process.env.CI === undefined) {
  console.warn(`\n*** test/web/playground.test.ts SKIPPED: no ${chromiumPath} (apt-get install chromium to run the browser tests) ***\n`);
}

/** Waits until the page has finished a run (or failed one), bounded. */
async function runFinished(page: Page): Promise<string> {
  await page.waitForSelector('#status[data-state="done"], #status[data-state="error"]', { timeout: 40_000 });
  return (await page.getAttribute('#status', 'data-state')) ?? '';
}

describe.skipIf(!found && process.env.CI === undefined)('playground in chromium', () => {
  const work = mkdtempSync(join(tmpdir(), 'arrayfuse-web-'));
  let server: { url: string; close(): Promise<void> } | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    expect(found, `${chromiumPath} is missing: CI must install the apt package chromium (.ci/run)`).toBe(true);
    const site = await buildWeb({ outDir: join(work, 'site') });
    server = await serve({ root: site, port: 0 });
    context = await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath: chromiumPath,
      headless: true,
      acceptDownloads: true,
      viewport: { width: 1400, height: 900 },
      timeout: 30_000,
      args: [...chromiumArgs],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    mkdirSync(screenshots, { recursive: true });
    await page.goto(server.url);
    await page.waitForSelector('#status[data-state="ready"]');
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('runs an example: the results, agreement with the interpreter, the plan picture and text, the LP', async () => {
    await page.selectOption('#example', { label: 'examples/singleLoop.fuse' });
    await page.fill('#size', '50');
    await page.fill('#seed', '7');
    await page.click('#run');
    expect(await runFinished(page), await page.textContent('#status') ?? '').toBe('done');

    // The first elements shown are the ones computed here from the same random input:
    // result[i] = as[n-1-i] + 2 as[i] + (2 as[i] + 1), in f64 as the program does it.
    const type: ParameterType = { kind: 'array', elems: ['f64'], rank: 1, shape: null };
    const input = randomInput(type, { size: 50, seed: parameterSeed(7, 0) }) as { data: Float64Array };
    const as = input.data;
    const expected = Array.from({ length: 8 }, (_, i) => as[49 - i]! + as[i]! * 2.0 + (as[i]! * 2.0 + 1.0));
    expect(await page.textContent('#results li')).toBe(`result: f64[50] = [${expected.join(', ')}, … (50 elements)]`);
    expect(await page.textContent('#agrees')).toBe('yes');
    expect(await page.textContent('#ran-on')).toBe('JavaScript');
    expect(await page.locator('#timings tr').count()).toBe(4);

    // The picture: an SVG element (not an image of text) whose nodes name the program's arrays.
    const svgText = await page.locator('#plan-picture svg').textContent();
    expect(svgText).toContain('result');
    expect(svgText).toContain('as');
    expect(await page.locator('#plan-picture svg g.node').count()).toBeGreaterThan(3);
    await page.screenshot({ path: join(screenshots, 'playground-run.png') });

    await page.click('#tab-text');
    expect(await page.isVisible('#plan-text')).toBe(true);
    expect(await page.textContent('#plan-text')).toMatch(/cluster/i);
    await page.click('#tab-picture');

    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#lp-download')]);
    expect(download.suggestedFilename()).toBe('singleLoop.lp');
    const lp = readFileSync(await download.path(), 'utf8');
    expect(lp).toMatch(/^\s*(\\.*\n\s*)*minimize/im);
    expect(lp).toMatch(/subject to/i);
    expect(lp).toMatch(/\bend\s*$/i);
  });

  it('has no back-end switch without WebGPU (Chromium without --enable-unsafe-webgpu gives no adapter)', async () => {
    await page.waitForSelector('body[data-webgpu]', { state: 'attached' });
    expect(await page.getAttribute('body', 'data-webgpu')).toBe('unavailable');
    expect(await page.isHidden('#backend-field')).toBe(true);
  });

  it('marks an error at its line, in the gutter and in the list, without rendering the text as HTML', async () => {
    const program = [
      'def main(xs: f64[n]):',
      '  ys = map(lam x: x * 2.0, xs)',
      '  # a comment with <b>markup</b> and "quotes" ü',
      '  return map(lam y: y + undefinedName, ys)',
      '',
    ].join('\n');
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(program);
    await page.click('#run');
    expect(await runFinished(page)).toBe('error');

    const item = page.locator('#diagnostics li').first();
    expect(await item.getAttribute('data-line')).toBe('4');
    expect(await item.textContent()).toMatch(/^playground\.fuse:4:\d+: error\[E\d+\]: .*undefinedName/);
    // The underline sits in the 4th line of the editor, and the gutter marker beside line number 4.
    const lines = page.locator('.cm-content > .cm-line');
    const underlined: number[] = [];
    for (let k = 0; k < (await lines.count()); k++) if ((await lines.nth(k).locator('.cm-lintRange-error').count()) > 0) underlined.push(k + 1);
    expect(underlined).toEqual([4]);
    expect(await page.locator('.cm-lintRange-error').first().textContent()).toBe('undefinedName');
    const marker = await page.locator('.cm-gutter-lint .cm-gutterElement:has(.cm-lint-marker-error)').boundingBox();
    const numbers = page.locator('.cm-lineNumbers .cm-gutterElement');
    let markerLine: string | null = null;
    for (let k = 0; k < (await numbers.count()); k++) {
      const box = await numbers.nth(k).boundingBox();
      if (marker !== null && box !== null && Math.abs(box.y - marker.y) < 2) markerLine = await numbers.nth(k).textContent();
    }
    expect(markerLine).toBe('4');
    expect(await page.locator('#diagnostics b, .cm-content b').count()).toBe(0);
    await page.screenshot({ path: join(screenshots, 'playground-error.png') });
  });

  it('handles odd programs: a parameter named __proto__, a program that returns its input, an empty file (marked at 1:1)', async () => {
    const replaceProgram = async (text: string): Promise<void> => {
      await page.click('.cm-content');
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Delete');
      if (text !== '') await page.keyboard.insertText(text);
    };
    await page.fill('#size', '20');
    await replaceProgram('def main(__proto__: f64[n], k: i32):\n  return map(lam x: x * f64(k), __proto__)\n');
    await page.fill('#scalars', 'k=3');
    await page.click('#run');
    expect(await runFinished(page), (await page.textContent('#status')) ?? '').toBe('done');
    expect(await page.textContent('#agrees')).toBe('yes');
    expect(await page.textContent('#inputs')).toContain('__proto__: f64[20]');
    expect(await page.textContent('#inputs')).toContain('k: 3');

    await replaceProgram('def main(xs):\n  return xs\n');
    await page.fill('#scalars', '');
    await page.click('#run');
    expect(await runFinished(page)).toBe('done');
    expect(await page.textContent('#agrees')).toBe('yes');
    expect(await page.locator('#plan-picture svg').count()).toBe(1);

    await replaceProgram('');
    await page.click('#run');
    expect(await runFinished(page)).toBe('error');
    const first = page.locator('#diagnostics li').first();
    expect(await first.textContent()).toMatch(/^playground\.fuse:1:1: error\[E214\]: /);
    expect(await first.getAttribute('data-line')).toBe('1');
    expect(await page.locator('.cm-lint-marker-error').count()).toBe(1);
  });

  it('runs every bundled example, and another strategy and cost, agreeing with the interpreter', async () => {
    const labels = await page.$$eval('#example option', (options) => options.map((o) => o.textContent ?? ''));
    expect(labels).toEqual(expect.arrayContaining(['examples/simple1.fuse', 'bench/programs/flashAttention.fuse', 'bench/programs/mg.fuse']));
    await page.fill('#seed', '3');
    for (const label of labels) {
      await page.selectOption('#example', { label });
      await page.click('#run');
      expect(await runFinished(page), `${label}: ${await page.textContent('#status')}`).toBe('done');
      expect(await page.textContent('#agrees'), label).toBe('yes');
    }
    // Another strategy and a typed cost: the plan row says which strategy planned.
    await page.selectOption('#example', { label: 'examples/greedyBottomUpBad.fuse' });
    await page.selectOption('#strategy', 'greedy-up');
    await page.selectOption('#cost', 'other');
    await page.fill('#cost-text', '2*reads + writes');
    await page.click('#run');
    expect(await runFinished(page)).toBe('done');
    expect(await page.textContent('#agrees')).toBe('yes');
    expect(await page.textContent('#timings tr')).toMatch(/^plan \(greedy-up: /);
    // A typed cost that does not parse is the cost field's mistake, said with its column.
    await page.fill('#cost-text', '2*reads + <nonsense>');
    await page.click('#run');
    expect(await runFinished(page)).toBe('error');
    expect(await page.textContent('#status')).toMatch(/^cost: .*\(at column 11\)$/);
    expect(await page.locator('#diagnostics li').count()).toBe(0);
    await page.selectOption('#strategy', 'ilp');
    await page.selectOption('#cost', 'reads+writes+recompute');
  });

  it('says when the fused code stopped at a fault and the interpreter decided; does not draw a plan of hundreds of loops', async () => {
    await page.selectOption('#example', { label: 'examples/singleLoop.fuse' });
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    // The gather's indices run past the end, but no result needs the elements it computes.
    await page.keyboard.insertText('def main(xs: f64[n]):\n  is = generate(size(xs), lam i: i + 5)\n  ys = gather(is, xs)\n  zs = generate(size(xs), lam i: ys!0 if i < 0 else 2.0)\n  return zs\n');
    await page.fill('#size', '10');
    await page.selectOption('#strategy', 'none');
    await page.click('#run');
    expect(await runFinished(page), (await page.textContent('#status')) ?? '').toBe('done');
    expect(await page.textContent('#agrees')).toMatch(/^n\/a/);
    const fault = page.locator('#diagnostics li').first();
    expect(await fault.textContent()).toMatch(/^playground\.fuse:3:\d+: error\[E402\]: gather: index 10 is out of range/);

    await page.selectOption('#example', { label: 'bench/programs/mg.fuse' });
    expect(await page.textContent('#status')).toMatch(/^bench\/programs\/mg\.fuse: Run to plan and run it/);
    await page.click('#run');
    expect(await runFinished(page), (await page.textContent('#status')) ?? '').toBe('done');
    expect(await page.textContent('#plan-picture')).toMatch(/^The plan has \d+ loops, too many to draw in the page/);
    expect(await page.textContent('#agrees')).toBe('yes');
    await page.selectOption('#strategy', 'ilp');
  }, 120_000);

  it('shows a bad field instead of running, and no page errors occurred', async () => {
    await page.fill('#size', '-1');
    await page.click('#run');
    expect(await runFinished(page)).toBe('error');
    expect(await page.textContent('#status')).toMatch(/^size:/);
    expect(pageErrors).toEqual([]);
  });
});

/** One line of the results list: `name: f32[50] = [1.5, …]` (its type and shape, the first elements), or `name: 3.5`. */
interface ShownResult {
  readonly name: string;
  readonly shape: string | null;
  readonly values: readonly number[];
}

function parseShown(line: string): ShownResult {
  const [, name, rest] = /^([^:]+): (.*)$/.exec(line) ?? [];
  if (name === undefined || rest === undefined) throw new Error(`not a result line: ${line}`);
  const number = (t: string): number => (t === 'True' ? 1 : t === 'False' ? 0 : t === '-0' ? -0 : Number(t));
  const array = /^\w+\[([\d, ]*)\] = \[(.*?)(?:, … \(\d+ elements\))?\]$/.exec(rest);
  if (array === null) return { name, shape: null, values: [number(rest)] };
  return { name, shape: array[1]!, values: array[2] === '' ? [] : array[2]!.split(', ').map(number) };
}

/** The f32 tolerance of the differential suite (test/web/tolerance.ts): NaN where NaN, infinities equal. */
function closeShown(got: ShownResult, want: ShownResult): boolean {
  const close = (g: number, w: number): boolean =>
    Number.isNaN(w) ? Number.isNaN(g) : Number.isFinite(w) ? Math.abs(g - w) <= 1e-5 * (1 + Math.abs(w)) : g === w;
  return got.name === want.name && got.shape === want.shape && got.values.length === want.values.length && got.values.every((g, k) => close(g, want.values[k]!));
}

describe.skipIf(!found && process.env.CI === undefined)('playground in chromium with WebGPU (--enable-unsafe-webgpu)', () => {
  const work = mkdtempSync(join(tmpdir(), 'arrayfuse-web-gpu-'));
  let server: { url: string; close(): Promise<void> } | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let adapter = false;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    expect(found, `${chromiumPath} is missing: CI must install the apt package chromium (.ci/run)`).toBe(true);
    const site = await buildWeb({ outDir: join(work, 'site') });
    server = await serve({ root: site, port: 0 });
    context = await chromium.launchPersistentContext(join(work, 'profile'), {
      executablePath: chromiumPath,
      headless: true,
      viewport: { width: 1400, height: 900 },
      timeout: 30_000,
      args: [...chromiumArgs, webgpuArg],
    });
    page = context.pages()[0] ?? (await context.newPage());
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(server.url);
    await page.waitForSelector('#status[data-state="ready"]');
    await page.waitForSelector('body[data-webgpu]', { state: 'attached' });
    adapter = (await page.getAttribute('body', 'data-webgpu')) === 'available';
    const why = adapter ? 'the build has no webgpu back end yet (src/runtime/backends.ts)' : `the page has no WebGPU adapter with ${webgpuArg}`;
    if (!adapter && process.env.CI !== undefined) throw new Error(`test/web/playground.test.ts: ${why}; CI must provide one (Chromium's SwiftShader does)`);
    if (!adapter || !webgpuRegistered) console.warn(`\n*** test/web/playground.test.ts: ${why}: its WebGPU runs are SKIPPED ***\n`);
  }, 90_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('shows the back-end switch exactly when the page has an adapter and the build has the WebGPU back end', async () => {
    expect(await page.isVisible('#backend-field')).toBe(adapter && webgpuRegistered);
    if (adapter && webgpuRegistered) {
      expect(await page.$$eval('#backend option', (os) => os.map((o) => [o.getAttribute('value'), o.textContent]))).toEqual([['js', 'JavaScript'], ['webgpu', 'WebGPU']]);
      expect(await page.inputValue('#backend')).toBe('js');
    }
  });

  /** Runs the selected example on `backend` and returns the results shown, and what the page says ran and agreed. */
  async function runOn(backend: 'js' | 'webgpu'): Promise<{ results: ShownResult[]; ranOn: string; agrees: string; status: string }> {
    await page.selectOption('#backend', backend);
    await page.click('#run');
    const state = await runFinished(page);
    const status = (await page.textContent('#status')) ?? '';
    if (state !== 'done') return { results: [], ranOn: '', agrees: '', status: `${state}: ${status} ${(await page.locator('#diagnostics li').allTextContents()).join(' | ')}` };
    const lines = await page.locator('#results li').allTextContents();
    return { results: lines.map(parseShown), ranOn: (await page.textContent('#ran-on')) ?? '', agrees: (await page.textContent('#agrees')) ?? '', status };
  }

  it('runs every bundled paper example on WebGPU with the output it shows on JavaScript (f32 within 1e-5·(1+|x|)); f64 ones get the f64 diagnostic', async (ctx) => {
    if (!adapter || !webgpuRegistered) ctx.skip();
    const labels = (await page.$$eval('#example option', (options) => options.map((o) => o.textContent ?? ''))).filter((l) => l.startsWith('examples/'));
    expect(labels.length).toBeGreaterThanOrEqual(12);
    await page.fill('#seed', '5');
    const problems: string[] = [];
    for (const label of labels) {
      await page.selectOption('#example', { label });
      await page.fill('#size', '50');
      const js = await runOn('js');
      const gpu = await runOn('webgpu');
      if (js.status.startsWith('done') === false) problems.push(`${label}: on JavaScript: ${js.status}`);
      if (gpu.results.length === 0) {
        // An example that computes in f64 whatever its inputs (greedyTopDownBad's f64(i)) cannot run on WebGPU: it is told why.
        if (!/f64/.test(gpu.status) || !/webgpu/i.test(gpu.status)) problems.push(`${label}: on WebGPU: ${gpu.status}`);
        continue;
      }
      if (js.ranOn !== 'JavaScript' || !gpu.ranOn.startsWith('WebGPU')) problems.push(`${label}: ran on ${js.ranOn} and ${gpu.ranOn}`);
      if (!gpu.agrees.startsWith('yes')) problems.push(`${label}: on WebGPU the interpreter disagrees: ${gpu.agrees}`);
      if (!/ on WebGPU$/.test(gpu.status)) problems.push(`${label}: the status does not say WebGPU ran: ${gpu.status}`);
      if (gpu.results.length !== js.results.length || !gpu.results.every((r, k) => closeShown(r, js.results[k]!))) {
        problems.push(`${label}: WebGPU shows ${JSON.stringify(gpu.results)}, JavaScript ${JSON.stringify(js.results)}`);
      }
    }
    await page.screenshot({ path: join(screenshots, 'playground-webgpu.png') });
    expect(problems).toEqual([]);
  }, 180_000);

  it('raised no errors in the page', () => {
    expect(pageErrors).toEqual([]);
  });
});
