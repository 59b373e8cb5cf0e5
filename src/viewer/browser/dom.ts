/** The few DOM helpers every part of the page uses. Session text only ever goes in as textContent. */

/** An element the page's HTML is known to hold (src/viewer/page.ts). */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const node = document.getElementById(id);
  if (!node) throw new Error(`the page has no #${id}`);
  return node as T;
}

export function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string | null,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

export function clear(node: Node): void {
  while (node.firstChild) node.removeChild(node.firstChild);
}

/** GET one of the viewer's JSON routes; an error answer becomes an Error with the server's message. */
export async function api<T>(path: string): Promise<T> {
  const res = await fetch(path);
  return answerBody<T>({ ok: res.ok, statusText: res.statusText, body: await res.json() });
}

/** The body of one of the viewer's JSON answers; an error answer becomes an Error with its message. */
export function answerBody<T>(answer: { ok: boolean; statusText: string; body: unknown }): T {
  const body = answer.body as T & { error?: { message?: string } };
  if (!answer.ok) throw new Error(body.error?.message || answer.statusText);
  return body;
}
