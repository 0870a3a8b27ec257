"""HTML pieces the web pages share: the escaping (`h`), the kinds' colours (`CSS`, the join page's) and the last
commands as a list (`events_html`). The players' board itself is cli.web.cards (its cards, from cli.web.view).
"""

from __future__ import annotations

from html import escape

from fudge_combat.cli.terminal import safe
from fudge_combat.cli.web.story import Step

# The colours of the kinds (cli.style.STYLES), light and dark (prefers-color-scheme), and the layout:
# one column on a phone, large type for a TV (`.large`, `fudge serve --large` or ?large).
CSS = """
:root { --bg: #fbfaf7; --fg: #1d1d1f; --dim: #6b6b70; --accent: #0b5cad; --hit: #8a5a00; --ok: #1e7a34;
  --w1: #9a6b00; --w2: #c2410c; --w3: #b91c1c; --w4: #7f1d1d; --out-bg: #b91c1c; --out-fg: #fff;
  --card: #ffffff; --line: #dedbd2; --turn-bg: #1d1d1f; --turn-fg: #fbfaf7; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #15161a; --fg: #e9e7e1; --dim: #9a9aa3; --accent: #6cb4ff; --hit: #f5c451; --ok: #5fd07a;
    --w1: #f5c451; --w2: #fb923c; --w3: #f87171; --w4: #fca5a5; --out-bg: #b91c1c; --out-fg: #fff;
    --card: #1e2026; --line: #33363f; --turn-bg: #e9e7e1; --turn-fg: #15161a; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
main { max-width: 60rem; margin: 0 auto; padding: 0.75rem; }
h1 { font-size: 1.2rem; margin: 0.2rem 0 0.6rem; } h2 { font-size: 1.05rem; margin: 1rem 0 0.4rem; }
.board, .events { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 0.6rem 0.75rem; }
.board .line { font-family: ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere; }
.board .line.head { font-weight: 600; margin-bottom: 0.3rem; }
.events ol { list-style: none; margin: 0; padding: 0; }
.events li { padding: 0.3rem 0; border-top: 1px solid var(--line); } .events li:first-child { border-top: 0; }
.ev { display: block; } .seq { color: var(--dim); font-variant-numeric: tabular-nums; margin-right: 0.4em; }
.undone .ev { text-decoration: line-through; color: var(--dim); }
.cons { display: block; font-weight: 600; } .cons::before { content: "→ "; color: var(--dim); }
.status { color: var(--dim); font-size: 0.85rem; margin-top: 0.6rem; }
.k-title { font-weight: 700; } .k-dim, .k-box, .k-acted, .k-miss, .k-die0 { color: var(--dim); }
.k-turn { background: var(--turn-bg); color: var(--turn-fg); padding: 0 0.2em; border-radius: 3px; }
.k-current { color: var(--accent); font-weight: 700; } .k-round { color: var(--accent); font-weight: 700; }
.k-hit { color: var(--hit); font-weight: 700; } .k-ok { color: var(--ok); }
.k-wound1 { color: var(--w1); } .k-wound2 { color: var(--w2); } .k-wound3 { color: var(--w3); }
.k-wound4 { color: var(--w4); font-weight: 700; } .k-marked { color: var(--w3); }
.k-out { background: var(--out-bg); color: var(--out-fg); font-weight: 700; padding: 0 0.2em; border-radius: 3px; }
.k-points { color: var(--accent); } .k-sealed { font-style: italic; } .k-todo { font-weight: 700; }
.k-die\\+ { color: var(--ok); font-weight: 700; } .k-die- { color: var(--w3); font-weight: 700; }
body.large { font-size: 2.1vw; } body.large main { max-width: none; padding: 1.2vw 2vw; }
body.large h1 { font-size: 2.6vw; } body.large h2 { font-size: 2.2vw; }
@media (max-width: 40rem) { body { font-size: 15px; } .board .line { font-size: 0.85rem; } main { padding: 0.4rem; } }
"""

def h(text: str) -> str:
    """Text from the log, safe in HTML: markup escaped, controls shown as escapes (an attribute's quotes too)."""
    return escape(safe(text))


def step_html(step: Step) -> str:
    """One command: its events (struck through when undone) and the words of what it did."""
    cls = ' class="undone"' if step.undone else ""
    parts = []
    for seq, text, by in step.lines:
        mark = f" (undone by {by})" if by is not None else ""
        parts.append(f'<span class="ev"><span class="seq">{seq}</span>{h(text)}{h(mark)}</span>')
    for kind, text in step.consequences:
        parts.append(f'<span class="cons c-{h(kind)}">{h(text)}</span>')
    return f"<li{cls}>{''.join(parts)}</li>"


def events_html(steps: list[Step]) -> str:
    """The last commands, newest first."""
    items = "".join(step_html(step) for step in reversed(steps))
    return f'<section class="events" id="events"><ol>{items or "<li>no events yet</li>"}</ol></section>'
