/**
 * Browser code: draws a layout on a canvas. Only the rows inside the viewport are drawn (plus the
 * few edges that pass through it), so the cost of a frame does not depend on the session's size.
 */
export const RENDER_SCRIPT = `
var ROW_H = 24, COL_W = 18, PAD = 20, LEGEND_H = 44;
var COLORS = {
  user: "#2563eb", assistant: "#16a34a", tool: "#64748b", error: "#dc2626", meta: "#9333ea",
  compaction: "#ea580c", branchSummary: "#0891b2", custom: "#a8a29e", customMessage: "#c026d3",
  label: "#ca8a04", other: "#78716c", run: "#64748b",
};

function rowX(layout, r) { return PAD + layout.rows.col[r] * COL_W; }
function rowY(r) { return PAD + r * ROW_H + ROW_H / 2; }

/** How a row is drawn; tests read the same answer the canvas used. */
function rowStyle(view, r) {
  var model = view.model, layout = view.layout, v = layout.rows.node[r], run = layout.rows.run[r];
  var kind = run ? "run" : nodeKind(model, v);
  return {
    id: model.entries[v].id, kind: kind, run: run,
    text: run ? runText(model, v, run) : nodeText(model, v),
    onPath: model.onPath[v] === 1, dimmed: model.onPath[v] !== 1,
    leaf: !run && v === model.leaf, label: run ? undefined : labelOf(model, v),
    selected: !run && v === view.selected, hidden: layout.rows.hidden[r],
    marked: kind === "compaction" || kind === "branchSummary",
  };
}

function createRenderer(canvas, onClick, onDoubleClick) {
  var view = { model: null, layout: null, selected: -1, scale: 1, ox: 0, oy: 0, frame: null };
  var ctx = canvas.getContext("2d");
  var pending = false;
  function invalidate() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(function () { pending = false; draw(); });
  }
  function size() {
    var rect = canvas.getBoundingClientRect();
    return { w: Math.max(1, rect.width), h: Math.max(1, rect.height) };
  }
  function draw() {
    var t0 = performance.now(), s = size(), dpr = window.devicePixelRatio || 1;
    if (canvas.width !== Math.round(s.w * dpr) || canvas.height !== Math.round(s.h * dpr)) {
      canvas.width = Math.round(s.w * dpr); canvas.height = Math.round(s.h * dpr);
    }
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.clearRect(0, 0, s.w, s.h);
    if (!view.layout) return;
    ctx.setTransform(dpr * view.scale, 0, 0, dpr * view.scale, dpr * view.ox, dpr * view.oy);
    var top = -view.oy / view.scale, bottom = (s.h - view.oy) / view.scale;
    var from = Math.max(0, Math.floor((top - PAD) / ROW_H) - 1);
    var to = Math.min(view.layout.count - 1, Math.ceil((bottom - PAD) / ROW_H) + 1);
    var detailed = view.scale >= 0.45;
    for (var r = from; r <= to; r++) drawBand(r, s);
    drawPassingEdges(from, to);
    for (var e = from; e <= to; e++) if (view.layout.rows.parent[e] >= 0) drawEdge(view.layout.rows.parent[e], e);
    for (var d = from; d <= to; d++) drawRow(d, detailed);
    view.frame = { from: from, to: to, drawn: Math.max(0, to - from + 1), ms: performance.now() - t0 };
  }
  function drawBand(r, s) {
    var st = rowStyle(view, r);
    var fill = st.selected ? "rgba(37,99,235,0.16)" : st.kind === "compaction" ? "rgba(234,88,12,0.10)"
      : st.kind === "branchSummary" ? "rgba(8,145,178,0.10)" : null;
    if (!fill) return;
    ctx.fillStyle = fill;
    ctx.fillRect(-view.ox / view.scale, PAD + r * ROW_H, s.w / view.scale, ROW_H);
  }
  /** Edges from rows above the viewport to rows below it: they run through every ancestor's column. */
  function drawPassingEdges(from, to) {
    var rows = view.layout.rows;
    for (var a = rows.parent[from]; a >= 0; a = rows.parent[a]) {
      if (rows.lastChild[a] > to) drawEdge(a, rows.lastChild[a]);
    }
  }
  function drawEdge(p, r) {
    var layout = view.layout, onPath = view.model.onPath[layout.rows.node[r]] === 1;
    var px = rowX(layout, p), py = rowY(p), cx = rowX(layout, r), cy = rowY(r);
    ctx.beginPath();
    ctx.moveTo(px, py);
    if (cx === px) ctx.lineTo(cx, cy);
    else { ctx.lineTo(px, cy - ROW_H / 2); ctx.quadraticCurveTo(px, cy, cx, cy); }
    ctx.setLineDash(onPath ? [] : [4, 3]);
    ctx.strokeStyle = onPath ? "#334155" : "#b6bfcc";
    ctx.lineWidth = Math.max(onPath ? 2 : 1.2, 1 / view.scale);
    ctx.stroke();
    ctx.setLineDash([]);
  }
  function drawRow(r, detailed) {
    var st = rowStyle(view, r), x = rowX(view.layout, r), y = rowY(r);
    ctx.globalAlpha = st.dimmed ? 0.35 : 1;
    if (detailed) {
      drawMark(st, x, y);
      drawText(st, x + 14, y);
    } else drawOverviewMark(st, x, y);
    ctx.globalAlpha = 1;
    if (detailed && st.selected) drawSelection(st, x, y);
  }
  /** Zoomed far out: marks keep a visible size on screen, text is left out. */
  function drawOverviewMark(st, x, y) {
    var k = Math.max(5, 2.5 / view.scale);
    ctx.fillStyle = COLORS[st.kind] || COLORS.other;
    ctx.fillRect(x - k, y - k, 2 * k, 2 * k);
    if (st.leaf || st.selected) {
      ctx.strokeStyle = st.leaf ? "#f59e0b" : "#1d4ed8";
      ctx.lineWidth = 3 / view.scale;
      ctx.strokeRect(x - 3 * k, y - 3 * k, 6 * k, 6 * k);
    }
  }
  function drawMark(st, x, y) {
    ctx.fillStyle = COLORS[st.kind] || COLORS.other;
    ctx.beginPath();
    if (st.kind === "compaction") ctx.rect(x - 6, y - 6, 12, 12);
    else if (st.kind === "branchSummary" || st.kind === "meta") {
      var k = st.kind === "meta" ? 4.5 : 7;
      ctx.moveTo(x, y - k); ctx.lineTo(x + k, y); ctx.lineTo(x, y + k); ctx.lineTo(x - k, y); ctx.closePath();
    } else if (st.run) ctx.rect(x - 3, y - 8, 6, 16);
    else ctx.arc(x, y, st.kind === "user" ? 6 : 5, 0, Math.PI * 2);
    ctx.fill();
    if (st.leaf) {
      ctx.beginPath(); ctx.arc(x, y, 10, 0, Math.PI * 2);
      ctx.strokeStyle = "#f59e0b"; ctx.lineWidth = 3; ctx.stroke();
    }
  }
  /** At full strength even on a faded row: the selection must always be easy to find. */
  function drawSelection(st, x, y) {
    ctx.beginPath(); ctx.arc(x, y, st.leaf ? 13 : 9, 0, Math.PI * 2);
    ctx.strokeStyle = "#1d4ed8"; ctx.lineWidth = 2; ctx.stroke();
  }
  function drawText(st, x, y) {
    ctx.font = "12px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    if (st.leaf) x = pill(x, y, "LEAF", "#f59e0b", "#fff");
    if (st.label) x = pill(x, y, st.label, "#fde68a", "#713f12");
    if (st.kind === "compaction") x = pill(x, y, "COMPACTION", "#ea580c", "#fff");
    if (st.kind === "branchSummary") x = pill(x, y, "BRANCH SUMMARY", "#0891b2", "#fff");
    ctx.fillStyle = st.run ? "#475569" : st.kind === "error" ? "#b91c1c" : "#0f172a";
    ctx.font = (st.kind === "user" ? "600 " : st.run ? "italic " : "") + "12px system-ui, sans-serif";
    var text = st.kind === "user" ? "user: " + st.text : st.text;
    ctx.fillText(text.length > 160 ? text.slice(0, 159) + "…" : text, x, y);
    if (st.hidden) pill(x + Math.min(ctx.measureText(text).width, 1000) + 8, y, "+" + st.hidden + " hidden", "#e2e8f0", "#334155");
  }
  function pill(x, y, text, bg, fg) {
    ctx.font = "600 11px system-ui, sans-serif";
    var w = ctx.measureText(text).width + 10;
    ctx.fillStyle = bg;
    ctx.beginPath(); ctx.roundRect(x, y - 8, w, 16, 8); ctx.fill();
    ctx.fillStyle = fg; ctx.fillText(text, x + 5, y + 0.5);
    ctx.font = "12px system-ui, sans-serif";
    return x + w + 6;
  }
  function rowAt(clientX, clientY) {
    if (!view.layout) return -1;
    var rect = canvas.getBoundingClientRect();
    var wx = (clientX - rect.left - view.ox) / view.scale, wy = (clientY - rect.top - view.oy) / view.scale;
    var r = Math.floor((wy - PAD) / ROW_H);
    if (r < 0 || r >= view.layout.count || wx < rowX(view.layout, r) - COL_W / 2) return -1;
    return r;
  }
  installPointer(canvas, view, invalidate, rowAt, onClick, onDoubleClick);
  window.addEventListener("resize", invalidate);
  if (window.ResizeObserver) new ResizeObserver(invalidate).observe(canvas);
  return {
    view: view, invalidate: invalidate, rowAt: rowAt,
    setData: function (model, layout, selected) { view.model = model; view.layout = layout; view.selected = selected; invalidate(); },
    setSelected: function (v) { view.selected = v; invalidate(); },
    resetView: function () { view.scale = 1; view.ox = 0; view.oy = 0; invalidate(); },
    zoomAt: function (factor, cx, cy) { zoomAt(view, factor, cx, cy); invalidate(); },
    /** Brings row r to the middle, without scrolling past the top or leaving the bottom empty. */
    center: function (r) {
      // LEGEND_H: the legend overlays the bottom of the canvas; the last row stays above it.
      var s = size(), total = (PAD * 2 + view.layout.count * ROW_H) * view.scale + LEGEND_H;
      var oy = s.h / 2 - rowY(r) * view.scale;
      view.oy = total <= s.h ? 0 : Math.min(0, Math.max(s.h - total, oy));
      view.ox = Math.min(0, s.w / 3 - rowX(view.layout, r) * view.scale);
      invalidate();
    },
    fit: function () {
      var s = size(), h = PAD * 2 + view.layout.count * ROW_H;
      view.scale = Math.max(0.05, Math.min(1, s.h / h)); view.ox = 12; view.oy = 0; invalidate();
    },
    /** Where row r's mark is, in page coordinates (tests click there). */
    clientPoint: function (r) {
      var rect = canvas.getBoundingClientRect();
      return { x: rect.left + view.ox + rowX(view.layout, r) * view.scale, y: rect.top + view.oy + rowY(r) * view.scale };
    },
  };
}

function zoomAt(view, factor, cx, cy) {
  var next = Math.max(0.05, Math.min(3, view.scale * factor));
  view.ox = cx - (cx - view.ox) * (next / view.scale);
  view.oy = cy - (cy - view.oy) * (next / view.scale);
  view.scale = next;
}

function installPointer(canvas, view, invalidate, rowAt, onClick, onDoubleClick) {
  var drag = null;
  canvas.addEventListener("pointerdown", function (ev) {
    drag = { x: ev.clientX, y: ev.clientY, ox: view.ox, oy: view.oy, moved: false };
    canvas.setPointerCapture(ev.pointerId);
  });
  canvas.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
    if (drag.moved) { view.ox = drag.ox + dx; view.oy = drag.oy + dy; canvas.style.cursor = "grabbing"; invalidate(); }
  });
  canvas.addEventListener("pointerup", function (ev) {
    var wasClick = drag && !drag.moved;
    drag = null; canvas.style.cursor = "";
    if (wasClick) onClick(rowAt(ev.clientX, ev.clientY));
  });
  canvas.addEventListener("dblclick", function (ev) { onDoubleClick(rowAt(ev.clientX, ev.clientY)); });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var rect = canvas.getBoundingClientRect();
    if (ev.ctrlKey || ev.metaKey) zoomAt(view, Math.exp(-ev.deltaY * 0.002), ev.clientX - rect.left, ev.clientY - rect.top);
    else { view.ox -= ev.shiftKey ? ev.deltaY : ev.deltaX; view.oy -= ev.shiftKey ? 0 : ev.deltaY; }
    invalidate();
  }, { passive: false });
}
`;
