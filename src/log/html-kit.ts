// What every part of the decision log's HTML page shares: its one escape for text that came from a
// spec, a plan, a persona or a person, and its style sheet (inline: the page loads nothing).

export function esc(s: unknown): string {
  const text = typeof s === "string" ? s : s == null ? "" : JSON.stringify(s);
  return text
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;")
    .replace(/'/g, "&#39;");
}

export const CSS = `
:root{--ink:#172033;--muted:#4b5567;--line:#d5dae3;--bg:#f3f5f9;--card:#fff;--ok:#1e6f46;--warn:#a34a06;--skip:#5b6473;--run:#1d4ed8;--bad:#b42318}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--ink);font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
body{margin:0;padding:28px 20px 48px}
main{max-width:1240px;margin:0 auto;display:grid;grid-template-columns:minmax(0,1fr);gap:20px}
main>*{min-width:0}
code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.88em}
code.small{font-size:.78em;color:var(--muted);font-weight:400}
.muted{color:var(--muted)}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.masthead{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:22px 26px;border-top:6px solid #24324f}
.eyebrow{margin:0;text-transform:uppercase;letter-spacing:.12em;font-size:12px;font-weight:600;color:var(--muted)}
.title-row{display:flex;align-items:center;gap:14px;flex-wrap:wrap}
h1{margin:4px 0;font-size:30px;line-height:1.2;overflow-wrap:anywhere}
h2{margin:0 0 4px;font-size:20px}
h3{margin:0;font-size:16px;overflow-wrap:anywhere}
.headline{margin:2px 0 10px;font-size:17px}
.facts{display:flex;flex-wrap:wrap;gap:6px 22px;margin:0 0 16px;color:var(--muted);font-size:14px}
.facts code,.facts strong{color:var(--ink);overflow-wrap:anywhere}
.badge{display:inline-block;margin:0;padding:4px 12px;border-radius:999px;font-weight:700;font-size:14px;color:#fff}
.badge.small{font-size:12px;padding:2px 10px}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(130px,1fr));gap:10px;margin:0}
.stat{background:#f7f8fb;border:1px solid var(--line);border-radius:10px;padding:10px 12px}
.stat dt{font-size:12px;text-transform:uppercase;letter-spacing:.08em;color:var(--muted);font-weight:600}
.stat dd{margin:2px 0 0}
.stat-value{display:block;font-size:22px;font-weight:700;line-height:1.2}
.stat-sub{display:block;font-size:12px;color:var(--muted)}
.stat[data-stat="cost"] .stat-value{font-size:18px}
.card{background:var(--card);border:1px solid var(--line);border-radius:14px;padding:20px 24px}
.hint{margin:0 0 14px;color:var(--muted);font-size:14px;max-width:90ch}
.o-complete{--c:var(--ok)}.o-overridden{--c:var(--warn)}.o-skipped{--c:var(--skip)}.o-in-progress{--c:var(--run)}.o-failed,.o-stopped{--c:var(--bad)}.o-pending{--c:#fff}
.badge{background:var(--c,#24324f)}
.badge.o-pending{color:var(--ink);border:1px dashed #8a94a6}
.timeline{list-style:none;margin:0 0 10px;padding:0;display:flex;gap:4px;flex-wrap:wrap}
.seg{flex-basis:0;min-width:min(170px,100%);background:var(--c);color:#fff;border-radius:8px;padding:10px 12px;display:flex;flex-direction:column;gap:2px;position:relative}
.seg.o-pending{color:var(--ink);border:2px dashed #8a94a6;background:#fff}
.seg-final{background-image:repeating-linear-gradient(135deg,rgba(255,255,255,.10) 0 8px,transparent 8px 16px)}
.seg-head{display:flex;justify-content:space-between;gap:8px;font-size:12px;text-transform:uppercase;letter-spacing:.06em;font-weight:700;opacity:.95}
.seg-name{font-weight:700;font-size:16px;line-height:1.25;overflow-wrap:anywhere}
.seg-meta{font-size:13px}
.marks{display:flex;flex-wrap:wrap;gap:4px;margin-top:4px}
.mark{display:inline-block;font-size:12px;font-weight:600;padding:1px 7px;border-radius:999px;background:#fff;color:var(--ink);border:1px solid #fff}
.mark-retry{color:#1e3a8a}
.mark-override{color:#7a3505;background:#fff3e6;border-color:#f1c38f}
.seg .mark{border-color:rgba(255,255,255,.7)}
.legend{list-style:none;display:flex;flex-wrap:wrap;gap:6px 18px;margin:0 0 16px;padding:0;font-size:13px;color:var(--muted)}
.swatch{display:inline-block;width:14px;height:14px;border-radius:4px;background:var(--c);vertical-align:-2px;margin-right:6px}
.swatch.o-pending{border:2px dashed #8a94a6}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%}
caption{text-align:left;font-weight:700;padding:4px 0 8px}
.data th,.data td{text-align:left;vertical-align:top;padding:7px 10px;border-bottom:1px solid var(--line);font-size:14px}
.data thead th{font-size:12px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted);border-bottom:2px solid var(--line);white-space:nowrap}
.data tbody th{font-weight:600}
.num{text-align:right!important;font-variant-numeric:tabular-nums}
.nowrap{white-space:nowrap}
.why-cell{max-width:36ch}
.dot{display:inline-block;width:10px;height:10px;border-radius:50%;background:var(--c);margin-right:6px;border:1px solid #8a94a6}
.sev{display:inline-block;font-size:12px;font-weight:600;padding:0 7px;border-radius:999px;white-space:nowrap}
.sev-blocking{background:#fde8e8;color:#8f1d1d}.sev-warning{background:#fff1dc;color:#7a3a05}.sev-note{background:#e8eef9;color:#233b6e}
.sev.zero{background:#f1f3f6;color:var(--muted);font-weight:400}
.who{display:inline-block;font-size:12px;font-weight:700;padding:1px 8px;border-radius:999px;text-transform:uppercase;letter-spacing:.04em}
.who small{text-transform:none;font-weight:400}
.who-auto{background:#e6effd;color:#1e3a8a}.who-human{background:#fdf0e1;color:#7a3a05}.who-policy{background:#efe9fb;color:#4c2a91}.who-unknown{background:#eceef2;color:#3b4250}
.who-elicited,.who-terminal{background:#e3f4e8;color:#14532d}.who-host,.who-relayed{background:#fde2e1;color:#7f1d1d}.who-piped{background:#fdf0e1;color:#7a3a05}
.who-note{display:block;font-size:11px;color:#7f1d1d;margin-top:2px}
.diagram{margin:0}
.diagram svg{display:block;max-width:100%;height:auto;margin:0 auto}
.diagram figcaption{margin-top:8px;font-size:14px;color:var(--muted)}
.diagram figcaption strong{color:#1d4ed8}
.sd-box{fill:#fff;stroke:#3b4557}
.sd-label{font:700 11.5px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#172033;letter-spacing:.03em}
.sd-node.final .sd-box{stroke:#1e6f46}
.sd-node.current .sd-box{fill:#1d4ed8;stroke:#1d4ed8}
.sd-node.current .sd-label{fill:#fff}
.sd-here{font:700 12px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#1d4ed8}
.sd-stage{font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#fff}
.sd-edge-label{font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:#3b4557;paint-order:stroke;stroke:#fff;stroke-width:4px;stroke-linejoin:round}
.sd-edge-label.sd-below{fill:#7a3a05}
.gates{display:grid;grid-template-columns:repeat(auto-fill,minmax(min(340px,100%),1fr));gap:14px}
.gate{border:1px solid var(--line);border-radius:12px;padding:14px 16px;background:#fbfcfe}
.verdict{margin:6px 0 10px;font-weight:700;font-size:14px;padding:5px 10px;border-radius:8px;background:#e7f4ec;color:#15532f}
.verdict.v-fast{background:#e6effd;color:#1e3a8a}
.verdict.v-paused{background:#fff1dc;color:#7a3a05}
.verdict.v-skipped,.verdict.v-revised{background:#f1f3f6;color:#3b4250}
.signals th,.signals td{text-align:left;padding:5px 8px;border-bottom:1px solid var(--line);font-size:13px;vertical-align:top}
.signals thead th{font-size:11px;text-transform:uppercase;letter-spacing:.05em;color:var(--muted)}
.signals tbody th{font-weight:600;width:48%}
.signals .rule,.data .rule{display:block;color:var(--muted);font-size:12px;font-weight:400}
.signals td{overflow-wrap:anywhere}
.signals tr.fired{background:#fff6f6}
.fire{color:#8f1d1d;font-weight:700;white-space:nowrap}
.why{margin:10px 0 0;font-size:14px;overflow-wrap:anywhere}
.meta{margin:8px 0 0;font-size:12px;color:var(--muted)}
.final-line{display:flex;flex-wrap:wrap;align-items:center;gap:6px;margin:0 0 10px}
tr.recovery th{color:#7a3505}
footer{max-width:1240px;margin:8px auto 0;color:var(--muted);font-size:13px}
@media (max-width:600px){body{padding:12px 10px 32px}.masthead,.card{padding:16px}h1{font-size:24px}.seg{flex-basis:100%}}
@media print{body{padding:0}.card,.masthead{break-inside:avoid}}
`;
