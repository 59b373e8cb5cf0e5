/**
 * Browser code (plain ES2020, no build step): the session index the layout and the panels read.
 * Nodes are small integers; per-node facts live in flat arrays so 100k entries stay cheap.
 * Written without backticks or `${` so it can live in this template string.
 */
export const MODEL_SCRIPT = String.raw`
var LEAF_MARKER = "sessiontree.leaf";

/** Index a session: { entries, leafId, labels } -> model. O(n), no recursion. */
function buildModel(session) {
  var all = session.entries || [];
  var referenced = new Set();
  for (var i = 0; i < all.length; i++) if (all[i].parentId != null) referenced.add(all[i].parentId);
  // A leaf marker nobody built on is bookkeeping, not history: keep it out, as core does.
  var seenIds = new Set();
  var entries = all.filter(function (e) {
    if (seenIds.has(e.id)) return false; // the reader reports duplicates; the first one wins
    seenIds.add(e.id);
    return !(e.type === "custom" && e.customType === LEAF_MARKER && !referenced.has(e.id));
  });
  var n = entries.length;
  var indexOf = new Map();
  entries.forEach(function (e, i) { if (!indexOf.has(e.id)) indexOf.set(e.id, i); });
  var parent = new Int32Array(n).fill(-1);
  var children = new Array(n);
  for (var k = 0; k < n; k++) children[k] = [];
  var roots = [];
  for (var j = 0; j < n; j++) {
    var p = entries[j].parentId == null ? undefined : indexOf.get(entries[j].parentId);
    if (p === undefined || p === j) roots.push(j);
    else { parent[j] = p; children[p].push(j); }
  }
  var time = entries.map(function (e) { return Date.parse(e.timestamp) || 0; });
  children.forEach(function (list) {
    if (list.length > 1) list.sort(function (a, b) { return time[a] - time[b] || a - b; });
  });
  var reach = markReachable(roots, children, n);
  // Entries in a parent cycle are reached from no root: cut each cycle at its first entry.
  for (var c = 0; c < n; c++) {
    if (reach.seen[c]) continue;
    var siblings = children[parent[c]];
    siblings.splice(siblings.indexOf(c), 1);
    parent[c] = -1;
    roots.push(c);
    markFrom(c, children, reach);
  }
  var leaf = session.leafId == null ? -1 : (indexOf.has(session.leafId) ? indexOf.get(session.leafId) : -1);
  var onPath = new Uint8Array(n);
  for (var x = leaf, guard = n; x >= 0 && guard-- > 0; x = parent[x]) onPath[x] = 1;
  var labels = session.labels || {};
  var model = {
    entries: entries, n: n, indexOf: indexOf, parent: parent, children: children, roots: roots,
    leaf: leaf, onPath: onPath, labels: labels, mainChild: new Int32Array(n).fill(-1),
    subtreeSize: subtreeSizes(reach.order, parent, n), kinds: new Array(n), texts: new Array(n),
  };
  for (var m = 0; m < n; m++) {
    var list = children[m];
    if (list.length === 0) continue;
    var main = list[list.length - 1];
    for (var q = 0; q < list.length; q++) if (onPath[list[q]]) main = list[q];
    model.mainChild[m] = main;
  }
  return model;
}

function markReachable(roots, children, n) {
  var reach = { seen: new Uint8Array(n), order: [] };
  for (var r = 0; r < roots.length; r++) markFrom(roots[r], children, reach);
  return reach;
}

function markFrom(start, children, reach) {
  var stack = [start];
  while (stack.length) {
    var v = stack.pop();
    if (reach.seen[v]) continue;
    reach.seen[v] = 1;
    reach.order.push(v);
    var list = children[v];
    for (var i = 0; i < list.length; i++) if (!reach.seen[list[i]]) stack.push(list[i]);
  }
}

/** Entries in each subtree (itself included), from a parents-before-children order. */
function subtreeSizes(order, parent, n) {
  var size = new Int32Array(n).fill(1);
  for (var i = order.length - 1; i >= 0; i--) {
    var v = order[i];
    if (parent[v] >= 0) size[parent[v]] += size[v];
  }
  return size;
}

function labelOf(model, i) {
  return model.labels[model.entries[i].id];
}

function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map(function (b) {
    if (!b || typeof b !== "object") return "";
    if (b.type === "text") return b.text || "";
    if (b.type === "image") return "[image]";
    return "";
  }).filter(Boolean).join(" ");
}

function oneLine(text, max) {
  var s = String(text == null ? "" : text).replace(/\s+/g, " ").trim();
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

function toolCallText(block) {
  var args = block.arguments || {};
  var first = Object.keys(args)[0];
  var preview = first === undefined ? "" : oneLine(typeof args[first] === "string" ? args[first] : JSON.stringify(args[first]), 60);
  return (block.name || "tool") + "(" + preview + ")";
}

/** kind (drives colour and shape) and one line of text for a node. */
function describeEntry(e) {
  if (e.type === "message") return describeMessage(e.message || {});
  switch (e.type) {
    case "thinking_level_change": return { kind: "meta", text: "thinking → " + e.thinkingLevel };
    case "model_change": return { kind: "meta", text: "model → " + e.provider + "/" + e.modelId };
    case "compaction": return { kind: "compaction", text: "Compaction (" + e.tokensBefore + " tokens before): " + oneLine(e.summary, 200) };
    case "branch_summary": return { kind: "branchSummary", text: "Branch summary: " + oneLine(e.summary, 200) };
    case "custom": return { kind: "custom", text: "custom " + e.customType };
    case "custom_message": return { kind: "customMessage", text: e.customType + ": " + oneLine(contentText(e.content), 200) };
    case "label": return { kind: "label", text: (e.label ? "label “" + e.label + "”" : "label cleared") + " → " + e.targetId };
    case "session_info": return { kind: "meta", text: "name: " + (e.name || "(cleared)") };
    default: return { kind: "other", text: String(e.type) };
  }
}

function describeMessage(m) {
  switch (m.role) {
    case "user": return { kind: "user", text: oneLine(contentText(m.content), 200) || "(empty)" };
    case "assistant": {
      var blocks = Array.isArray(m.content) ? m.content : [];
      var text = oneLine(contentText(blocks), 200);
      var calls = blocks.filter(function (b) { return b && b.type === "toolCall"; }).map(toolCallText);
      if (m.stopReason === "error" || m.stopReason === "aborted") {
        return { kind: "error", text: m.stopReason + ": " + oneLine(m.errorMessage || text, 160) };
      }
      var parts = [];
      if (text) parts.push(text);
      if (calls.length) parts.push("→ " + calls.join(", "));
      if (!parts.length && blocks.some(function (b) { return b && b.type === "thinking"; })) parts.push("(thinking only)");
      return { kind: "assistant", text: parts.join("  ") || "(empty)" };
    }
    case "toolResult":
      return { kind: m.isError ? "error" : "tool", text: (m.isError ? "✗ " : "✓ ") + m.toolName + ": " + oneLine(contentText(m.content), 160) };
    case "bashExecution": return { kind: "tool", text: "$ " + oneLine(m.command, 160) };
    case "custom": return { kind: "customMessage", text: m.customType + ": " + oneLine(contentText(m.content), 160) };
    default: return { kind: "other", text: String(m.role) };
  }
}

function nodeKind(model, i) {
  if (model.kinds[i] === undefined) {
    var d = describeEntry(model.entries[i]);
    model.kinds[i] = d.kind;
    model.texts[i] = d.text;
  }
  return model.kinds[i];
}

function nodeText(model, i) {
  nodeKind(model, i);
  return model.texts[i];
}
`;
