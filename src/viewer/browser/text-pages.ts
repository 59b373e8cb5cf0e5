import type { Model } from "./model.js";

/** Nodes whose row texts one request asks for: a screen of rows is one or two pages. */
export const TEXT_PAGE_NODES = 1024;

/** Row texts of nodes `from` to `to` (excluded): the server's `/api/texts`. */
export type TextFetcher = (from: number, to: number) => Promise<{ from: number; texts: string[] }>;

/**
 * A large session's shape comes without row texts (they are most of its bytes): the painter asks
 * for the texts of the rows it draws, here, and draws again when they arrive. Each page is asked
 * for once; a page that failed stays "…" until the session is opened again.
 */
export function loadTextsOnDemand(model: Model, fetchTexts: TextFetcher, redraw: () => void): void {
  const asked = new Set<number>();
  model.wantText = (v) => {
    const page = Math.floor(v / TEXT_PAGE_NODES);
    if (asked.has(page)) return;
    asked.add(page);
    fetchTexts(page * TEXT_PAGE_NODES, (page + 1) * TEXT_PAGE_NODES).then(
      ({ from, texts }) => {
        texts.forEach((text, i) => {
          model.texts[from + i] = text;
        });
        redraw();
      },
      () => {},
    );
  };
}
