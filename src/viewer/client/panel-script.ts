/**
 * Browser code: the side panel — the selected entry, readable and raw, and the context the model
 * would see with the leaf there. Session text only ever reaches the page through textContent.
 */
export const PANEL_SCRIPT = String.raw`
var CONTEXT_SHOWN = 200, TEXT_SHOWN = 1200;

function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function clear(node) { while (node.firstChild) node.removeChild(node.firstChild); }

/** Long text folds after TEXT_SHOWN characters behind a "show all" toggle. */
function longText(text, className) {
  var box = el("div", className || "text");
  var s = String(text);
  box.textContent = s.length > TEXT_SHOWN ? s.slice(0, TEXT_SHOWN) + "…" : s;
  if (s.length > TEXT_SHOWN) {
    var more = el("button", "link", "show all " + s.length + " characters");
    more.addEventListener("click", function () { box.textContent = s; });
    box.appendChild(document.createElement("br"));
    box.appendChild(more);
  }
  return box;
}

function jumpLink(id, onJump) {
  var a = el("button", "link mono", id);
  a.addEventListener("click", function () { onJump(id); });
  return a;
}

function renderEntry(box, model, v, onJump) {
  clear(box);
  var e = model.entries[v];
  var head = el("div", "entry-head");
  var kind = nodeKind(model, v);
  head.appendChild(el("span", "dot kind-" + kind));
  head.appendChild(el("strong", null, e.type === "message" ? "message · " + (e.message && e.message.role) : e.type));
  box.appendChild(head);
  var badges = el("div", "badges");
  badges.id = "entry-badges";
  if (v === model.leaf) badges.appendChild(el("span", "badge leaf", "current leaf"));
  badges.appendChild(el("span", model.onPath[v] ? "badge path" : "badge abandoned", model.onPath[v] ? "on the leaf's path" : "abandoned branch"));
  if (labelOf(model, v) !== undefined) badges.appendChild(el("span", "badge label", "label: " + labelOf(model, v)));
  if (model.children[v].length > 1) badges.appendChild(el("span", "badge", model.children[v].length + " branches"));
  box.appendChild(badges);
  var facts = el("dl", "facts");
  fact(facts, "id", el("span", "mono", e.id)).id = "entry-id";
  fact(facts, "parent", e.parentId ? jumpLink(e.parentId, onJump) : el("span", "muted", "none (root)"));
  fact(facts, "time", el("span", null, e.timestamp));
  box.appendChild(facts);
  box.appendChild(entryBody(e, onJump));
  var raw = el("details", "raw");
  raw.appendChild(el("summary", null, "raw JSON"));
  raw.appendChild(longText(JSON.stringify(e, null, 2), "pre"));
  box.appendChild(raw);
}

function fact(dl, name, valueNode) {
  dl.appendChild(el("dt", null, name));
  var dd = el("dd");
  dd.appendChild(valueNode);
  dl.appendChild(dd);
  return dd;
}

function entryBody(e, onJump) {
  var body = el("div", "entry-body");
  if (e.type === "message") body.appendChild(messageView(e.message || {}, null));
  else if (e.type === "compaction") {
    body.appendChild(el("div", "muted", e.tokensBefore + " tokens before · keeps from "));
    body.lastChild.appendChild(jumpLink(e.firstKeptEntryId, onJump));
    body.appendChild(longText(e.summary));
  } else if (e.type === "branch_summary") {
    body.appendChild(el("div", "muted", "summary of the branch left at "));
    body.lastChild.appendChild(jumpLink(e.fromId, onJump));
    body.appendChild(longText(e.summary));
  } else if (e.type === "label") {
    body.appendChild(el("div", null, (e.label ? "sets label “" + e.label + "” on " : "clears the label of ")));
    body.lastChild.appendChild(jumpLink(e.targetId, onJump));
  } else body.appendChild(el("div", "muted", describeEntry(e).text));
  return body;
}

/** One message as the model gets it: role, text, thinking, tool calls and results. */
function messageView(m, entryId) {
  var box = el("div", "msg role-" + m.role);
  box.setAttribute("data-role", String(m.role));
  if (entryId) box.setAttribute("data-entry-id", entryId);
  box.appendChild(el("div", "role", roleTitle(m)));
  if (m.role === "compactionSummary" || m.role === "branchSummary") box.appendChild(longText(m.summary));
  else if (m.role === "bashExecution") box.appendChild(longText("$ " + m.command + "\n" + (m.output || ""), "pre"));
  else if (typeof m.content === "string") box.appendChild(longText(m.content));
  else if (Array.isArray(m.content)) m.content.forEach(function (b) { box.appendChild(blockView(b)); });
  if (m.errorMessage) box.appendChild(el("div", "error-text", m.errorMessage));
  return box;
}

function roleTitle(m) {
  if (m.role === "assistant") return "assistant · " + m.provider + "/" + m.model + (m.stopReason ? " · " + m.stopReason : "");
  if (m.role === "toolResult") return "tool result · " + m.toolName + (m.isError ? " · error" : "");
  if (m.role === "compactionSummary") return "compaction summary · " + m.tokensBefore + " tokens before";
  if (m.role === "branchSummary") return "branch summary · from " + m.fromId;
  if (m.role === "custom") return "custom · " + m.customType;
  return String(m.role);
}

function blockView(b) {
  if (!b || typeof b !== "object") return el("div", "muted", String(b));
  if (b.type === "text") return longText(b.text);
  if (b.type === "image") return el("div", "muted", "[image " + (b.mimeType || "") + "]");
  if (b.type === "thinking") {
    var d = el("details", "thinking");
    d.appendChild(el("summary", null, "thinking"));
    d.appendChild(longText(b.thinking));
    return d;
  }
  if (b.type === "toolCall") {
    var call = el("div", "toolcall");
    call.appendChild(el("div", "mono", "→ " + b.name));
    call.appendChild(longText(JSON.stringify(b.arguments, null, 2), "pre"));
    return call;
  }
  return longText(JSON.stringify(b, null, 2), "pre");
}

/**
 * ctx: the answer of /api/context (or the export's port of it). A server answer may hold only the
 * latest messages (ctx.omitted earlier ones left out); loadAll then fetches the whole context.
 */
function renderContext(box, ctx, onJump, loadAll) {
  clear(box);
  var summary = el("div", "ctx-summary");
  summary.id = "context-summary";
  var modelName = ctx.model ? ctx.model.provider + "/" + ctx.model.modelId : "no model";
  var omitted = ctx.omitted || 0;
  summary.textContent = (ctx.messages.length + omitted) + " messages · " + modelName + " · thinking " + ctx.thinkingLevel +
    " · path of " + ctx.pathLength + " entries";
  box.appendChild(summary);
  if (ctx.compaction) {
    var note = el("div", "muted", "compaction " + ctx.compaction.entryId + " in force, kept from " + ctx.compaction.firstKeptEntryId);
    box.appendChild(note);
  }
  ctx.warnings.forEach(function (w) { box.appendChild(el("div", "warning", w.code + ": " + w.message)); });
  var list = el("div", "ctx-list");
  list.id = "context-messages";
  box.appendChild(list);
  if (omitted > 0 && loadAll) {
    var fetchEarlier = el("button", "link", "show the " + omitted + " earlier messages");
    fetchEarlier.addEventListener("click", function () { fetchEarlier.disabled = true; loadAll(); });
    box.insertBefore(fetchEarlier, list);
  }
  var start = ctx.showAll ? 0 : Math.max(0, ctx.messages.length - CONTEXT_SHOWN);
  if (start > 0) {
    var earlier = el("button", "link", "show the " + start + " earlier messages");
    earlier.addEventListener("click", function () { earlier.remove(); fillMessages(list, ctx, 0, start, onJump, list.firstChild); });
    box.insertBefore(earlier, list);
  }
  fillMessages(list, ctx, start, ctx.messages.length, onJump, null);
}

function fillMessages(list, ctx, from, to, onJump, before) {
  var frag = document.createDocumentFragment();
  for (var i = from; i < to; i++) {
    var view = messageView(ctx.messages[i], ctx.messageEntryIds[i]);
    view.classList.add("ctx-msg");
    view.title = "entry " + ctx.messageEntryIds[i] + " (click to show it in the tree)";
    view.addEventListener("click", jumpHandler(ctx.messageEntryIds[i], onJump));
    frag.appendChild(view);
  }
  list.insertBefore(frag, before);
}

function jumpHandler(id, onJump) {
  return function (ev) {
    if (ev.target && (ev.target.tagName === "BUTTON" || ev.target.tagName === "SUMMARY")) return;
    onJump(id);
  };
}
`;
