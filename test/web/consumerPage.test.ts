// A consumer's own page, as the README's "Use it in a browser" says to make one: a module that
// imports 'arrayfuse' by name, bundled by esbuild for the browser with no flags (the package's
// `browser` entry), HiGHS' highs.wasm copied beside it and named with configureSolver. Loaded
// in Debian's chromium, it plans with the ILP, runs the fused code, draws the plan picture and,
// told a wasm location that does not exist, reports a SolverLoadError saying where it looked;
// asked for 4 threads, it is refused when compiling (a page has no Node worker threads).
// Skipped with a notice without /usr/bin/chromium, except under CI (`CI` set), where it fails.

import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../scripts/playground.mjs';
import { repoRoot } from '../util/sources.js';

const chromiumPath = '/usr/bin/chromium';
const found = existsSync(chromiumPath);
if (!found && process.env.CI === undefined) {
  console.warn(`\n*** test/web/consumerPage.test.ts SKIPPED: no ${chromiumPath} (apt-get install chromium to run the browser tests) ***\n`);
}

/** The consumer's page: plans, runs and draws a program; what it got goes into the page's title as JSON. */
const pageSource = `
import { compile, configureSolver, isArrayOutput, SolverLoadError } from 'arrayfuse';

async function main() {
  const wasm = new URLSearchParams(location.search).get('wasm') ?? 'highs.wasm';
  configureSolver({ wasm: new URL(wasm, location.href) });
  const program = compile('def main(as):\\n  bs = reverse(as)\\n  cs = map(lam a: a * 2.0, as)\\n  return zipWith(+, bs, cs)\\n');
  const inputs = { as: new Float64Array([1, 2, 3]) };
  try {
    const plan = await program.plan(inputs);
    const { result } = await program.run(inputs);
    const svg = await program.render('svg', inputs);
    let threads = 'accepted';
    try {
      compile('def main(xs):\\n  return xs\\n', { threads: 4 });
    } catch (e) {
      threads = (e instanceof TypeError ? 'TypeError' : 'not a TypeError') + ': ' + e.message;
    }
    return { status: plan.status, clusters: plan.clusters.length, result: isArrayOutput(result) ? Array.from(result.data) : null, svg: svg.includes('<svg'), threads };
  } catch (e) {
    return { error: e instanceof SolverLoadError ? 'SolverLoadError' : String(e), message: e.message };
  }
}
main().then((r) => { document.title = JSON.stringify(r); });
`;

describe.skipIf(!found && process.env.CI === undefined)("a consumer's page in chromium", () => {
  const work = mkdtempSync(join(tmpdir(), 'arrayfuse-consumer-page-'));
  let server: { url: string; close(): Promise<void> } | undefined;
  let browser: Browser | undefined;

  beforeAll(async () => {
    expect(found, `${chromiumPath} is missing: CI must install the apt package chromium (.ci/run)`).toBe(true);
    const project = join(work, 'project');
    const site = join(work, 'site');
    mkdirSync(join(project, 'node_modules'), { recursive: true });
    mkdirSync(site);
    symlinkSync(repoRoot, join(project, 'node_modules', 'arrayfuse'), 'dir');
    writeFileSync(join(project, 'page.js'), pageSource);
    await esbuild.build({ absWorkingDir: project, entryPoints: ['page.js'], bundle: true, platform: 'browser', format: 'esm', outdir: site, logLevel: 'silent' });
    copyFileSync(join(repoRoot, 'node_modules/highs/build/highs.wasm'), join(site, 'highs.wasm'));
    writeFileSync(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><title>loading</title><script type="module" src="page.js"></script>');
    server = await serve({ root: site, port: 0 });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      timeout: 30_000,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  });

  /** Loads the page (with a query string) and returns what it reported. */
  async function report(query: string): Promise<Record<string, unknown>> {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    try {
      await page.goto(`${server!.url}${query}`);
      await page.waitForFunction('document.title !== "loading"', undefined, { timeout: 40_000 });
      expect(errors).toEqual([]);
      return JSON.parse(await page.title()) as Record<string, unknown>;
    } finally {
      await page.close();
    }
  }

  it('plans with the ILP, runs the fused code and draws the plan', async () => {
    const got = await report('');
    expect(got).toMatchObject({ status: 'optimal', clusters: 1, result: [5, 6, 7], svg: true });
    // A page has no Node worker threads: more than one thread is refused when compiling.
    expect(got.threads).toMatch(/^TypeError: threads: 4: the multicore back end needs Node/);
  }, 60_000);

  it('says where it looked for a solver it cannot load', async () => {
    const got = await report('?wasm=missing/highs.wasm');
    expect(got.error).toBe('SolverLoadError');
    expect(got.message).toMatch(/could not be loaded from http:\/\/127\.0\.0\.1:\d+\/missing\/highs\.wasm/);
  }, 60_000);
});
