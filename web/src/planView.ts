// The plan picture: the SVG text arrayfuse's renderer made with Graphviz (labels escaped
// there) parsed as an SVG document and inserted as elements, never spliced into HTML. Scripts,
// foreign objects and event-handler attributes are dropped all the same: the picture is a
// picture, whatever a label could have smuggled in.

const svgNamespace = 'http://www.w3.org/2000/svg';

/** Removes anything active from a parsed SVG tree (defence in depth; Graphviz emits none of it). */
function inert(root: Element): void {
  for (const node of Array.from(root.querySelectorAll('script, foreignObject, iframe'))) node.remove();
  for (const node of [root, ...Array.from(root.querySelectorAll('*'))]) {
    for (const attribute of Array.from(node.attributes)) {
      const name = attribute.name.toLowerCase();
      const value = attribute.value.trim().toLowerCase();
      if (name.startsWith('on') || ((name === 'href' || name === 'xlink:href') && value.startsWith('javascript:'))) node.removeAttribute(attribute.name);
    }
  }
}

/** Shows `svgText` in `container` (replacing what was there). Throws when the text is not an SVG document. */
export function showSvg(container: HTMLElement, svgText: string): void {
  const parsed = new DOMParser().parseFromString(svgText, 'image/svg+xml');
  const root = parsed.documentElement;
  if (root.namespaceURI !== svgNamespace || root.localName !== 'svg' || parsed.getElementsByTagName('parsererror').length > 0) {
    throw new Error('the plan picture is not an SVG document');
  }
  inert(root);
  root.setAttribute('role', 'img');
  container.replaceChildren(document.importNode(root, true));
}
