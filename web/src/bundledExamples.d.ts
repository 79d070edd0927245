// The examples, bundled at build time by scripts/build-web.mjs (its `arrayfuse:examples` plugin).
declare module 'arrayfuse:examples' {
  const examples: readonly { readonly name: string; readonly path: string; readonly source: string }[];
  export default examples;
}
