/** The viewer's stylesheet: one CSS grid — session list, tree canvas, entry and context panel. */
export const VIEWER_STYLE = `
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; color: #0f172a; background: #f8fafc; }
body { display: grid; grid-template-rows: auto 1fr; grid-template-columns: 280px 1fr; }
body.export { grid-template-columns: 1fr; }
body.export #sidebar, body.export #reload { display: none; }
body.no-session header button:not(#reload):not(#sign-out), body.no-session header label { display: none; }
body:not(.service) #export, body:not(.service) #sign-out, body:not(.service) #actions { display: none; }
body.signed-out { grid-template-columns: 1fr; }
body.signed-out #sidebar, body.signed-out header button, body.signed-out header label, body.signed-out #workspace, body.signed-out #empty { display: none; }
#signin { padding: 40px; max-width: 560px; }
#signin[hidden], #find-results[hidden] { display: none; }
#credential { width: 100%; margin: 8px 0; padding: 6px 8px; border: 1px solid #cbd5e1; border-radius: 6px; font: 12px ui-monospace, monospace; }
#signin-message { color: #b91c1c; margin-top: 8px; }
#find-results { margin: 0 8px 8px; border: 1px solid #e2e8f0; border-radius: 6px; max-height: 45vh; overflow: auto; }
.find-note { padding: 6px 8px; color: #64748b; font-size: 12px; }
.find-hit { display: block; width: 100%; text-align: left; border: 0; border-top: 1px solid #f1f5f9; background: none; padding: 6px 8px; cursor: pointer; font: inherit; font-size: 12px; }
.find-hit:hover { background: #f1f5f9; }
.find-hit mark { background: #fde68a; color: inherit; }
.find-where { color: #64748b; font-size: 11px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#actions { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding-bottom: 8px; border-bottom: 1px solid #e2e8f0; }
#actions button { font: inherit; font-size: 12px; padding: 2px 8px; border: 1px solid #cbd5e1; border-radius: 6px; background: #f8fafc; cursor: pointer; }
#actions button:disabled { opacity: .5; cursor: default; }
#act-label-text { font: inherit; font-size: 12px; padding: 2px 6px; width: 140px; border: 1px solid #cbd5e1; border-radius: 6px; margin-right: 4px; }
#act-status { flex-basis: 100%; font-size: 12px; color: #166534; }
#act-status.warning { color: #b91c1c; }
header { grid-column: 1 / -1; display: flex; align-items: center; gap: 12px; padding: 6px 12px; background: #0f172a; color: #e2e8f0; }
header .brand { font-weight: 700; letter-spacing: .02em; }
header .title { display: flex; flex-direction: column; min-width: 0; flex: 1; }
#session-title { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
#session-meta, #stats { color: #94a3b8; font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
header button, header label { background: #1e293b; color: #e2e8f0; border: 1px solid #334155; border-radius: 6px; padding: 3px 9px; font: inherit; cursor: pointer; }
#sidebar { overflow: auto; border-right: 1px solid #e2e8f0; background: #fff; min-height: 0; }
#search, #find { width: calc(100% - 16px); margin: 8px; padding: 6px 8px; border: 1px solid #cbd5e1; border-radius: 6px; font: inherit; }
.group-title { padding: 8px 10px 0; font-weight: 700; text-transform: uppercase; font-size: 11px; color: #475569; }
.group-location { padding: 0 10px 6px; color: #94a3b8; font-size: 11px; word-break: break-all; }
.session-item { display: block; width: 100%; text-align: left; border: 0; border-top: 1px solid #f1f5f9; background: none; padding: 7px 10px; cursor: pointer; font: inherit; }
.session-item:hover { background: #f1f5f9; }
.session-item.active { background: #dbeafe; }
.session-name { font-weight: 600; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.session-meta { color: #64748b; font-size: 11px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
main { position: relative; min-height: 0; min-width: 0; }
#workspace { position: absolute; inset: 0; display: grid; grid-template-columns: 1fr 420px; grid-template-rows: auto 1fr; }
#workspace[hidden], #empty[hidden] { display: none; }
#issues { grid-row: 1; grid-column: 1 / -1; background: #fef3c7; border-bottom: 1px solid #fcd34d; padding: 4px 10px; }
#issues[hidden] { display: none; }
.issue { font-size: 12px; color: #92400e; }
#tree-wrap { grid-row: 2; grid-column: 1; position: relative; min-width: 0; min-height: 0; overflow: hidden; }
/* Absolutely placed so the canvas's own pixel size never feeds back into the grid's track sizes. */
#tree { position: absolute; inset: 0; width: 100%; height: 100%; display: block; cursor: grab; touch-action: none; background: #fff; }
#no-entries { position: absolute; top: 32px; left: 32px; right: 32px; font-size: 14px; color: #475569; }
#no-entries[hidden] { display: none; }
#panel { grid-row: 2; grid-column: 2; overflow: auto; border-left: 1px solid #e2e8f0; background: #fff; padding: 10px 12px; min-height: 0; }
#panel h3 { margin: 14px 0 6px; font-size: 12px; text-transform: uppercase; color: #475569; letter-spacing: .04em; }
#empty { padding: 40px; max-width: 760px; }
#legend { position: absolute; left: 8px; right: 8px; bottom: 8px; display: flex; flex-wrap: wrap; gap: 4px 12px; padding: 4px 8px; font-size: 11px; color: #475569; background: rgba(255,255,255,.92); border: 1px solid #e2e8f0; border-radius: 6px; pointer-events: none; }
#legend span { display: inline-flex; align-items: center; gap: 4px; }
#legend .dot { width: 8px; height: 8px; }
#legend .ring { background: #fff; border: 2px solid #f59e0b; }
#legend .faded { opacity: .55; }
.entry-head { display: flex; align-items: center; gap: 8px; font-size: 14px; }
.dot { width: 10px; height: 10px; border-radius: 50%; display: inline-block; background: #78716c; }
.kind-user { background: #2563eb; } .kind-assistant { background: #16a34a; } .kind-tool { background: #64748b; }
.kind-error { background: #dc2626; } .kind-meta { background: #9333ea; } .kind-compaction { background: #ea580c; border-radius: 2px; }
.kind-branchSummary { background: #0891b2; transform: rotate(45deg); border-radius: 1px; } .kind-label { background: #ca8a04; }
.badges { display: flex; flex-wrap: wrap; gap: 4px; margin: 6px 0; }
.badge { background: #e2e8f0; border-radius: 999px; padding: 1px 8px; font-size: 11px; font-weight: 600; }
.badge.leaf { background: #f59e0b; color: #fff; } .badge.path { background: #dcfce7; color: #166534; }
.badge.abandoned { background: #f1f5f9; color: #64748b; border: 1px dashed #94a3b8; } .badge.label { background: #fde68a; color: #713f12; }
.facts { display: grid; grid-template-columns: auto 1fr; gap: 2px 10px; margin: 6px 0; font-size: 12px; }
.facts dt { color: #64748b; } .facts dd { margin: 0; }
.mono, .pre { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12px; }
.pre { white-space: pre-wrap; word-break: break-word; background: #f8fafc; border: 1px solid #e2e8f0; border-radius: 4px; padding: 6px; margin: 4px 0; }
.text { white-space: pre-wrap; word-break: break-word; margin: 4px 0; }
.muted { color: #64748b; } .error-text, .warning { color: #b91c1c; } .warning { background: #fef2f2; padding: 4px 6px; border-radius: 4px; margin: 4px 0; }
.link { background: none; border: 0; padding: 0; color: #2563eb; cursor: pointer; font: inherit; text-decoration: underline; }
.raw summary, .thinking summary { cursor: pointer; color: #475569; }
.ctx-summary { font-weight: 600; margin-bottom: 6px; }
.msg { border-left: 3px solid #cbd5e1; padding: 4px 8px; margin: 6px 0; background: #f8fafc; border-radius: 0 4px 4px 0; }
.ctx-msg { cursor: pointer; content-visibility: auto; contain-intrinsic-size: auto 120px; } .ctx-msg:hover { background: #eef2ff; }
.msg .role { font-size: 11px; font-weight: 700; text-transform: uppercase; color: #475569; }
.role-user { border-color: #2563eb; } .role-assistant { border-color: #16a34a; } .role-toolResult { border-color: #64748b; }
.role-compactionSummary { border-color: #ea580c; background: #fff7ed; } .role-branchSummary { border-color: #0891b2; background: #ecfeff; }
.role-custom { border-color: #c026d3; }
.toolcall { margin: 4px 0; }
.insight-bar { display: flex; flex-wrap: wrap; gap: 6px; align-items: center; padding: 6px 0; border-bottom: 1px solid #e2e8f0; }
.insight-bar button { font: inherit; font-size: 12px; padding: 2px 8px; border: 1px solid #cbd5e1; border-radius: 6px; background: #f8fafc; cursor: pointer; }
.insight-bar button:disabled { opacity: .5; cursor: default; }
.insight-section { border-bottom: 1px solid #e2e8f0; padding: 6px 0; }
.insight-section[hidden] { display: none; }
.insight-head { display: flex; justify-content: space-between; font-size: 12px; text-transform: uppercase; color: #475569; letter-spacing: .04em; }
.insight-section h4 { margin: 10px 0 4px; font-size: 12px; color: #475569; }
.insight-table { border-collapse: collapse; font-size: 12px; width: 100%; margin: 6px 0; }
.insight-table th, .insight-table td { text-align: right; padding: 1px 6px; border-bottom: 1px solid #f1f5f9; white-space: nowrap; }
.insight-table th:first-child, .insight-table td.row-name { text-align: left; color: #475569; white-space: normal; word-break: break-word; }
.insight-line { margin: 4px 0; font-size: 12px; }
.diff-parting { margin: 6px 0; }
.diff-side { margin: 8px 0; padding-left: 8px; border-left: 3px solid #cbd5e1; }
.diff-side-head { display: flex; gap: 6px; align-items: center; }
.diff-entries { list-style: none; margin: 4px 0; padding: 0; }
.diff-entry-line { display: block; width: 100%; text-align: left; border: 0; background: none; padding: 1px 0; font: inherit; font-size: 12px; cursor: pointer; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.diff-entry-line:hover { background: #f1f5f9; }
.diff-entry-line .dot { width: 8px; height: 8px; }
.diff-tag { color: #64748b; font-family: ui-monospace, monospace; font-size: 11px; }
.diff-tools, .diff-files { font-size: 12px; margin: 4px 0; }
.diff-files { padding-left: 16px; }
`;
