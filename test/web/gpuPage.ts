// A browser page that runs arrayfuse programs on the back end under test, for differential tests
// in headless Chromium (Debian's /usr/bin/chromium through playwright-core; its own browser
// downloads are unreachable here). `openGpuPage()` bundles test/web/page/harness.ts with
// esbuild (from the working tree's source, as the playground is), serves it with HiGHS' wasm
// on 127.0.0.1 (WebGPU needs a secure context: http://127.0.0.1 is one, about:blank is not),
// launches Chromium with `--enable-unsafe-webgpu` (on a machine without a GPU that exposes
// SwiftShader's software adapter), and hands back `runCases(cases)`: for each case the fused
// results on the back end under test (two runs of one compiled program) and the reference
// interpreter's, or the error each raised, decoded with their element types and every NaN,
// ±Infinity and -0 intact (test/web/page/wire.ts), and on webgpu the back end's own account of
// the runs (kernels run on the host, runs redone on the CPU).
//
// One page per test file (open it in beforeAll, close it in afterAll): SwiftShader compiles
// shaders slowly, so give runCases many cases at once rather than one call per case.

import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { chromium, type Browser, type Page } from 'playwright-core';
import { serve } from '../../scripts/playground.mjs';
import type { BackendName } from '../../src/index.js';
import type { AdapterSummary } from '../../web/src/gpu.js';
import {
  decodeRecord, encodeRecord, type CaseOptions, type DeviceReport, type Harness, type PlainValue, type WireCase, type WireCaseResult, type WireError,
  type WireOutcome,
} from './page/wire.js';
import { repoRoot } from '../util/sources.js';

export type { AdapterSummary } from '../../web/src/gpu.js';
export type { CaseOptions, DeviceReport, ElemName, PlainArray, PlainValue, TypedArray, WireError } from './page/wire.js';

/**
 * The back end the browser differential tests run the fused code on: one line to change (the
 * suite was built on `js` before the `webgpu` back end was registered, and runs there too).
 */
export const backendUnderTest: BackendName = 'webgpu';

export const chromiumPath = '/usr/bin/chromium';
export const chromiumFound = existsSync(chromiumPath);
/** Under CI (`CI` set) a missing browser or adapter is a broken setup: the tests fail instead of skipping. */
export const underCI = process.env.CI !== undefined;

/**
 * The flags of every browser test here (test/web/consumerPage.test.ts): headless, no sandbox
 * (containers), no network chatter. `--disable-gpu` turns off GPU compositing only; WebGPU
 * still gets its adapter with `--enable-unsafe-webgpu`.
 */
export const chromiumArgs: readonly string[] = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync',
];

/** What unlocks WebGPU in Chromium on Linux (SwiftShader's adapter where there is no GPU). */
export const webgpuArg = '--enable-unsafe-webgpu';

/** One program run on named inputs. Plain values: a typed array is `{ data, shape }` (README, "The TypeScript API"). */
export interface Case {
  /** Shown in failures. */
  readonly name: string;
  readonly source: string;
  /** The file name its diagnostics show (default `case.fuse`). */
  readonly fileName?: string;
  readonly inputs: Readonly<Record<string, PlainValue>>;
  readonly options?: CaseOptions;
  /** Inputs the page passes as another input's very object (`{ ys: 'xs' }`), for aliasing tests. */
  readonly aliases?: Readonly<Record<string, string>>;
}

export type Outcome =
  | { readonly ok: true; readonly results: Record<string, PlainValue>; readonly fallback?: WireError }
  | { readonly ok: false; readonly error: WireError };

export interface CaseResult {
  readonly name: string;
  /** The back end the page's compiled program ran on (absent when compiling failed). */
  readonly backend?: string;
  /** The fused run on the back end under test. */
  readonly fused: Outcome;
  /** A second run of the same compiled program on fresh copies of the inputs. */
  readonly fusedAgain: Outcome;
  /** The reference interpreter's run (`interpret: true`). */
  readonly reference: Outcome;
  /** Whether the first fused run left its inputs as they were. */
  readonly inputsIntact: boolean;
  /** The webgpu back end's account of the runs: kernels run on the host, CPU reruns, submissions (webgpu only). */
  readonly device?: DeviceReport;
  readonly ms: number;
}

export interface GpuPage {
  /** The page's WebGPU adapter, described; null when it has none. */
  readonly adapter: AdapterSummary | null;
  /** The back end `runCases` compiles for. */
  readonly backend: BackendName;
  /** Errors the page raised or logged (uncaught exceptions, console errors): a test ends by expecting none. */
  readonly pageErrors: readonly string[];
  runCases(cases: readonly Case[]): Promise<CaseResult[]>;
  close(): Promise<void>;
}

export interface GpuPageOptions {
  /** Launch with `--enable-unsafe-webgpu` (default true). */
  readonly webgpu?: boolean;
  /** The back end to compile for (default `backendUnderTest`). */
  readonly backend?: BackendName;
}

/**
 * Cases per page call are grouped up to about this many input elements, so that one
 * `page.evaluate` message stays a few megabytes of JSON however many large cases a test has.
 */
const elementsPerCall = 1 << 20;

/**
 * Bundles the harness page and its interpreter worker into `site` with HiGHS' wasm and an
 * index.html. The embedded prelude
 * (src/lower/prelude.generated.ts) is vitest's globalSetup's work (scripts/embed-prelude.mjs).
 */
async function buildSite(site: string): Promise<void> {
  await esbuild.build({
    absWorkingDir: repoRoot,
    entryPoints: [join(repoRoot, 'test/web/page/harness.ts'), join(repoRoot, 'test/web/page/interpreter.ts')],
    outdir: site,
    bundle: true,
    platform: 'browser',
    format: 'esm',
    target: 'es2022',
    // As for the playground (scripts/build-web.mjs): HiGHS' loader reaches Node modules only under Node.
    external: ['node:*'],
    tsconfig: join(repoRoot, 'test/web/page/tsconfig.json'),
    logLevel: 'warning',
  });
  copyFileSync(join(repoRoot, 'node_modules/highs/build/highs.wasm'), join(site, 'highs.wasm'));
  writeFileSync(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>loading</title><script type="module" src="harness.js"></script>\n');
}

function decodeOutcome(o: WireOutcome): Outcome {
  if (!o.ok) return o;
  const results = decodeRecord(o.results);
  return o.fallback === undefined ? { ok: true, results } : { ok: true, results, fallback: o.fallback };
}

function decodeResult(r: WireCaseResult): CaseResult {
  const fused = decodeOutcome(r.fused);
  const fusedAgain = r.fusedAgain === 'same' ? fused : decodeOutcome(r.fusedAgain);
  return {
    name: r.name,
    fused,
    fusedAgain,
    reference: decodeOutcome(r.reference),
    inputsIntact: r.inputsIntact,
    ms: r.ms,
    ...(r.backend === undefined ? {} : { backend: r.backend }),
    ...(r.device === undefined ? {} : { device: r.device }),
  };
}

function elementsOf(v: PlainValue): number {
  if (typeof v === 'number' || typeof v === 'boolean') return 1;
  if (Array.isArray(v)) return (v as readonly PlainValue[]).reduce((n: number, x) => n + elementsOf(x), 0);
  return (v as { data: { length: number } }).data.length;
}

/** The cases in groups of about `elementsPerCall` input elements (a larger case is a group alone). */
export function batches(cases: readonly Case[], limit = elementsPerCall): Case[][] {
  const groups: Case[][] = [];
  let current: Case[] = [];
  let size = 0;
  for (const c of cases) {
    const n = Object.values(c.inputs).reduce((s: number, v) => s + elementsOf(v), 0);
    if (current.length > 0 && size + n > limit) {
      groups.push(current);
      current = [];
      size = 0;
    }
    current.push(c);
    size += n;
  }
  if (current.length > 0) groups.push(current);
  return groups;
}

/** The page's global object as harness.ts leaves it (the functions given to `page.evaluate` run in the page, so they cannot call helpers from here). */
type HarnessWindow = typeof globalThis & { readonly arrayfuseHarness: Harness };

/** Opens the harness page in a fresh headless Chromium. Close it when done (afterAll). */
export async function openGpuPage(options: GpuPageOptions = {}): Promise<GpuPage> {
  const backend = options.backend ?? backendUnderTest;
  const work = mkdtempSync(join(tmpdir(), 'arrayfuse-gpu-page-'));
  let server: { url: string; close(): Promise<void> } | undefined;
  let browser: Browser | undefined;
  const close = async (): Promise<void> => {
    await browser?.close();
    await server?.close();
    rmSync(work, { recursive: true, force: true });
  };
  try {
    await buildSite(work);
    server = await serve({ root: work, port: 0 });
    browser = await chromium.launch({
      executablePath: chromiumPath,
      headless: true,
      timeout: 30_000,
      args: [...chromiumArgs, ...(options.webgpu === false ? [] : [webgpuArg])],
    });
    const page: Page = await browser.newPage();
    const pageErrors: string[] = [];
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(server.url);
    await page.waitForFunction('document.title !== "loading"', undefined, { timeout: 30_000 });
    if ((await page.title()) !== 'ready') throw new Error(`the harness page did not start: ${pageErrors.join('; ') || (await page.title())}`);
    const adapter = await page.evaluate(() => (globalThis as HarnessWindow).arrayfuseHarness.adapter);
    const runBatch = async (group: readonly Case[]): Promise<CaseResult[]> => {
      const wire: WireCase[] = group.map((c) => ({
        name: c.name,
        source: c.source,
        ...(c.fileName === undefined ? {} : { fileName: c.fileName }),
        inputs: encodeRecord(c.inputs),
        ...(c.options === undefined ? {} : { options: c.options }),
        ...(c.aliases === undefined ? {} : { aliases: c.aliases }),
      }));
      // As JSON text both ways: Playwright carries one string far faster than a structure of
      // hundreds of thousands of values (seconds per 70000-element case otherwise).
      const text = await page.evaluate(
        async ([name, cases]) => JSON.stringify(await (globalThis as HarnessWindow).arrayfuseHarness.runCases(name, JSON.parse(cases) as WireCase[])),
        [backend, JSON.stringify(wire)] as const,
      );
      const got = JSON.parse(text) as WireCaseResult[];
      return got.map(decodeResult);
    };
    return {
      adapter,
      backend,
      pageErrors,
      runCases: async (cases) => {
        const results: CaseResult[] = [];
        for (const group of batches(cases)) results.push(...(await runBatch(group)));
        return results;
      },
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}

/**
 * Whether a test file's WebGPU tests must be skipped: there is no adapter and the back end
 * under test needs one. Says so loudly on the console; under CI a missing adapter is a
 * failure instead (a thrown Error), as a missing browser is.
 */
export function skipWithoutAdapter(page: GpuPage, file: string): boolean {
  if (page.adapter !== null || (page.backend as string) !== 'webgpu') return false;
  const why = `${file}: the page has no WebGPU adapter (navigator.gpu.requestAdapter() gave null with ${webgpuArg})`;
  if (underCI) throw new Error(`${why}; CI must provide one (Chromium's SwiftShader does)`);
  console.warn(`\n*** ${why}: its WebGPU tests are SKIPPED ***\n`);
  return true;
}
