// The back-end switch: which back ends the page offers, their names for people, and the inputs
// a WebGPU run gets. Pure functions (the page's DOM work is in main.ts).
//
// A page runs on one thread, so it never offers `multicore`. It offers `webgpu` when this build
// has that back end registered and the page's browser gives a WebGPU adapter (web/src/gpu.ts);
// then the switch appears, else the page runs on JavaScript and shows no switch.

import type { BackendName, ParameterType } from '../../src/index.js';
import type { AdapterSummary } from './gpu.js';

/** The WebGPU back end's registry name. */
export const webgpuName = 'webgpu';

/** Whether a back end computes on the WebGPU device (f32 only, floats within the f32 tolerance). */
export function isWebgpu(name: string): boolean {
  return name === webgpuName;
}

/** Names for people, by back end. */
const labels: Readonly<Record<string, string>> = { js: 'JavaScript', multicore: 'JavaScript (threads)', webgpu: 'WebGPU' };

export function backendLabel(name: string): string {
  return Object.hasOwn(labels, name) ? labels[name]! : name;
}

/** The back ends the page offers: `js`, then `webgpu` where it is registered and there is an adapter. */
export function offeredBackends(registered: readonly string[], adapter: AdapterSummary | null): BackendName[] {
  const offered = ['js', ...(adapter !== null && registered.includes(webgpuName) ? [webgpuName] : [])];
  return offered.filter((name) => registered.includes(name)) as BackendName[];
}

/**
 * An array type with f32 elements where it has f64: WGSL has no f64, so a WebGPU run's random
 * float arrays are f32 where the program accepts them (an unannotated parameter takes its
 * input's type; one annotated f64 does not, and keeps f64 inputs, which the WebGPU back end then
 * refuses with its own diagnostic). Scalars keep their type: a number given for a scalar takes
 * the parameter's type, so an f32 one cannot be made this way.
 */
export function withF32(type: ParameterType): ParameterType {
  return type.kind === 'array' ? { ...type, elems: type.elems.map((e) => (e === 'f64' ? 'f32' : e)) } : type;
}
