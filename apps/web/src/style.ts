/**
 * The page's one style sheet, served from this server at `/style.css` (the Content-Security-Policy
 * allows no other style, and no inline one). Plain, readable, light and dark.
 *
 * @module
 */
export const STYLE = `:root { color-scheme: light dark; --fg: #1d232b; --bg: #fbfaf7; --muted: #5d6670; --line: #d9d6cf; --accent: #24588f; --warn: #9a4a00; --bad: #a3222a; --ok: #2f6b2f; --tag: #ece8df; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e3dc; --bg: #16191d; --muted: #9aa3ad; --line: #343a42; --accent: #8ab8ea; --warn: #e0a060; --bad: #ef7b7b; --ok: #8fce8f; --tag: #262b31; } }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; gap: 1.5rem; align-items: baseline; padding: .7rem 1.5rem; border-bottom: 1px solid var(--line); }
.brand { font-weight: 700; letter-spacing: .04em; }
nav a { margin-right: 1rem; color: var(--accent); text-decoration: none; }
nav a[aria-current] { font-weight: 700; text-decoration: underline; }
main { padding: 1rem 1.5rem 3rem; max-width: 80rem; }
h1 { font-size: 1.4rem; margin: .6rem 0 1rem; }
h2 { font-size: 1.1rem; margin: 1.6rem 0 .6rem; border-bottom: 1px solid var(--line); padding-bottom: .2rem; }
h3 { font-size: 1rem; margin: .8rem 0 .4rem; }
a { color: var(--accent); }
table { border-collapse: collapse; width: 100%; margin: .4rem 0 1rem; }
th, td { text-align: left; vertical-align: top; padding: .35rem .5rem; border-bottom: 1px solid var(--line); }
th { font-weight: 600; color: var(--muted); font-size: .85rem; }
td.num { text-align: right; }
meter { width: 5rem; height: .8rem; vertical-align: middle; }
.confidence { white-space: nowrap; font-variant-numeric: tabular-nums; }
.slot, .source, .door, code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: .85rem; }
.door { background: var(--tag); padding: 0 .35rem; border-radius: .25rem; }
.tag { background: var(--tag); color: var(--muted); padding: 0 .35rem; border-radius: .25rem; font-size: .8rem; }
.banner { background: var(--tag); border-left: 4px solid var(--warn); padding: .5rem .8rem; margin: .3rem 0; }
.notice { border-left: 4px solid var(--ok); padding: .5rem .8rem; background: var(--tag); }
.warning, .error { color: var(--bad); }
.fix { color: var(--muted); }
.ok { color: var(--ok); }
.empty { color: var(--muted); font-style: italic; }
.filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: end; margin-bottom: .8rem; }
.filters label { display: flex; flex-direction: column; font-size: .8rem; color: var(--muted); }
input, select, button { font: inherit; padding: .25rem .5rem; border: 1px solid var(--line); border-radius: .3rem; background: var(--bg); color: var(--fg); }
button { cursor: pointer; background: var(--tag); }
button.danger, a.danger { color: var(--bad); }
form.inline { display: inline; }
form.edit { display: inline-flex; gap: .4rem; margin-left: .4rem; }
.actions { margin: .4rem 0; display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; }
.conflict { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; border: 1px solid var(--line); border-radius: .4rem; padding: .6rem; margin-bottom: .8rem; }
.conflict h3 { margin-top: 0; color: var(--muted); font-size: .85rem; text-transform: uppercase; }
article { margin-bottom: .8rem; }
.chain { padding-left: 1.2rem; }
.chain li { margin-bottom: .5rem; }
.chain .label { display: inline-block; min-width: 5.5rem; font-weight: 600; }
.chain .superseded .label, .chain .retracted .label, .chain .rejected .label { color: var(--muted); }
.chain .shown { background: var(--tag); }
.chain .dates, .chain .reason, .evidence .when, .stream .when { color: var(--muted); font-size: .85rem; }
.value.big { font-size: 1.3rem; margin: .2rem 0 .6rem; }
dl { display: grid; grid-template-columns: 8rem 1fr; gap: .2rem .8rem; }
dt { color: var(--muted); }
.stream { list-style: none; padding: 0; }
.stream li { padding: .4rem 0; border-bottom: 1px solid var(--line); }
.stream .assistant .text { color: var(--muted); }
.stream .who { font-weight: 600; margin: 0 .4rem; }
.days a { margin-right: .6rem; }
.days a[aria-current] { font-weight: 700; }
.small { font-size: .8rem; margin-left: .5rem; }
.verdict { font-weight: 600; }
tr.check-fail td:first-child, tr.run-failed td:nth-child(4) { color: var(--bad); font-weight: 600; }
tr.check-warn td:first-child { color: var(--warn); font-weight: 600; }
`;
