// DOM helpers. Text goes in with textContent only: nothing the user typed (a program, a name
// from it, an error message quoting it) is ever parsed as HTML.

/** The element with this id, which index.html must have, of the expected type. */
export function byId<T extends HTMLElement>(id: string, type: new () => T): T {
  const found = document.getElementById(id);
  if (!(found instanceof type)) throw new Error(`index.html has no <${type.name}> #${id}`);
  return found;
}

/** A new element with a class and text (both optional) and children. */
export function element<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  options: { readonly className?: string; readonly text?: string } = {},
  ...children: readonly Node[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (options.className !== undefined) node.className = options.className;
  if (options.text !== undefined) node.textContent = options.text;
  node.append(...children);
  return node;
}
