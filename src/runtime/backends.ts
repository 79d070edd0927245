// The registry of execution back ends, by name: `js` (one thread), `multicore` (the same loops
// in chunks on a pool of worker threads) and `webgpu` (WGSL kernels on a WebGPU device). The
// driver compiles through it (the Compiler's `backend` option, else `js` for one thread and
// `multicore` for more: driver/threads.ts), and the differential tests run one body over every
// back end listed here (test/runtime/backends.ts): registering a back end is what puts it under
// test — except `webgpu`, which runs f32/i32/u32/bool programs only and has suites of its own
// (test/webgpu, test/web). A fixed table, not a mutable registry: no module-level state.

import type { ExecutionBackend } from './backend.js';
import { jsBackend } from './executor.js';
import { multicoreBackend } from './multicore/backend.js';
import { webgpuBackend } from './webgpu/backend.js';

/** Every back end, by its name. */
export const backends = {
  js: jsBackend,
  multicore: multicoreBackend,
  webgpu: webgpuBackend,
} as const satisfies Readonly<Record<string, ExecutionBackend>>;

export type BackendName = keyof typeof backends;

/** A registered back end: its `name` is its registry key. */
export type RegisteredBackend = (typeof backends)[BackendName];

/** The registered back ends, in registry order. */
export const registeredBackends: readonly RegisteredBackend[] = Object.values(backends);

/**
 * The back end registered under `name`. A TypeError naming the registered ones for any other
 * name: callers from plain JavaScript are not held to BackendName, and `backends[name]` alone
 * would give undefined (or an Object.prototype member) and fail later with an unrelated message.
 */
export function backendNamed(name: BackendName): ExecutionBackend {
  if (!Object.hasOwn(backends, name)) {
    throw new TypeError(`unknown execution back end ${JSON.stringify(name)}; the back ends are: ${Object.keys(backends).join(', ')}`);
  }
  return backends[name];
}
