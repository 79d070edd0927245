// The UserError a call or a promise fails with, for tests of diagnostics (anything else that is
// thrown, or no failure at all, fails the test).

import { UserError } from '../../src/diagnostics/index.js';

/** The UserError `f` throws. */
export function errorOf(f: () => unknown): UserError {
  try {
    f();
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}

/** The UserError `promise` rejects with. */
export async function rejectionOf(promise: Promise<unknown>): Promise<UserError> {
  try {
    await promise;
  } catch (e) {
    if (e instanceof UserError) return e;
    throw e;
  }
  throw new Error('expected a UserError');
}

/** `CODE: message` of the first diagnostic of the UserError `promise` rejects with. */
export async function firstDiagnostic(promise: Promise<unknown>): Promise<string> {
  const d = (await rejectionOf(promise)).diagnostics[0]!;
  return `${d.code}: ${d.message}`;
}
