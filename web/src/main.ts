// The playground page: an example or your own program in the editor, the controls, and Run:
// compile, make random inputs, plan (timed), draw the plan, run the fused code and the
// reference interpreter (timed), compare them (bit for bit; within the f32 tolerance on
// WebGPU), and offer the ILP as an LP file. Where the browser gives a WebGPU adapter and the
// build has the WebGPU back end, a switch picks the back end the fused code runs on.
// Only arrayfuse's public API is used (src/index.ts, bundled from source by scripts/build-web.mjs).

import {
  backends, compile, configureSolver, randomInput, UserError, type BackendName, type ClusterJson, type FuseProgram, type Input, type Output, type ParameterType,
} from '../../src/index.js';
import { backendLabel, isWebgpu, offeredBackends, withF32 } from './backendChoice.js';
import { byId, element } from './dom.js';
import { createEditor } from './editor.js';
import { diagnosticLine, diagnosticsOf, type PageDiagnostic } from './diagnostics.js';
import { examples, firstExample, type Example } from './examples.js';
import { adapterName, webgpuAdapter, type AdapterSummary } from './gpu.js';
import { showSvg } from './planView.js';
import { agreement, describeOutput } from './results.js';
import { costOf, maxElements, namedCosts, parameterSeed, parseScalars, parseSeed, parseSize, strategies, type Parsed } from './settings.js';

/** The ILP gets this long before the plan falls back to its best incumbent: the page stays responsive. */
const planTimeLimitSeconds = 10;

/**
 * Plans with more loops than this are not drawn: Graphviz lays the picture out on the page's
 * thread, and MG unfused (711 loops) took minutes. The text plan shows them all.
 */
const maxDrawnClusters = 120;

const ui = {
  form: byId('controls', HTMLFormElement),
  example: byId('example', HTMLSelectElement),
  strategy: byId('strategy', HTMLSelectElement),
  cost: byId('cost', HTMLSelectElement),
  costText: byId('cost-text', HTMLInputElement),
  size: byId('size', HTMLInputElement),
  seed: byId('seed', HTMLInputElement),
  scalars: byId('scalars', HTMLInputElement),
  backendField: byId('backend-field', HTMLLabelElement),
  backend: byId('backend', HTMLSelectElement),
  run: byId('run', HTMLButtonElement),
  status: byId('status', HTMLElement),
  diagnostics: byId('diagnostics', HTMLUListElement),
  tabPicture: byId('tab-picture', HTMLButtonElement),
  tabText: byId('tab-text', HTMLButtonElement),
  planPicture: byId('plan-picture', HTMLElement),
  planText: byId('plan-text', HTMLElement),
  lpDownload: byId('lp-download', HTMLAnchorElement),
  ranOn: byId('ran-on', HTMLElement),
  agrees: byId('agrees', HTMLElement),
  results: byId('results', HTMLUListElement),
  timings: byId('timings', HTMLTableElement),
  inputs: byId('inputs', HTMLUListElement),
};

// HiGHS' binary is served next to app.js (scripts/build-web.mjs copies it there).
configureSolver({ wasm: new URL('highs.wasm', import.meta.url) });

/** The file name diagnostics show: the example's path until the text is edited. */
let fileName = firstExample.path;
/** The page's WebGPU adapter, once asked (null: none, or not asked yet). */
let adapter: AdapterSummary | null = null;
let lpUrl: string | undefined;

const editor = createEditor(
  byId('editor', HTMLDivElement),
  firstExample.source,
  () => {
    fileName = 'playground.fuse';
    // The listed places are the old text's; the editor's own markers move with the edit.
    ui.diagnostics.replaceChildren();
  },
  () => ui.form.requestSubmit(),
);

function setStatus(state: 'ready' | 'running' | 'done' | 'error', text: string): void {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

function option(value: string, label = value): HTMLOptionElement {
  const o = element('option', { text: label });
  o.value = value;
  return o;
}

function fillControls(): void {
  ui.example.append(...examples.map((e, k) => option(String(k), e.path)));
  ui.example.value = String(examples.indexOf(firstExample));
  ui.strategy.append(...strategies.map((s) => option(s)));
  ui.cost.append(...namedCosts.map((c) => option(c)), option('other', 'other…'));
  loadExample(firstExample);
}

function loadExample(example: Example): void {
  editor.setText(example.source);
  fileName = example.path;
  ui.size.value = example.size;
  ui.scalars.value = example.scalars;
  clearOutputs();
  setStatus('ready', `${example.path}: Run to plan and run it`);
}

function clearOutputs(): void {
  ui.diagnostics.replaceChildren();
  editor.showDiagnostics([]);
  ui.planPicture.replaceChildren();
  ui.planText.textContent = '';
  ui.results.replaceChildren();
  ui.inputs.replaceChildren();
  ui.timings.tBodies[0]!.replaceChildren();
  ui.ranOn.textContent = '–';
  ui.agrees.textContent = '–';
  ui.agrees.className = '';
  ui.lpDownload.hidden = true;
  if (lpUrl !== undefined) URL.revokeObjectURL(lpUrl);
  lpUrl = undefined;
  ui.lpDownload.removeAttribute('href');
}

function showDiagnostics(list: readonly PageDiagnostic[]): void {
  editor.showDiagnostics(list);
  ui.diagnostics.replaceChildren(
    ...list.flatMap((d) => {
      const item = element('li', { text: diagnosticLine(d, fileName) });
      const range = d.range;
      if (range !== undefined) {
        item.dataset.line = String(range.line);
        item.title = 'show in the editor';
        item.tabIndex = 0;
        item.addEventListener('click', () => editor.reveal(range.from, range.to));
        item.addEventListener('keydown', (event) => {
          if (event.key === 'Enter') editor.reveal(range.from, range.to);
        });
      }
      return [item, ...d.notes.map((n) => element('li', { className: 'note', text: n }))];
    }),
  );
}

function selectTab(picture: boolean): void {
  ui.tabPicture.setAttribute('aria-selected', String(picture));
  ui.tabText.setAttribute('aria-selected', String(!picture));
  ui.planPicture.hidden = !picture;
  ui.planText.hidden = picture;
}

function addTiming(label: string, ms: number): void {
  ui.timings.tBodies[0]!.append(element('tr', {}, element('td', { text: label }), element('td', { text: `${ms.toFixed(1)} ms` })));
}

interface Settings {
  readonly backend: BackendName;
  readonly strategy: (typeof strategies)[number];
  readonly cost: string;
  readonly size: number | readonly number[];
  readonly seed: number;
  readonly scalars: ReadonlyMap<string, number | boolean>;
}

function readSettings(): Parsed<Settings> {
  const strategy = strategies.find((s) => s === ui.strategy.value) ?? 'ilp';
  const cost = costOf(ui.cost.value, ui.costText.value);
  const size = parseSize(ui.size.value);
  const seed = parseSeed(ui.seed.value);
  const scalars = parseScalars(ui.scalars.value);
  if (!cost.ok) return cost;
  if (!size.ok) return size;
  if (!seed.ok) return seed;
  if (!scalars.ok) return scalars;
  return { ok: true, value: { backend: selectedBackend(), strategy, cost: cost.value, size: size.value, seed: seed.value, scalars: scalars.value } };
}

/** The back end the switch names; JavaScript where the page shows no switch. */
function selectedBackend(): BackendName {
  const offered = offeredBackends(Object.keys(backends), adapter);
  return ui.backendField.hidden ? 'js' : (offered.find((b) => b === ui.backend.value) ?? 'js');
}

/** A mistake in the controls (not in the program): shown in the status line. */
class SettingsError extends Error {}

/**
 * The inputs of a run: the scalars given, random values for the rest, of the program's types;
 * for a WebGPU run, f32 arrays where those are f64 (WGSL has no f64), unless the program
 * refuses them (E307: an f64 annotation), which then gets its own types and the back end's
 * diagnostic about f64.
 */
function inputsFor(program: FuseProgram, settings: Settings): Record<string, Input> {
  const types = program.parameterTypes;
  if (!isWebgpu(settings.backend)) return inputsOf(program, settings, types);
  const narrowed = inputsOf(program, settings, Object.fromEntries(Object.entries(types).map(([name, t]) => [name, withF32(t)])));
  try {
    program.lower(narrowed);
  } catch (e) {
    if (e instanceof UserError && e.code === 'E307') return inputsOf(program, settings, types);
    // Any other mistake is the program's: the run reports it.
  }
  return narrowed;
}

/** The inputs of a run with parameters of these types: the scalars given, random values for the rest. */
function inputsOf(program: FuseProgram, settings: Settings, types: Readonly<Record<string, ParameterType>>): Record<string, Input> {
  for (const name of settings.scalars.keys()) {
    if (!program.parameters.includes(name) || types[name]?.kind !== 'scalar') throw new SettingsError(`scalars: the program has no scalar parameter named ${JSON.stringify(name)}`);
  }
  const inputs: Record<string, Input> = {};
  program.parameters.forEach((name, k) => {
    const type = types[name]!;
    if (type.kind === 'array') {
      const { size } = settings;
      const extents = type.shape ?? (typeof size === 'number' ? Array.from({ length: type.rank }, () => size) : size);
      if (extents.length !== type.rank) throw new SettingsError(`size: ${name} has ${type.rank} dimension(s); give one size, or ${type.rank} separated by commas`);
      const elements = extents.reduce((a, b) => a * b, 1);
      if (elements > maxElements) throw new SettingsError(`size: ${name} would have ${elements} elements; the page runs at most ${maxElements} per array (the API and the command line take more)`);
    }
    let value: Input;
    try {
      value = settings.scalars.get(name) ?? randomInput(type, { size: settings.size, seed: parameterSeed(settings.seed, k) });
    } catch (e) {
      throw new SettingsError(`size: ${e instanceof Error ? e.message : String(e)}`);
    }
    // A parameter may be named __proto__: define it, do not assign it.
    Object.defineProperty(inputs, name, { value, enumerable: true, writable: true, configurable: true });
  });
  return inputs;
}

/** Loops in a JSON plan, the blocks of its `if`s and `while`s included. */
function clusterCount(clusters: readonly ClusterJson[]): number {
  return clusters.reduce((n, c) => n + 1 + (c.blocks ?? []).reduce((m, b) => m + clusterCount(b), 0), 0);
}

function describeInput(input: Input): string {
  if (typeof input === 'number' || typeof input === 'boolean') return String(input);
  const parts = Array.isArray(input) ? input : [input];
  const outputs = parts.map((p): Output => ('data' in p ? { data: p.data, shape: p.shape ?? [p.data.length] } : { data: p, shape: [p.length] }));
  return outputs.length === 1 ? describeOutput(outputs[0]!, 4) : describeOutput(outputs, 4);
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

/** Lets the browser paint the status line before the main thread is busy solving. */
function nextPaint(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

async function run(): Promise<void> {
  clearOutputs();
  const settings = readSettings();
  if (!settings.ok) {
    setStatus('error', settings.message);
    return;
  }
  const { backend, strategy, cost } = settings.value;
  const source = editor.text();
  ui.run.disabled = true;
  setStatus('running', 'planning…');
  await nextPaint();
  let program: FuseProgram | undefined;
  try {
    program = compile(source, { fileName, backend, strategy, cost, threads: 1, timeLimitSeconds: planTimeLimitSeconds });
    const inputs = inputsFor(program, settings.value);
    ui.inputs.replaceChildren(...Object.entries(inputs).map(([name, x]) => element('li', { text: `${name}: ${describeInput(x)}` })));
    const plan = await timed(() => program!.plan(inputs));
    addTiming(`plan (${strategy}: ${plan.value.status}, ${plan.value.clusters.length} cluster(s), objective ${plan.value.objective})`, plan.ms);
    const loops = clusterCount(plan.value.clusters);
    const [svg, text, lp] = await Promise.all([loops <= maxDrawnClusters ? program.render('svg', inputs) : Promise.resolve(null), program.render('text', inputs), program.render('lp', inputs)]);
    if (svg !== null) showSvg(ui.planPicture, svg);
    else ui.planPicture.replaceChildren(element('p', { text: `The plan has ${loops} loops, too many to draw in the page (at most ${maxDrawnClusters}): see Plan text, or draw it with arrayfuse plan --format svg.` }));
    ui.planText.textContent = text;
    lpUrl = URL.createObjectURL(new Blob([lp], { type: 'text/plain' }));
    ui.lpDownload.href = lpUrl;
    ui.lpDownload.download = `${fileName.replace(/^.*\//, '').replace(/\.fuse$/, '') || 'program'}.lp`;
    ui.lpDownload.hidden = false;
    setStatus('running', 'running…');
    await nextPaint();
    const ranOn = backendLabel(program.backend) + (isWebgpu(program.backend) && adapter !== null ? ` (${adapterName(adapter)})` : '');
    const fused = await timed(() => program!.execute(inputs));
    addTiming(`fused run on ${backendLabel(program.backend)} (first call: generates code)`, fused.ms);
    const again = await timed(() => program!.execute(inputs));
    addTiming(`fused run on ${backendLabel(program.backend)} (again)`, again.ms);
    ui.ranOn.textContent = ranOn;
    const interpreted = await timed(() => program!.execute(inputs, { interpret: true }));
    addTiming('reference interpreter', interpreted.ms);
    ui.results.replaceChildren(...Object.entries(fused.value.results).map(([name, o]) => element('li', { text: `${name}: ${describeOutput(o)}` })));
    const fault = fused.value.fallback;
    if (fault !== undefined) {
      // The fused code met a fault in an element no result needs: the results are the
      // interpreter's, so there is nothing to compare; the fault is listed at its place.
      ui.results.append(element('li', { text: "the fused code stopped at a fault no result depends on (see Diagnostics); these are the interpreter's results" }));
      showDiagnostics(diagnosticsOf(fault, source));
      ui.agrees.textContent = 'n/a (the fused code stopped at a fault; the interpreter decided)';
      ui.agrees.className = '';
    } else {
      // JavaScript is bit for bit the interpreter; WebGPU computes f32 on the device (its own
      // rounding, folds regrouped), so there floats agree within the f32 tolerance.
      const agree = agreement(fused.value.results, interpreted.value.results, isWebgpu(program.backend));
      ui.agrees.textContent = agree;
      ui.agrees.className = agree === 'no' ? 'no' : 'yes';
    }
    setStatus('done', `done: ${Object.keys(fused.value.results).length} result(s) on ${backendLabel(program.backend)}`);
  } catch (e) {
    if (e instanceof SettingsError) {
      setStatus('error', e.message);
      return;
    }
    const found = diagnosticsOf(e, source);
    showDiagnostics(found);
    setStatus('error', e instanceof UserError ? `${found.length} error(s): see Diagnostics` : (found[0]?.message ?? 'failed'));
  } finally {
    ui.run.disabled = false;
    await program?.dispose();
  }
}

fillControls();
ui.example.addEventListener('change', () => loadExample(examples[Number(ui.example.value)]!));
ui.cost.addEventListener('change', () => {
  ui.costText.disabled = ui.cost.value !== 'other';
  if (!ui.costText.disabled) ui.costText.focus();
});
ui.tabPicture.addEventListener('click', () => selectTab(true));
ui.tabText.addEventListener('click', () => selectTab(false));
ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  void run();
});
ui.run.disabled = false;
setStatus('ready', 'ready: pick an example or write a program, then Run');
void showBackendSwitch();

/**
 * Asks the browser for a WebGPU adapter and, where the build has the WebGPU back end too, shows
 * the back-end switch. `data-webgpu` on the body says when the answer is in (`available` or
 * `unavailable`), for people and tests.
 */
async function showBackendSwitch(): Promise<void> {
  adapter = await webgpuAdapter(navigator.gpu);
  const offered = offeredBackends(Object.keys(backends), adapter);
  if (offered.length > 1) {
    ui.backend.replaceChildren(...offered.map((b) => option(b, backendLabel(b))));
    ui.backend.value = 'js';
    ui.backendField.title = `WebGPU adapter: ${adapterName(adapter!)}; WebGPU computes in f32 (no f64): float inputs are f32 there`;
    ui.backendField.hidden = false;
  }
  document.body.dataset.webgpu = adapter === null ? 'unavailable' : 'available';
}
