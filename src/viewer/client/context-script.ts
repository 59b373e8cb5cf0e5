/**
 * Browser code: the context projection for the single-file export, which has no server to ask.
 * A line-for-line port of core's `projectContext` (src/core/context.ts, pi's buildSessionContext);
 * test/viewer/context-port.test.ts checks that both agree on every node of real sessions.
 * The live viewer asks the server instead, which runs core's function itself.
 */
export const CONTEXT_SCRIPT = `
function pathTo(model, v) {
  var path = [];
  for (var x = v, guard = model.n; x >= 0 && guard-- >= 0; x = model.parent[x]) path.push(model.entries[x]);
  return path.reverse();
}

function projectContextJs(path) {
  var thinkingLevel = "off", modelRef = null, compactionIndex = -1, extensionState = {};
  path.forEach(function (e, i) {
    if (e.type === "thinking_level_change") thinkingLevel = e.thinkingLevel;
    else if (e.type === "model_change") modelRef = { provider: e.provider, modelId: e.modelId };
    else if (e.type === "message" && e.message.role === "assistant") modelRef = { provider: e.message.provider, modelId: e.message.model };
    else if (e.type === "compaction") compactionIndex = i;
    else if (e.type === "custom" && e.customType !== LEAF_MARKER) extensionState[e.customType] = e.data;
  });
  var out = { messages: [], ids: [] }, warnings = [], compaction = null;
  function push(m, id) { out.messages.push(m); out.ids.push(id); }
  function add(e) {
    if (e.type === "message") push(e.message, e.id);
    else if (e.type === "custom_message") {
      push({ role: "custom", customType: e.customType, content: e.content, display: e.display, details: e.details, timestamp: Date.parse(e.timestamp) }, e.id);
    } else if (e.type === "branch_summary" && e.summary) {
      push({ role: "branchSummary", summary: e.summary, fromId: e.fromId, timestamp: Date.parse(e.timestamp) }, e.id);
    }
  }
  if (compactionIndex < 0) path.forEach(add);
  else {
    var c = path[compactionIndex];
    push({ role: "compactionSummary", summary: c.summary, tokensBefore: c.tokensBefore, timestamp: Date.parse(c.timestamp) }, c.id);
    var kept = path.findIndex(function (e, i) { return i < compactionIndex && e.id === c.firstKeptEntryId; });
    compaction = { entryId: c.id, firstKeptEntryId: c.firstKeptEntryId, keptFound: kept >= 0 };
    if (kept < 0) {
      warnings.push({ code: "first_kept_not_on_path", severity: "warning", entryId: c.id,
        message: "Compaction " + c.id + " keeps from " + c.firstKeptEntryId + ", which is not on the path before it; only the summary and later entries are in context" });
    }
    if (kept >= 0) for (var i = kept; i < compactionIndex; i++) add(path[i]);
    for (var j = compactionIndex + 1; j < path.length; j++) add(path[j]);
  }
  return { messages: out.messages, thinkingLevel: thinkingLevel, model: modelRef, extensionState: extensionState,
    compaction: compaction, messageEntryIds: out.ids, warnings: warnings };
}

/** The same shape the server's /api/context answers. */
function localContextAt(model, v) {
  var path = pathTo(model, v);
  var ctx = projectContextJs(path);
  ctx.entryId = model.entries[v].id;
  ctx.pathLength = path.length;
  return ctx;
}
`;
