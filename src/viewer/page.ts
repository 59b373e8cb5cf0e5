import type { ViewerBoot } from "./boot.js";
import { pageScript } from "./page-script.js";
import { SHAPE_PREFETCH_SCRIPT } from "./shape-prefetch.js";
import { VIEWER_STYLE } from "./style.js";

/** The live viewer's page: everything inline, data from the JSON routes. */
export function renderViewerPage(): string {
  return renderViewerDocument({ mode: "server" }, "sessiontree viewer");
}

/**
 * The service's page (`sessiontree serve`, at `/`): the same page, which signs in and then asks the
 * API for everything as that user. It holds no data, so it is served to anyone.
 */
export function renderServicePage(): string {
  return renderViewerDocument({ mode: "service" }, "sessiontree");
}

/**
 * One self-contained HTML document: styles, the page's script (src/viewer/browser/, bundled: see
 * page-script.ts) and, for an export, the session inlined.
 */
export function renderViewerDocument(boot: ViewerBoot, title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${VIEWER_STYLE}</style>
${boot.mode === "server" ? `<script>${SHAPE_PREFETCH_SCRIPT}</script>\n` : ""}</head>
<body>
<header>
  <span class="brand">sessiontree</span>
  <div class="title"><span id="session-title"></span><span id="session-meta"></span></div>
  <span id="stats"></span>
  <label title="Fold long linear runs into one row"><input type="checkbox" id="fold-runs" checked> fold runs</label>
  <button id="reload" title="Read the sessions again (they grow while an agent runs)">reload</button>
  <button id="export" title="Download the session as a pi JSONL file">export</button>
  <button id="sign-out" title="Forget the credential in this tab">sign out</button>
  <button id="goto-leaf" title="Select the current leaf (l)">leaf</button>
  <button id="fit" title="Fit the tree (f)">fit</button>
  <button id="zoom-out" title="Zoom out (-)">−</button>
  <button id="zoom-in" title="Zoom in (+)">+</button>
</header>
<aside id="sidebar">
  <input id="find" type="search" placeholder="Search messages (Enter)" aria-label="Search the text of every session">
  <div id="find-results" hidden></div>
  <input id="search" type="search" placeholder="Filter sessions"><div id="session-list"></div>
</aside>
<main>
  <div id="signin" hidden>
    <h2>Sign in</h2>
    <p>An API key (<span class="mono">sessiontree keys create</span>) or a token of this server's sign-in.
    It stays in this tab only, until you sign out or close it.</p>
    <input id="credential" type="password" autocomplete="off" spellcheck="false" aria-label="API key or token" placeholder="st_…">
    <button id="signin-button">sign in</button>
    <div id="signin-message" role="alert"></div>
  </div>
  <div id="empty" hidden></div>
  <div id="workspace" hidden>
    <div id="issues" hidden></div>
    <div id="tree-wrap">
      <canvas id="tree" aria-label="Session tree. Arrow keys move the selection, left and right fold."></canvas>
      <div id="no-entries" hidden></div>
      <div id="legend">
        <span><i class="dot kind-user"></i>user</span><span><i class="dot kind-assistant"></i>assistant</span>
        <span><i class="dot kind-tool"></i>tool</span><span><i class="dot kind-error"></i>error</span>
        <span><i class="dot kind-meta"></i>model/thinking</span><span><i class="dot kind-compaction"></i>compaction</span>
        <span><i class="dot kind-branchSummary"></i>branch summary</span><span><i class="dot ring"></i>leaf</span>
        <span class="faded">faded, dashed: off the leaf's path</span>
        <span>click: select · double-click: fold · drag: pan · ctrl+wheel: zoom · ↑↓ ←→</span>
      </div>
    </div>
    <div id="panel">
      <div id="actions" role="group" aria-label="Change the session">
        <button id="act-checkout" title="Move the leaf here: the next message continues from this entry">check out here</button>
        <button id="act-fork" title="Copy the path root → this entry into a new session">fork from here</button>
        <span class="label-edit"><input id="act-label-text" type="text" maxlength="1024" placeholder="label (empty clears)"><button id="act-label">set label</button></span>
        <div id="act-status" role="status"></div>
      </div>
      <h3>Entry</h3><div id="entry"></div><h3>Context the model sees from here</h3><div id="context"></div></div>
  </div>
</main>
<script type="application/json" id="boot">${inlineJson(boot)}</script>
<script>${pageScript()}</script>
</body>
</html>
`;
}

/**
 * JSON that is safe inside a `<script>` element: `<` never appears raw (no `</script>` or `<!--`
 * breakout), and the two line separators JavaScript once treated as newlines are escaped.
 */
export function inlineJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, "\\u003c")
    .replace(/>/g, "\\u003e")
    .replace(/&/g, "\\u0026")
    .replace(/\u2028/g, "\\u2028")
    .replace(/\u2029/g, "\\u2029");
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}
