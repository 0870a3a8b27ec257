"""The players' page of `fudge serve`: the view (cli.web.view) drawn as cards, with its own CSS and script.

Phone first: one column of compact cards (name and side, the wound track as boxes or a word, points and
conditions), so a 390-pixel screen shows four fighters; wider screens lay the cards in a grid. Whose turn
it is is the largest line on the page. Three switches, kept in the browser (localStorage): "details" shows
the mechanics (hidden by default), "TV" sizes the type to the screen's width for a screen across the
table (also `?tv=1`, `?large`, `fudge serve --large`), "dark" overrides the device's colour scheme
(followed by default, `prefers-color-scheme`).

Nothing is fetched from elsewhere: the CSS and the script are inline and the page's Content-Security-Policy
(`POLICY`) allows those two blocks alone, by their hashes, and connections to the server itself. Every
text is escaped (cli.web.html.h); the page carries no style attribute and no inline handler.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from fudge_combat.cli.web.html import h

# Side colours: white text on each is at least 4.5:1 (WCAG AA; tests/test_board_page.py computes it),
# in light and dark mode alike.
PALETTE = ("#1d4ed8", "#b91c1c", "#15803d", "#7e22ce", "#a15c07", "#0e7490", "#be185d", "#475569")

CSS = """
:root{--bg:#f6f5f1;--fg:#1b1b1f;--dim:#5d5d66;--card:#fff;--line:#d9d6cc;--box:#8a8790;--on:#b91c1c;
--w1:#8a5a00;--w2:#c2410c;--w3:#b91c1c;--w4:#7f1d1d;--ok:#166534;--turn:#1b1b1f;--turnfg:#fff;color-scheme:light}
:root[data-theme=dark]{--bg:#121317;--fg:#ecebe6;--dim:#a3a3ad;--card:#1d1f25;--line:#363944;--box:#8d8f9a;
--on:#f87171;--w1:#facc15;--w2:#fb923c;--w3:#f87171;--w4:#fecaca;--ok:#4ade80;--turn:#ecebe6;--turnfg:#121317;
color-scheme:dark}
@media (prefers-color-scheme:dark){:root:not([data-theme=light]){--bg:#121317;--fg:#ecebe6;--dim:#a3a3ad;
--card:#1d1f25;--line:#363944;--box:#8d8f9a;--on:#f87171;--w1:#facc15;--w2:#fb923c;--w3:#f87171;--w4:#fecaca;
--ok:#4ade80;--turn:#ecebe6;--turnfg:#121317;color-scheme:dark}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.35 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{max-width:72rem;margin:0 auto;padding:.5em .6em 1em}
.top{display:flex;flex-wrap:wrap;align-items:baseline;gap:.2em .8em}
h1{font-size:1.15em;margin:0;overflow-wrap:anywhere}.where{color:var(--dim)}
.bar{margin-left:auto;display:flex;gap:.8em;font-size:.85em;color:var(--dim)}
.bar label{display:flex;align-items:center;gap:.2em;cursor:pointer;min-height:1.8em}.bar input{width:1em;height:1em;margin:0}
.turn{font-size:1.6em;font-weight:800;margin:.35em 0;padding:.2em .6em;border-radius:8px;background:var(--turn);
color:var(--turnfg);overflow-wrap:anywhere}
.note{font-weight:700;margin:.3em 0;color:var(--w3)}
.cards{display:grid;gap:.45em;grid-template-columns:repeat(auto-fill,minmax(19rem,1fr))}
.card{background:var(--card);border:1px solid var(--line);border-left:.45em solid var(--c);border-radius:8px;
padding:.35em .6em .4em;min-width:0}
.card.now{outline:3px solid var(--fg);outline-offset:-1px}
.card.gone{background:transparent}
.name{display:flex;align-items:center;gap:.5em;margin:0;font-size:1.08em}
.name b{overflow-wrap:anywhere;min-width:0}.name .mark{font-size:1.1em}
.side{margin-left:auto;flex:none;max-width:45%;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;
background:var(--c);color:#fff;font-size:.75em;font-weight:600;padding:.05em .45em;border-radius:99px}
.hp{display:flex;flex-wrap:wrap;align-items:center;gap:.15em .6em;margin:.2em 0}
.lvl{font-weight:700;white-space:nowrap}.pen{font-weight:700;white-space:nowrap}
.ok{color:var(--ok)}.wound1{color:var(--w1)}.wound2{color:var(--w2)}.wound3{color:var(--w3)}.wound4,.out{color:var(--w4)}
.track{display:flex;flex-wrap:wrap;gap:.1em .5em}
.row{display:inline-flex;align-items:center;gap:2px;white-space:nowrap}
.row abbr{font-size:.72em;color:var(--dim);text-decoration:none;margin-right:1px}
.bx{display:inline-block;width:.8em;height:.8em;border:2px solid var(--box);border-radius:2px}
.bx.on{background:var(--on);border-color:var(--on)}
.count{font-size:.8em}
.meta{margin:0;color:var(--dim);font-size:.85em;overflow-wrap:anywhere}
.cond{display:flex;flex-wrap:wrap;gap:.25em;list-style:none;margin:.2em 0 0;padding:0}
.cond li{border:1px solid var(--line);border-radius:99px;padding:0 .45em;font-size:.8em;overflow-wrap:anywhere}
.cond:empty{display:none}
h2{font-size:1em;margin:.8em 0 .3em}
.story{list-style:none;margin:0;padding:0;background:var(--card);border:1px solid var(--line);border-radius:8px}
.story li{padding:.35em .6em;border-top:1px solid var(--line);overflow-wrap:anywhere}
.story li:first-child{border-top:0}.story p{margin:0}
.story .undone p{text-decoration:line-through;color:var(--dim)}
.mech{display:none;color:var(--dim);font:.78em/1.35 ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;
overflow-wrap:anywhere;margin:.15em 0 0}
.details .mech{display:block}
.status{color:var(--dim);font-size:.8em;margin-top:.6em}
body.tv{font-size:1.9vw}body.tv main{max-width:none;padding:1vw 2vw}body.tv .cards{grid-template-columns:repeat(auto-fill,minmax(30vw,1fr))}
body.tv .turn{font-size:1.7em}body.tv h1{font-size:1.2em}
@media (max-width:30rem){body:not(.tv){font-size:15px}.turn{font-size:1.35em}.bar{margin-left:0}}
"""
CSS += "".join(f".s{index}{{--c:{colour}}}" for index, colour in enumerate(PALETTE))

SCRIPT = """
const $ = (id) => document.getElementById(id), root = document.documentElement, body = document.body;
const live = $("live"), conn = $("conn"), query = new URLSearchParams(location.search);
const kept = (k) => { try { return localStorage.getItem("fudge-" + k); } catch (e) { return null; } };
const keep = (k, v) => { try { localStorage.setItem("fudge-" + k, v); } catch (e) {} };
const dark = matchMedia("(prefers-color-scheme: dark)");
function flag(name, on) { body.classList.toggle(name, on); $("t-" + name).checked = on; }
function theme(t) { if (t === "dark" || t === "light") root.dataset.theme = t; else delete root.dataset.theme;
  $("t-dark").checked = root.dataset.theme ? root.dataset.theme === "dark" : dark.matches; }
flag("details", query.get("details") === "1" || kept("details") === "1");
flag("tv", query.get("tv") !== "0" && (body.classList.contains("tv") || (query.has("tv") || query.has("large"))
  || kept("tv") === "1"));
theme(query.get("theme") || kept("theme"));
dark.addEventListener("change", () => theme(root.dataset.theme));
for (const name of ["details", "tv"]) $("t-" + name).addEventListener("change", (e) => {
  flag(name, e.target.checked); keep(name, e.target.checked ? "1" : "0"); });
$("t-dark").addEventListener("change", (e) => { const t = e.target.checked ? "dark" : "light";
  theme(t === (dark.matches ? "dark" : "light") ? "" : t); keep("theme", root.dataset.theme || ""); });
function listen() {
  const source = new EventSource(location.pathname.replace(/\\/?$/, "/") + "events");
  source.onmessage = (m) => { const d = JSON.parse(m.data); live.innerHTML = d.html; document.title = d.title;
    body.dataset.seq = d.seq; conn.textContent = "live · event " + d.seq; };
  source.onerror = () => { conn.textContent = "reconnecting…";  // a refused stream (503) is not retried: retry
    if (source.readyState === EventSource.CLOSED) setTimeout(listen, 5000); };
}
listen();
"""


def _hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


# The page's policy: its own CSS and script by hash, the event stream from its own server, nothing else.
POLICY = (f"default-src 'none'; script-src {_hash(SCRIPT)}; style-src {_hash(CSS)}; connect-src 'self'; "
          "img-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": POLICY, "X-Content-Type-Options": "nosniff", "Referrer-Policy": "no-referrer",
           "Cache-Control": "no-store"}


def live_html(board: dict[str, Any], story: list[dict[str, Any]], details: list[str]) -> str:
    """The part of the page the event stream replaces: the head, whose turn, the cards, the latest commands."""
    where = " · ".join(board["where"])
    parts = ['<header class="top">', f'<h1>{h(board["fight"])}</h1>',
             f'<span class="where">{h(where)}</span></header>' if where else "</header>"]
    if board["turn"]:
        parts.append(f'<p class="turn" id="turn" role="status">▶ {h(board["turn"])}</p>')
    if board["note"]:
        parts.append(f'<p class="note">{h(board["note"])}</p>')
    parts.append('<section class="cards" id="board" aria-label="fighters">')
    parts += [card_html(fighter, board["points"]) for fighter in board["fighters"]]
    parts.append("</section><h2>Latest</h2>")
    parts.append(story_html(story))
    if details:
        parts.append(f'<p class="mech">{" · ".join(h(line) for line in details)}</p>')
    return "".join(parts)


def card_html(fighter: dict[str, Any], points: str) -> str:
    """One fighter: name and side, the wounds (boxes and level, or the word), points, conditions."""
    now = fighter["current"]
    out = fighter.get("out") or fighter["word"] in ("down", "out")
    cls = f"card s{int(fighter['colour'])}" + (" now" if now else "") + (" gone" if out else "")
    mark = '<span class="mark" aria-hidden="true">▶</span>' if now else ""
    head = (f'<h3 class="name">{mark}<b>{h(fighter["name"])}</b>'
            f'<span class="side" title="side {h(fighter["side"])}">{h(fighter["side"])}</span></h3>')
    meta = [f"{points} points {int(fighter['points'])}"]
    if fighter["acted"]:
        meta.append(fighter["acted"])
    if fighter.get("declared"):
        meta.append(fighter["declared"])
    conditions = "".join(f"<li>{h(text)}</li>" for text in fighter["conditions"])
    mechanics = f'<p class="mech">{h(" · ".join(fighter["details"]))}</p>' if fighter["details"] else ""
    current = ' aria-current="true"' if now else ""
    return (f'<article class="{cls}"{current}>{head}<div class="hp">{wounds_html(fighter)}</div>'
            f'<p class="meta">{h(" · ".join(meta))}</p><ul class="cond">{conditions}</ul>{mechanics}</article>')


WORD_CLASS = {"unhurt": "ok", "hurt": "wound2", "badly hurt": "wound3", "down": "wound4", "out": "out"}


def wounds_html(fighter: dict[str, Any]) -> str:
    """Exact: the level, the penalty and each row of boxes; in words: the word alone (no boxes were sent)."""
    if fighter["shown"] == "words":
        return f'<span class="lvl {WORD_CLASS[fighter["word"]]}">{h(fighter["word"])}</span>'
    level = fighter["out"] or fighter["level"]
    parts = [f'<span class="lvl {h(fighter["severity"])}">{h(level)}</span>']
    if fighter["penalty"]:
        penalty = int(fighter["penalty"])
        parts.append(f'<span class="pen {h(fighter["severity"])}">{"+" if penalty > 0 else "−"}{abs(penalty)}</span>')
    rows = []
    for row in fighter["track"]:
        filled, boxes = int(row["filled"]), int(row["boxes"])
        short = row.get("short") or row["label"][0]
        label = f'<abbr title="{h(row["label"])}">{h(short)}</abbr>'
        if boxes > 8:
            drawn = f'<span class="count">{filled}/{boxes}</span>'
        else:
            drawn = '<span class="bx on"></span>' * filled + '<span class="bx"></span>' * max(0, boxes - filled)
        rows.append(f'<span class="row" role="img" aria-label="{h(row["label"])}: {filled} of {boxes}">{label}{drawn}</span>')
    parts.append(f'<span class="track">{"".join(rows)}</span>')
    return "".join(parts)


def story_html(story: list[dict[str, Any]]) -> str:
    """The latest commands, newest first: plain sentences, their mechanics under the details switch."""
    items = []
    for step in story:
        mechanics = "".join(f'<span class="mech">{h(line)}</span>' for line in step["mechanics"])
        if not step["said"]:  # dice or declarations alone: nothing a player needs unless he asks for details
            items.append(f'<li class="mech">{mechanics}</li>')
            continue
        said = " ".join(step["said"]) + (" (taken back)" if step["undone"] else "")
        cls = ' class="undone"' if step["undone"] else ""
        items.append(f"<li{cls}><p>{h(said)}</p>{mechanics}</li>")
    return f'<ol class="story" id="events">{"".join(items) or "<li>nothing yet</li>"}</ol>'


def page_html(payload: dict[str, object], tv: bool) -> str:
    """The whole page: the switches, the live part, and the script that keeps it live."""
    body = ' class="tv"' if tv else ""
    switches = ('<nav class="bar" aria-label="display">'
                '<label><input type="checkbox" id="t-details"> details</label>'
                '<label><input type="checkbox" id="t-tv"> TV</label>'
                '<label><input type="checkbox" id="t-dark"> dark</label></nav>')
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<meta name="color-scheme" content="light dark"><meta name="referrer" content="no-referrer">'
            f"<title>{h(str(payload['title']))}</title><style>{CSS}</style></head>"
            f'<body{body} data-seq="{int(str(payload["seq"]))}"><main>{switches}<div id="live">{payload["html"]}</div>'
            f'<p class="status" id="conn">event {int(str(payload["seq"]))}</p></main>'
            f"<script>{SCRIPT}</script></body></html>")
