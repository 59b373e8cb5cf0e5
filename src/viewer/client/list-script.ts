/**
 * Browser code: start-up. The live viewer lists sessions (grouped by source, filterable) and opens
 * the one named in the URL hash; the single-file export opens its inlined session directly.
 */
export const LIST_SCRIPT = `
var listState = { sessions: [], origins: [] };

function showSession(key) {
  $("workspace").hidden = false;
  $("session-title").textContent = "Loading…";
  Array.prototype.forEach.call(document.querySelectorAll(".session-item"), function (item) {
    item.classList.toggle("active", item.getAttribute("data-key") === key);
  });
  // Read before opening: selecting the leaf rewrites the hash.
  var link = new URLSearchParams(location.hash.slice(1));
  var wanted = link.get("session") === key ? link.get("entry") : null;
  return api("api/session?key=" + encodeURIComponent(key)).then(function (session) {
    openSession(session);
    if (wanted && app.model.indexOf.has(wanted)) jumpTo(wanted);
  }, function (err) {
    $("session-title").textContent = "Could not open this session: " + err.message;
  });
}

function renderSessionList() {
  var box = $("session-list"), filter = $("search").value.trim().toLowerCase();
  clear(box);
  var shown = listState.sessions.filter(function (s) {
    return !filter || [s.name, s.firstMessage, s.cwd, s.id].join(" ").toLowerCase().indexOf(filter) >= 0;
  });
  listState.origins.forEach(function (origin) {
    var mine = shown.filter(function (s) { return s.source === origin.source; });
    var group = el("div", "group");
    group.appendChild(el("div", "group-title", origin.source + " · " + mine.length));
    group.appendChild(el("div", "group-location mono", origin.location));
    mine.forEach(function (s) { group.appendChild(sessionItem(s)); });
    box.appendChild(group);
  });
}

function sessionItem(s) {
  var item = el("button", "session-item");
  item.setAttribute("data-key", s.key);
  item.setAttribute("data-session-id", s.id);
  item.appendChild(el("div", "session-name", s.name || s.firstMessage || s.id));
  var meta = s.messageCount + " messages · " + new Date(s.modifiedAt).toLocaleString() + " · " + s.cwd;
  item.appendChild(el("div", "session-meta", meta));
  item.title = s.location;
  item.addEventListener("click", function () {
    location.hash = "session=" + encodeURIComponent(s.key);
  });
  return item;
}

function renderEmpty() {
  $("workspace").hidden = true;
  var box = $("empty");
  box.hidden = false;
  clear(box);
  box.appendChild(el("h2", null, "No sessions found"));
  box.appendChild(el("p", null, "The viewer looked in these places:"));
  var list = el("ul");
  listState.origins.forEach(function (o) {
    list.appendChild(el("li", null, o.source + ": " + o.location + (o.exists ? " (no session files there)" : " (does not exist)")));
  });
  box.appendChild(list);
  box.appendChild(el("p", null, "Sessions appear here once an agent writes them (pi, or sessiontree's SessionManager). " +
    "Point the viewer elsewhere with: sessiontree view --root DIR --pi DIR"));
}

function routeFromHash() {
  var key = new URLSearchParams(location.hash.slice(1)).get("session");
  if (key && (!app.session || app.session.key !== key)) return showSession(key);
  if (!listState.sessions.length) return Promise.resolve();
  if (!key && !app.session) {
    var first = listState.sessions[0].key;
    history.replaceState(null, "", "#session=" + encodeURIComponent(first));
    return showSession(first);
  }
  return Promise.resolve();
}

function loadList() {
  return Promise.all([api("api/origins"), api("api/sessions")]).then(function (answers) {
    listState.origins = answers[0].origins;
    listState.sessions = answers[1].sessions;
    renderSessionList();
    document.body.classList.toggle("no-session", !listState.sessions.length);
    if (!listState.sessions.length) renderEmpty();
  });
}

/** Sessions grow while an agent runs: re-read the list and the open session, keeping the selection. */
function reload() {
  var keep = app.selected >= 0 ? app.model.entries[app.selected].id : null;
  return loadList().then(function () {
    if (!app.session || !listState.sessions.length) return routeFromHash();
    return api("api/session?key=" + encodeURIComponent(app.session.key)).then(function (session) {
      openSession(session);
      if (keep && app.model.indexOf.has(keep)) jumpTo(keep);
    });
  });
}

function bootServer() {
  loadList().then(function () {
    window.addEventListener("hashchange", routeFromHash);
    return routeFromHash();
  }).then(function () { window.__viewer.ready = true; }, function (err) {
    $("empty").hidden = false;
    $("empty").textContent = "The viewer could not list sessions: " + err.message;
    window.__viewer.ready = true;
  });
  $("search").addEventListener("input", renderSessionList);
  $("reload").addEventListener("click", function () { reload(); });
}

if (BOOT.mode === "export") {
  document.body.classList.add("export");
  openSession(BOOT.session);
  window.__viewer.ready = true;
} else {
  bootServer();
}
`;
