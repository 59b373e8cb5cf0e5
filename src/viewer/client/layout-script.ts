/**
 * Browser code: the tree layout. One row per visible node in preorder, one column per branch
 * depth, so the drawing reads like a git graph with each entry's text beside its dot. At every
 * fork the branches not taken are listed first, indented one column, and the continuation (the
 * child toward the leaf, else the newest) goes last in the parent's column: the current
 * conversation is one straight line on the left, and no edge ever crosses a row's text.
 *
 * Long linear runs (no fork, no label, not the leaf, no user message, compaction or summary)
 * fold into one expandable row. O(n) per layout, an explicit stack, no recursion.
 */
export const LAYOUT_SCRIPT = `
var MIN_RUN = 3;

/** state: { collapsed: Set<node>, expandedRuns: Set<node>, foldRuns: boolean } -> layout */
function layoutTree(model, state) {
  var rows = { node: [], run: [], col: [], parent: [], lastChild: [], hidden: [] };
  var nodeRow = new Int32Array(model.n).fill(-1);
  var maxCol = 0;
  var stackNode = [], stackParent = [], stackCol = [], stackOpen = [];
  function push(v, parentRow, col, open) {
    stackNode.push(v); stackParent.push(parentRow); stackCol.push(col); stackOpen.push(open);
  }
  function emit(v, run, parentRow, col) {
    var r = rows.node.length;
    rows.node.push(v); rows.run.push(run); rows.col.push(col); rows.parent.push(parentRow);
    rows.lastChild.push(-1);
    rows.hidden.push(state.collapsed.has(v) && run === 0 ? model.subtreeSize[v] - 1 : 0);
    if (parentRow >= 0) rows.lastChild[parentRow] = r;
    if (col > maxCol) maxCol = col;
    return r;
  }
  for (var i = model.roots.length - 1; i >= 0; i--) push(model.roots[i], -1, 0, 0);
  while (stackNode.length) {
    var v = stackNode.pop(), parentRow = stackParent.pop(), col = stackCol.pop(), open = stackOpen.pop();
    var foldable = state.foldRuns && isFoldable(model, state, v);
    if (foldable && !open) {
      var last = v, length = 1;
      while (isFoldable(model, state, model.children[last][0])) { last = model.children[last][0]; length++; }
      if (length >= MIN_RUN && !state.expandedRuns.has(v)) {
        var runRow = emit(v, length, parentRow, col);
        for (var m = v, k = 0; k < length; k++, m = model.children[m][0]) nodeRow[m] = runRow;
        push(model.children[last][0], runRow, col, 0);
        continue;
      }
    }
    var row = emit(v, 0, parentRow, col);
    nodeRow[v] = row;
    if (state.collapsed.has(v)) continue;
    pushChildren(model, v, row, col, foldable, push);
  }
  return { rows: rows, count: rows.node.length, nodeRow: nodeRow, maxCol: maxCol };
}

/** The continuation is pushed first so that it pops last: side branches are listed before it. */
function pushChildren(model, v, row, col, inRun, push) {
  var list = model.children[v];
  var main = model.mainChild[v];
  if (main >= 0) push(main, row, col, inRun ? 1 : 0);
  for (var i = list.length - 1; i >= 0; i--) if (list[i] !== main) push(list[i], row, col + 1, 0);
}

/** Whether a node may disappear into a folded run. */
function isFoldable(model, state, v) {
  if (v === undefined || v < 0) return false;
  var p = model.parent[v];
  if (p < 0 || model.children[p].length !== 1 || model.children[v].length !== 1) return false;
  if (v === model.leaf || state.collapsed.has(v) || labelOf(model, v) !== undefined) return false;
  var kind = nodeKind(model, v);
  if (kind === "user" || kind === "compaction" || kind === "branchSummary") return false;
  // The last entry before the next prompt is the turn's answer: keep it in sight.
  return nodeKind(model, model.children[v][0]) !== "user";
}

/** What a folded run holds, for its row text: "12 entries: 5 assistant, 5 tool, 2 meta". */
function runText(model, start, length) {
  if (!model.runTexts) model.runTexts = new Map();
  var key = start + ":" + length;
  if (!model.runTexts.has(key)) model.runTexts.set(key, countRun(model, start, length));
  return model.runTexts.get(key);
}

function countRun(model, start, length) {
  var counts = {};
  for (var m = start, k = 0; k < length; k++, m = model.children[m][0]) {
    var kind = nodeKind(model, m);
    counts[kind] = (counts[kind] || 0) + 1;
  }
  var parts = Object.keys(counts).sort(function (a, b) { return counts[b] - counts[a]; })
    .map(function (kind) { return counts[kind] + " " + kind; });
  return "⋯ " + length + " entries: " + parts.join(", ");
}
`;
