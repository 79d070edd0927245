// Types of scripts/playground.mjs, for the tests that import it.
export function fileFor(root: string, urlPath: string): string | undefined;
export function serve(options: { readonly root: string; readonly port?: number; readonly host?: string }): Promise<{ readonly url: string; close(): Promise<void> }>;
