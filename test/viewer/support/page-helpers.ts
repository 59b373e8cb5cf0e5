import type { Page } from "playwright-core";
import type { ViewerHooks as Hooks } from "../../../src/viewer/browser/test-hooks.js";

// The page's own types: a hook the page changes is a compile error here, not a silent mismatch.
export type { RowStyle } from "../../../src/viewer/browser/row-style.js";

/** Calls one of the page's test hooks (the facts the canvas was drawn from). */
export function hook<K extends keyof Hooks>(
  page: Page,
  name: K,
  ...args: Hooks[K] extends (...a: infer A) => unknown ? A : never
): Promise<Hooks[K] extends (...a: never[]) => infer R ? Awaited<R> : Hooks[K]> {
  return page.evaluate(
    ([n, a]) => {
      const viewer = (window as unknown as { __viewer: Record<string, unknown> }).__viewer;
      const member = viewer[n as string];
      return typeof member === "function"
        ? (member as (...x: unknown[]) => unknown).apply(viewer, a as unknown[])
        : member;
    },
    [name, args] as const,
  ) as never;
}

/** Waits until the context panel shows the context at `entryId`. */
export async function waitForContext(page: Page, entryId: string): Promise<void> {
  await page.waitForFunction((id) => {
    const box = document.getElementById("context");
    return box?.getAttribute("aria-busy") === "false" && box.getAttribute("data-entry-id") === id;
  }, entryId);
}

/** Clicks an entry's mark on the canvas, as a user would (scrolling it into view first). */
export async function clickNode(page: Page, id: string): Promise<void> {
  const row = await hook(page, "reveal", id);
  if (row < 0) throw new Error(`entry ${id} is not in the tree`);
  const point = await hook(page, "clientPoint", id);
  const box = await page.locator("#tree").boundingBox();
  if (!point || !box || point.y < box.y + 10 || point.y > box.y + box.height - 10) {
    await hook(page, "center", id);
    await page.waitForTimeout(50);
  }
  const target = (await hook(page, "clientPoint", id)) as { x: number; y: number };
  await page.mouse.click(target.x, target.y);
}

/** The colour of one canvas pixel at page coordinates: [r, g, b, a]. */
export function pixelAt(page: Page, x: number, y: number): Promise<number[]> {
  return page.evaluate(
    ([px, py]) => {
      const canvas = document.getElementById("tree") as HTMLCanvasElement;
      const rect = canvas.getBoundingClientRect();
      const dpr = canvas.width / rect.width;
      const ctx = canvas.getContext("2d") as CanvasRenderingContext2D;
      return Array.from(
        ctx.getImageData(Math.round((px - rect.left) * dpr), Math.round((py - rect.top) * dpr), 1, 1).data,
      );
    },
    [x, y] as const,
  );
}

/** The entry ids of the messages the context panel lists, in order. */
export function contextEntryIds(page: Page): Promise<string[]> {
  return page.$$eval("#context-messages .ctx-msg", (els) =>
    els.map((e) => e.getAttribute("data-entry-id") ?? ""),
  );
}

/** Resolves after the page has drawn at least one more frame. */
export function nextFrame(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );
}
