// Types of scripts/build-web.mjs, for the tests that import it.
export interface BundledExample {
  readonly name: string;
  readonly path: string;
  readonly source: string;
}
export function exampleSources(): BundledExample[];
export function buildWeb(options?: { readonly outDir?: string; readonly minify?: boolean }): Promise<string>;
