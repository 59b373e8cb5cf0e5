/**
 * Browser code: the page itself — the session list (live viewer), opening a session, selection,
 * folding, keyboard, and the hooks the browser tests read (`window.__viewer`).
 */
export const APP_SCRIPT = `
var BOOT = JSON.parse(document.getElementById("boot").textContent);
var $ = function (id) { return document.getElementById(id); };
var app = { session: null, model: null, layout: null, state: null, selected: -1, token: 0, timings: {} };
var renderer = createRenderer($("tree"), onRowClick, onRowDoubleClick);

function api(path) {
  return fetch(path).then(function (res) {
    return res.json().then(function (body) {
      if (!res.ok) throw new Error((body.error && body.error.message) || res.statusText);
      return body;
    });
  });
}

function openSession(session) {
  var t0 = performance.now();
  app.session = session;
  app.model = buildModel(session);
  app.state = { collapsed: new Set(), expandedRuns: new Set(), foldRuns: $("fold-runs").checked };
  app.timings.modelMs = performance.now() - t0;
  app.selected = -1;
  renderer.resetView();
  relayout();
  $("session-title").textContent = session.name || firstPrompt(app.model) || session.header.id;
  $("session-meta").textContent = app.model.n + " entries · " + session.header.cwd + " · " + session.source;
  renderIssues(session.issues || []);
  $("empty").hidden = true;
  $("workspace").hidden = false;
  var start = app.model.leaf >= 0 ? app.model.leaf : app.model.n - 1;
  if (start >= 0) select(start, true); else clear($("entry"));
}

function firstPrompt(model) {
  for (var i = 0; i < model.n; i++) if (nodeKind(model, i) === "user") return nodeText(model, i).slice(0, 80);
  return "";
}

function relayout() {
  var t0 = performance.now();
  app.layout = layoutTree(app.model, app.state);
  app.timings.layoutMs = performance.now() - t0;
  renderer.setData(app.model, app.layout, app.selected);
  $("stats").textContent = app.layout.count + " rows · " + app.model.n + " entries";
}

/** Makes a node visible: unfolds the run holding it and opens collapsed ancestors. */
function reveal(v) {
  var changed = false;
  for (var a = app.model.parent[v]; a >= 0; a = app.model.parent[a]) {
    if (app.state.collapsed.delete(a)) changed = true;
  }
  if (changed) relayout();
  var row = app.layout.nodeRow[v];
  if (row >= 0 && app.layout.rows.run[row]) {
    app.state.expandedRuns.add(app.layout.rows.node[row]);
    relayout();
  }
  return app.layout.nodeRow[v];
}

function select(v, center) {
  if (v < 0 || v >= app.model.n) return;
  var row = reveal(v);
  app.selected = v;
  renderer.setSelected(v);
  var frame = renderer.view.frame;
  if (center || !frame || row < frame.from + 1 || row > frame.to - 1) renderer.center(row);
  var id = app.model.entries[v].id;
  renderEntry($("entry"), app.model, v, jumpTo);
  if (BOOT.mode === "server") history.replaceState(null, "", "#session=" + encodeURIComponent(app.session.key) + "&entry=" + encodeURIComponent(id));
  loadContext(v);
}

function loadContext(v) {
  var token = ++app.token, box = $("context"), t0 = performance.now();
  box.setAttribute("aria-busy", "true");
  var done = function (ctx) {
    if (token !== app.token) return;
    app.timings.contextMs = performance.now() - t0;
    renderContext(box, ctx, jumpTo, loadAll);
    box.setAttribute("aria-busy", "false");
    box.setAttribute("data-entry-id", ctx.entryId);
  };
  if (BOOT.mode === "export") { done(localContextAt(app.model, v)); return; }
  // The panel shows the latest messages first: ask for those only, the rest on request.
  var url = "api/context?key=" + encodeURIComponent(app.session.key) + "&at=" + encodeURIComponent(app.model.entries[v].id);
  var failed = function (err) {
    if (token !== app.token) return;
    clear(box);
    box.appendChild(el("div", "warning", "Could not load the context: " + err.message +
      " (if the file changed since it was opened, press reload)"));
    box.setAttribute("aria-busy", "false");
  };
  function loadAll() {
    box.setAttribute("aria-busy", "true");
    api(url).then(function (ctx) { ctx.showAll = true; done(ctx); }, failed);
  }
  api(url + "&tail=" + CONTEXT_SHOWN).then(done, failed);
}

function jumpTo(id) {
  var v = app.model.indexOf.get(id);
  if (v !== undefined) select(v, false);
}

function onRowClick(row) {
  if (row < 0) return;
  var v = app.layout.rows.node[row];
  if (app.layout.rows.run[row]) { app.state.expandedRuns.add(v); relayout(); }
  select(v, false);
}

function onRowDoubleClick(row) {
  if (row < 0 || app.layout.rows.run[row]) return;
  toggleCollapse(app.layout.rows.node[row]);
}

function toggleCollapse(v) {
  if (app.model.children[v].length === 0) return;
  if (!app.state.collapsed.delete(v)) app.state.collapsed.add(v);
  relayout();
}

function renderIssues(issues) {
  var box = $("issues");
  clear(box);
  box.hidden = issues.length === 0;
  if (!issues.length) return;
  var d = el("details");
  d.appendChild(el("summary", null, issues.length + " problem(s) reading this session"));
  issues.forEach(function (i) {
    d.appendChild(el("div", "issue", i.severity + " · " + i.code + (i.line ? " · line " + i.line : "") + " · " + i.message));
  });
  box.appendChild(d);
}

function moveSelection(delta) {
  if (!app.layout || app.selected < 0) return;
  var row = app.layout.nodeRow[app.selected] + delta;
  if (row < 0 || row >= app.layout.count) return;
  var v = app.layout.rows.node[row];
  if (app.layout.rows.run[row] && delta < 0) {
    // Moving up into a run lands on its last entry, next to where we came from.
    for (var k = 1; k < app.layout.rows.run[row]; k++) v = app.model.children[v][0];
  }
  select(v, false);
}

document.addEventListener("keydown", function (ev) {
  if (!app.model || ev.target.tagName === "INPUT") return;
  var keys = {
    ArrowDown: function () { moveSelection(1); }, j: function () { moveSelection(1); },
    ArrowUp: function () { moveSelection(-1); }, k: function () { moveSelection(-1); },
    ArrowLeft: function () { if (!app.state.collapsed.has(app.selected)) toggleCollapse(app.selected); },
    ArrowRight: function () { if (app.state.collapsed.has(app.selected)) toggleCollapse(app.selected); },
    l: function () { if (app.model.leaf >= 0) select(app.model.leaf, true); },
    f: function () { renderer.fit(); }, "+": function () { zoomButton(1.25); }, "-": function () { zoomButton(0.8); },
  };
  if (keys[ev.key]) { ev.preventDefault(); keys[ev.key](); }
});

function zoomButton(factor) {
  var rect = $("tree").getBoundingClientRect();
  renderer.zoomAt(factor, rect.width / 2, rect.height / 2);
}

$("zoom-in").addEventListener("click", function () { zoomButton(1.25); });
$("zoom-out").addEventListener("click", function () { zoomButton(0.8); });
$("fit").addEventListener("click", function () { renderer.fit(); });
$("goto-leaf").addEventListener("click", function () { if (app.model && app.model.leaf >= 0) select(app.model.leaf, true); });
$("fold-runs").addEventListener("change", function () {
  if (!app.model) return;
  app.state.foldRuns = $("fold-runs").checked;
  app.state.expandedRuns.clear();
  relayout();
  if (app.selected >= 0) select(app.selected, true);
});

/** What the browser tests read: the same facts the canvas was drawn from. */
window.__viewer = {
  ready: false,
  sessionKey: function () { return app.session && app.session.key; },
  selectedId: function () { return app.selected >= 0 ? app.model.entries[app.selected].id : null; },
  rowOf: function (id) { var v = app.model.indexOf.get(id); return v === undefined ? -1 : app.layout.nodeRow[v]; },
  reveal: function (id) { var v = app.model.indexOf.get(id); return v === undefined ? -1 : reveal(v); },
  center: function (id) { var row = this.reveal(id); if (row >= 0) renderer.center(row); return row; },
  clientPoint: function (id) { var row = this.rowOf(id); return row < 0 ? null : renderer.clientPoint(row); },
  style: function (id) { var row = this.rowOf(id); return row < 0 ? null : rowStyle(renderer.view, row); },
  rowCount: function () { return app.layout ? app.layout.count : 0; },
  frame: function () { return renderer.view.frame; },
  viewport: function () { return { scale: renderer.view.scale, ox: renderer.view.ox, oy: renderer.view.oy }; },
  timings: function () { return app.timings; },
  open: function (key) { return showSession(key); },
};
`;
