// The registry of execution back ends, by name. The driver compiles through it (the Compiler's
// `backend` option, `js` by default), and the differential tests run one body over every
// back end listed here (test/runtime/backends.ts): registering a back end is what puts it
// under test. A fixed table, not a mutable registry: no module-level state.

import type { ExecutionBackend } from './backend.js';
import { jsBackend } from './executor.js';

/** Every back end, by its name. */
export const backends = {
  js: jsBackend,
} as const satisfies Readonly<Record<string, ExecutionBackend>>;

export type BackendName = keyof typeof backends;

/** A registered back end: its `name` is its registry key. */
export type RegisteredBackend = (typeof backends)[BackendName];

/** The registered back ends, in registry order. */
export const registeredBackends: readonly RegisteredBackend[] = Object.values(backends);

/** The back end registered under `name`. */
export function backendNamed(name: BackendName): ExecutionBackend {
  return backends[name];
}
