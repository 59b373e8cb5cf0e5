/**
 * The local page's first request, made before its script is parsed: a tiny inline script at the
 * top of the page asks for the shape of the session the address links to (`#session=K`), so the
 * server reads the session while the browser parses and runs the page's script (tens of
 * milliseconds at best, more on a busy machine), and the browser reads and parses the answer as
 * soon as it arrives. The page's script then takes that answer (data.ts) instead of asking again.
 * No Node here: the page's bundle imports the names.
 */

/** Where the head script leaves its request for the page's script. */
export const SHAPE_PREFETCH_GLOBAL = "__sessiontreeShape";

/** What the head script leaves: the key it asked for and the answer on its way, parsed. */
export interface ShapePrefetch {
  key: string;
  answer: Promise<PrefetchedAnswer>;
}

/** An answer of the viewer's routes, read: whether it succeeded, its status text and its JSON. */
export interface PrefetchedAnswer {
  ok: boolean;
  statusText: string;
  body: unknown;
}

/**
 * The head script itself (allowed by its hash in the page's Content-Security-Policy). A failed
 * fetch is left for the page's script to report, as its own request would have.
 */
export const SHAPE_PREFETCH_SCRIPT =
  `(()=>{const k=new URLSearchParams(location.hash.slice(1)).get("session");` +
  `if(!k)return;const a=fetch("api/shape?key="+encodeURIComponent(k))` +
  `.then(r=>r.json().then(b=>({ok:r.ok,statusText:r.statusText,body:b})));a.catch(()=>{});` +
  `window.${SHAPE_PREFETCH_GLOBAL}={key:k,answer:a}})()`;
