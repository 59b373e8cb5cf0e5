import type { Model } from "./model.js";

/**
 * Nodes whose row texts one request asks for: a screen of rows is a page or a few, and the server
 * reads a page's lines one by one, so a small page comes back quickly (the first paint waits for it).
 */
export const TEXT_PAGE_NODES = 256;

/** Row texts of nodes `from` to `to` (excluded): the server's `/api/texts`. */
export type TextFetcher = (from: number, to: number) => Promise<{ from: number; texts: string[] }>;

/**
 * A large session's shape comes without row texts (they are most of its bytes): the painter asks
 * for the texts of the rows it draws, here, and draws again when they arrive. Each page is asked
 * for once; a page that failed stays "…" until the session is opened again.
 */
export function loadTextsOnDemand(
  model: Model,
  fetchTexts: TextFetcher,
  redraw: () => void,
  /** Texts already here (sent with the shape): the pages they cover whole are not asked for. */
  known?: { from: number; texts: string[] } | null,
): void {
  const asked = new Set<number>();
  if (known) {
    const end = known.from + known.texts.length;
    known.texts.forEach((text, i) => {
      model.texts[known.from + i] = text;
    });
    for (let page = Math.ceil(known.from / TEXT_PAGE_NODES); page * TEXT_PAGE_NODES < end; page++) {
      if (Math.min((page + 1) * TEXT_PAGE_NODES, model.n) <= end) asked.add(page);
    }
  }
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
