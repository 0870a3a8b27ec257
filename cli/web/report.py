"""The after-action report of a fight, as one self-contained HTML file or as Markdown for a forum post.

Self-contained: the CSS is inline, the charts are SVG written here (a step line per combatant, wound level
against event number, rounds marked): the file opens offline, mailed or posted, with nothing to fetch.
Every text from the log is escaped, one function per format: `h` for HTML (html.escape), `md` for Markdown (the
characters that would make markup, and HTML's); both write control, separator and bidi characters as visible
escapes first (cli.terminal.safe), so a name cannot recolour a terminal the file is shown on, nor reorder a line.
Both formats show the same tables, built once (`fairness_table`), and strike out the same events.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape

from msgspec import Struct, field

from fudge_combat.cli.terminal import safe
from fudge_combat.cli.web.html import CSS, h
from fudge_combat.cli.web.story import Step, branch_of, steps, walk
from fudge_combat.engine.audit import Report as Verified
from fudge_combat.engine.kernel.history import voided
from fudge_combat.engine.kernel.reading import ruleset_of
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded
from fudge_combat.events.receipt import receipt
from fudge_combat.projections import report as counts
from fudge_combat.store.base import FightInfo

FACE = {-1: "-", 0: "0", 1: "+"}


class Facts(Struct):
    """Everything a report shows, computed once for both formats."""

    name: str
    state: FightState
    records: list[Recorded]
    verified: Verified
    branches: list[FightInfo] = field(default_factory=list)
    story: list[Step] = field(default_factory=list)
    rolls: list[counts.Roll] = field(default_factory=list)
    luck: dict[str, tuple[int, float]] = field(default_factory=dict)
    fairness: list[counts.Fairness] = field(default_factory=list)
    not_fudge: dict[str, int] = field(default_factory=dict)
    standings: list[counts.Standing] = field(default_factory=list)
    spent: list[counts.Spent] = field(default_factory=list)
    tracks: list[counts.Track] = field(default_factory=list)
    head_receipt: str = ""  # the receipt of the log's last event (A-VERIFY-1)


def facts(name: str, state: FightState, records: list[Recorded], hashes: Sequence[str], verified: Verified,
          branches: list[FightInfo]) -> Facts:
    out = Facts(name, state, records, verified, branches)
    walked = list(walk(records))  # the log's states, walked once for the story, the rolls and the points
    out.story = steps(records, walked=walked)
    out.rolls = counts.rolls(records, walked)
    out.luck = counts.luck_by_roller(out.rolls)
    out.fairness = counts.fairness(out.rolls)
    out.not_fudge = counts.not_fudge(out.rolls)
    out.standings = counts.standings(records)
    out.spent = counts.spent(records, walked)
    out.tracks = counts.tracks(records)
    out.head_receipt = receipt(records[-1].seq, hashes[-1]) if records else ""
    return out


def rounds_of(story: list[Step]) -> list[tuple[int, list[Step]]]:
    """The commands grouped by round: an undo that takes the fight back a round stays in the round it undid."""
    out: list[tuple[int, list[Step]]] = []
    for step in story:
        if not out or step.round > out[-1][0]:
            out.append((step.round, []))
        out[-1][1].append(step)
    return out


def round_title(number: int, rounds: bool = True) -> str:
    """A group's heading; a fight without rounds (Fate's exchanges and scenes) is one group."""
    return f"Round {number}" if number else "Before the first round" if rounds else "The fight"


def percent(value: float) -> str:
    return f"{value * 100:.0f}%"


def seeds(records: Sequence[Recorded]) -> tuple[list[tuple[int, str]], list[tuple[int, str, str]]]:
    """(seq, commitment) of every seed committed, and (seq, commitment, seed) of every seed revealed (A-FAIR-1)."""
    committed, revealed = [], []
    for record in records:
        event = record.event
        if isinstance(event, (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted)):
            committed.append((record.seq, event.seed_commitment))
        elif isinstance(event, ev.SeedRevealed):
            revealed.append((record.seq, event.seed_commitment, event.seed))
    return committed, revealed


def verify_words(name: str, verified: Verified) -> str:
    """What `fudge verify` says of the log."""
    if not verified.ok:
        seq, why = verified.problems[0]
        return f"DOES NOT VERIFY: event {seq}: {why}"
    dice = f"{verified.rolls_checked} generated rolls re-derived from revealed seeds"
    if verified.rolls_unchecked:
        dice += f", {verified.rolls_unchecked} await `fudge reveal-seed`"
    return f"{verified.events} events verified: hash chain intact, rules agree; {dice}"


FAIRNESS_COLUMNS = ("Roller", "Dice", "Faces", "−", "blank", "+", "χ²", "p", "Verdict")
FAIRNESS_NUMBERS = range(2, 8)  # the columns of numbers, right-aligned
FAIRNESS_WORDS = ("Each Fudge die should show -, blank and + a third of the time each. Pearson's chi-square against "
                  "1/3 each (2 degrees of freedom, p = exp(-χ²/2)): a small p says faces this uneven are rare with "
                  f"fair dice; under {counts.MIN_DICE} dice it says nothing. Every Fudge die thrown counts, undone or "
                  "not: actions, blows, luck, sweeps and initiative.")


def fairness_table(facts: Facts) -> list[tuple[tuple[str, ...], bool]]:
    """The fairness table both formats show: each row's cells as plain text (escaped by the format), and
    whether its verdict says the dice look loaded."""
    rows = []
    for row in facts.fairness:
        who = "whole table" if row.roller == "all" else row.roller
        source = "typed" if row.source == "entered" else "generated"
        cells = (who, source, str(row.dice), *(str(n) for n in row.counts), f"{row.chi_square:.2f}",
                 f"{row.p_value:.3f}", row.verdict)
        rows.append((cells, row.suspect))
    return rows


def not_fudge_words(facts: Facts) -> str:
    """The dice thrown that the table does not judge, said (empty when every die was a Fudge die)."""
    kinds = [f"{number} {'typed substitute roll' if kind == 'typed substitute' else kind}"
             f"{'s' if number != 1 else ''}" for kind, number in sorted(facts.not_fudge.items())]
    return f"Not Fudge dice, so not in the table: {', '.join(kinds)}." if kinds else ""


def outcome(facts: Facts) -> str:
    """Rounds played, and who was out of the fight and who stood as each battle or scene ended."""
    rounds = facts.state.round
    words = f"{len(facts.records)} events" if not rounds else f"{rounds} rounds" if rounds != 1 else "1 round"
    battle = ruleset_of(facts.state).battle
    several = len(facts.standings) > 1
    for number, standing in enumerate(facts.standings, start=1):
        said = ([f"out of the fight: {', '.join(standing.out)}"] if standing.out else []) + \
            ([f"standing: {', '.join(standing.standing)}"] if standing.standing else [])
        if several:
            when = f"ended at event {standing.ended}" if standing.ended is not None else "not ended"
            words += f" · {battle} {number} ({when}): {'; '.join(said) or 'nobody'}"
        elif said:
            words += "; " + "; ".join(said)
    return words


# --- the wound chart (SVG) ---------------------------------------------------------------------------

CHART_W, CHART_H, LEFT, BOTTOM, TOP, RIGHT = 640, 190, 96, 22, 10, 12


def round_marks(records: Sequence[Recorded]) -> list[tuple[int, int]]:
    gone = voided(records)
    return [(r.seq, r.event.round) for r in records
            if isinstance(r.event, ev.RoundStarted) and r.seq not in gone]


def chart_svg(track: counts.Track, first: int, last: int, marks: list[tuple[int, int]]) -> str:
    """A step line of one combatant's wound level against the event number, rounds as dashed lines."""
    top_level = len(track.levels) - 1
    span = max(1, last - first)
    width, height = CHART_W - LEFT - RIGHT, CHART_H - TOP - BOTTOM

    def x(seq: int) -> float:
        return round(LEFT + (seq - first) * width / span, 1)

    def y(level: int) -> float:
        return round(TOP + (top_level - level) * height / top_level, 1)

    parts = [f'<svg class="chart" viewBox="0 0 {CHART_W} {CHART_H}" role="img" '
             f'aria-label="{h(track.name)}: wound level by event" xmlns="http://www.w3.org/2000/svg">']
    for level, label in enumerate(track.levels):
        parts.append(f'<line class="grid" x1="{LEFT}" x2="{CHART_W - RIGHT}" y1="{y(level)}" y2="{y(level)}"/>'
                     f'<text class="axis" x="{LEFT - 6}" y="{y(level) + 4}" text-anchor="end">{h(label)}</text>')
    for seq, number in marks:
        parts.append(f'<line class="round" x1="{x(seq)}" x2="{x(seq)}" y1="{TOP}" y2="{TOP + height}"/>'
                     f'<text class="axis" x="{x(seq) + 3}" y="{CHART_H - 6}">R{number}</text>')
    points: list[str] = []
    for index, (seq, level) in enumerate(track.points):
        if index:
            points.append(f"{x(seq)},{y(track.points[index - 1][1])}")
        points.append(f"{x(seq)},{y(level)}")
    if track.points:
        points.append(f"{x(last)},{y(track.points[-1][1])}")
    parts.append(f'<polyline class="wound" points="{" ".join(points)}"/>')
    for seq, level in track.points[1:]:
        parts.append(f'<circle class="dot" cx="{x(seq)}" cy="{y(level)}" r="3.5"><title>event {seq}: '
                     f"{h(track.levels[level])}</title></circle>")
    parts.append("</svg>")
    return "".join(parts)


REPORT_CSS = CSS + """
main { max-width: 64rem; } section { margin-bottom: 1.2rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.92rem; } .scroll { overflow-x: auto; }
th, td { text-align: left; padding: 0.25rem 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
.chart { width: 100%; height: auto; max-width: 40rem; display: block; }
.chart .grid { stroke: var(--line); stroke-width: 1; } .chart .round { stroke: var(--dim); stroke-dasharray: 3 4; }
.chart .axis { fill: var(--dim); font-size: 11px; font-family: system-ui, sans-serif; }
.chart .wound { fill: none; stroke: var(--w3); stroke-width: 2.5; } .chart .dot { fill: var(--w3); }
.bar { display: inline-block; height: 0.7em; background: var(--accent); border-radius: 2px; vertical-align: middle; }
.undone td, tr.undone { color: var(--dim); text-decoration: line-through; } .ev.voided { color: var(--dim); }
.trust { font-size: 0.9rem; } .trust code { overflow-wrap: anywhere; }
.verdict-bad { color: var(--w3); font-weight: 700; } .verdict-ok { color: var(--ok); }
h3 { font-size: 1rem; margin: 0.8rem 0 0.3rem; }
"""


def html_report(facts: Facts) -> str:
    name = h(facts.name)
    out = [f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
           f'<meta name="viewport" content="width=device-width, initial-scale=1">'
           f'<meta name="color-scheme" content="light dark"><title>{name}: after-action report</title>'
           f"<style>{REPORT_CSS}</style></head><body><main>",
           f"<h1>{name}: after-action report</h1>",
           f"<p>{h(facts.state.rules)} · {h(outcome(facts))}</p>"]
    out += branches_html(facts)
    out += charts_html(facts)
    out += story_html(facts)
    out += luck_html(facts)
    out += fairness_html(facts)
    out += spent_html(facts)
    out += trust_html(facts)
    out.append("</main></body></html>")
    return "\n".join(out)


def branches_html(facts: Facts) -> list[str]:
    lines = []
    started = branch_of(facts.records)
    if started is not None:
        lines.append(f"<p>A branch of <b>{h(started.parent)}</b> after its event {started.fork_seq}: "
                     "the events before are the parent's, shared.</p>")
    children = [f"<b>{h(info.name)}</b> (after event {info.fork_seq})" for info in facts.branches]
    if children:
        lines.append(f"<p>Branches of this fight: {', '.join(children)}.</p>")
    return lines


def charts_html(facts: Facts) -> list[str]:
    if not facts.records:
        return []
    first, last = facts.records[0].seq, facts.records[-1].seq
    marks = round_marks(facts.records)
    out = ['<section id="wounds"><h2>Wounds over time</h2>']
    for track in facts.tracks:
        out.append(f"<h3>{h(track.name)}</h3>{chart_svg(track, first, last, marks)}")
    out.append("</section>")
    return out


def story_html(facts: Facts) -> list[str]:
    out = ['<section id="story"><h2>The story</h2><div class="events">']
    grouped = rounds_of(facts.story)
    for number, round_steps in grouped:
        out.append(f"<h3>{round_title(number, len(grouped) > 1)}</h3><ol>")
        for step in round_steps:
            cls = ' class="undone"' if step.undone else ""
            parts = []
            for seq, text, by in step.lines:  # an event voided (undone, or re-resolved by a point) is struck out
                shown = f"<del>{h(text)}</del> (undone by event {by})" if by is not None else h(text)
                voided = " voided" if by is not None else ""
                parts.append(f'<span class="ev{voided}"><span class="seq">{seq}</span>{shown}</span>')
            parts += [f'<span class="cons c-{h(kind)}">{h(text)}</span>' for kind, text in step.consequences]
            out.append(f"<li{cls}>{''.join(parts)}</li>")
        out.append("</ol>")
    out.append("</div></section>")
    return out


def luck_html(facts: Facts) -> list[str]:
    out = ['<section id="luck"><h2>Luck</h2>',
           "<p>Each roll's luck is its percentile in the exact distribution of its dice "
           "(P(lower) + P(same)/2: 50% is an average roll). A combatant's luck index is the mean over his rolls "
           "in force.</p>",
           '<div class="scroll"><table><tr><th>Roller</th><th class="num">Rolls</th><th class="num">Luck index</th>'
           "<th></th></tr>"]
    for who, (number, index) in sorted(facts.luck.items()):
        out.append(f'<tr><td>{h(who)}</td><td class="num">{number}</td><td class="num">{percent(index)}</td>'
                   f'<td><span class="bar" style="width:{index * 8:.2f}rem"></span></td></tr>')
    out.append('</table></div><h3>Every roll</h3><div class="scroll"><table><tr><th class="num">Event</th>'
               '<th class="num">Round</th><th>Roller</th><th>For</th><th>Dice</th><th class="num">Total</th>'
               '<th class="num">Luck</th><th>Source</th></tr>')
    for roll in facts.rolls:
        cls = ' class="undone"' if roll.voided else ""
        dice = " ".join(FACE.get(face, str(face)) for face in roll.faces) if roll.fudge_dice else \
            " ".join(str(face) for face in roll.faces)
        luck = percent(float(roll.luck)) if roll.luck is not None else "–"
        source = "typed" if roll.source == "entered" else roll.source
        out.append(f'<tr{cls}><td class="num">{roll.seq}</td><td class="num">{roll.round}</td>'
                   f"<td>{h(roll.roller)}</td><td>{h(roll.purpose)}</td><td>{h(dice)}</td>"
                   f'<td class="num">{sum(roll.faces):+d}</td><td class="num">{luck}</td><td>{source}</td></tr>')
    out.append("</table></div></section>")
    return out


def fairness_html(facts: Facts) -> list[str]:
    heads = "".join(f'<th class="num">{h(name)}</th>' if index in FAIRNESS_NUMBERS else f"<th>{h(name)}</th>"
                    for index, name in enumerate(FAIRNESS_COLUMNS))
    out = ['<section id="fairness"><h2>Dice fairness</h2>', f"<p>{h(FAIRNESS_WORDS)}</p>",
           f'<div class="scroll"><table><tr>{heads}</tr>']
    for cells, suspect in fairness_table(facts):
        tds = [f'<td class="num">{h(cell)}</td>' if index in FAIRNESS_NUMBERS else f"<td>{h(cell)}</td>"
               for index, cell in enumerate(cells[:-1])]
        cls = "verdict-bad" if suspect else "verdict-ok"
        out.append(f'<tr>{"".join(tds)}<td class="{cls}">{h(cells[-1])}</td></tr>')
    if not facts.fairness:
        out.append(f'<tr><td colspan="{len(FAIRNESS_COLUMNS)}">no Fudge dice rolled</td></tr>')
    out.append("</table></div>")
    if facts.not_fudge:
        out.append(f"<p>{h(not_fudge_words(facts))}</p>")
    out.append("</section>")
    return out


def changed(facts: Facts, command: str) -> str:
    """What the command that spent a point did: its consequences, else its events' lines."""
    step = next((s for s in facts.story if s.command == command), None)
    if step is None:
        return ""
    words = [text for _, text in step.consequences] or [text for _, text, _ in step.lines[1:]]
    return "; ".join(words)


def spent_html(facts: Facts) -> list[str]:
    points = ruleset_of(facts.state).points
    out = [f'<section id="points"><h2>{points.capitalize()} points spent</h2>']
    if not facts.spent:
        out.append(f"<p>No {points} point spent.</p></section>")
        return out
    out.append('<div class="scroll"><table><tr><th class="num">Event</th><th>Who</th><th>Use</th>'
               '<th class="num">On event</th><th class="num">Cost</th><th>What it changed</th></tr>')
    for item in facts.spent:
        cls = ' class="undone"' if item.voided else ""
        out.append(f'<tr{cls}><td class="num">{item.seq}</td><td>{h(item.combatant)}</td>'
                   f'<td>{h(item.use)}</td><td class="num">{item.target}</td><td class="num">{item.cost}</td>'
                   f"<td>{h(changed(facts, item.command))}</td></tr>")
    out.append("</table></div></section>")
    return out


def trust_html(facts: Facts) -> list[str]:
    committed, revealed = seeds(facts.records)
    words = verify_words(facts.name, facts.verified)
    cls = "verdict-ok" if facts.verified.ok else "verdict-bad"
    out = ['<footer class="trust"><h2>Trust</h2>',
           f'<p class="{cls}">{h(words)}</p>',
           f"<p>Head receipt: <code>{h(facts.head_receipt)}</code>. Whoever holds the log (or imports its "
           "export: <code>fudge export</code>, <code>fudge import</code>) checks it with "
           f"<code>fudge verify {h(facts.name)} --head {h(facts.head_receipt)}</code>.</p><ul>"]
    for seq, commitment in committed:
        out.append(f"<li>event {seq}: dice seed committed <code>{h(commitment)}</code></li>")
    for seq, commitment, seed in revealed:
        out.append(f"<li>event {seq}: seed revealed <code>{h(seed)}</code> (commitment "
                   f"<code>{h(commitment[:16])}…</code>)</li>")
    if not revealed:
        out.append("<li>no seed revealed yet: `fudge reveal-seed` lets anyone re-derive the generated dice</li>")
    out.append("</ul></footer>")
    return out


# --- Markdown -----------------------------------------------------------------------------------------

MARKUP = set("\\`*_[]|~")  # inline markup; every line starts with words of ours, so - + # . at a line start cannot occur


def md(text: str) -> str:
    """Text from the log, safe in Markdown: controls shown as escapes (a line feed too: one line), the characters
    that make markup or tables escaped, HTML's too."""
    out = "".join("\\" + char if char in MARKUP else char for char in safe(text))
    return escape(out, quote=False)


CODE = re.compile(r"[0-9A-Za-z:.+/=-]*")  # what a hash, a receipt or a seed is written with


def md_code(text: str) -> str:
    """A hash or a seed from the log as code; anything else in it (a forged log) as escaped text: a code span
    cannot escape a backtick, and shows HTML as it is."""
    return f"`{text}`" if CODE.fullmatch(text) else md(text)


def md_report(facts: Facts) -> str:
    lines = [f"## {md(facts.name)}: after-action report", "", f"{md(facts.state.rules)} · {md(outcome(facts))}", ""]
    started = branch_of(facts.records)
    if started is not None:
        lines += [f"A branch of **{md(started.parent)}** after its event {started.fork_seq}.", ""]
    lines += ["| Combatant | Wounds | Rolls | Luck | Points spent |", "|---|---|---:|---:|---:|"]
    spent_by: dict[str, int] = {}
    for item in facts.spent:
        if not item.voided:
            spent_by[item.combatant] = spent_by.get(item.combatant, 0) + item.cost
    for track in facts.tracks:
        number, index = facts.luck.get(track.name, (0, 0.0))
        level = track.levels[track.points[-1][1]] if track.points else track.levels[0]
        lines.append(f"| {md(track.name)} | {md(level)} | {number} | {percent(index) if number else '–'} | "
                     f"{spent_by.get(track.name, 0)} |")
    lines.append("")
    grouped = rounds_of(facts.story)
    for number, round_steps in grouped:
        lines.append(f"**{round_title(number, len(grouped) > 1)}**")
        lines.append("")
        for step in round_steps:
            for seq, text, by in step.lines:
                shown = f"~~{md(text)}~~ (undone by event {by})" if by is not None else md(text)
                lines.append(f"- {seq}: {shown}")
            lines += [f"  - → {md(text)}" for _, text in step.consequences]
        lines.append("")
    lines += ["| " + " | ".join(md(name) for name in FAIRNESS_COLUMNS) + " |",
              "|" + "|".join("---:" if index in FAIRNESS_NUMBERS else "---" for index in range(len(FAIRNESS_COLUMNS)))
              + "|"]
    lines += ["| " + " | ".join(md(cell) for cell in cells) + " |" for cells, _ in fairness_table(facts)]
    if not facts.fairness:
        lines.append("| no Fudge dice rolled |" + " |" * (len(FAIRNESS_COLUMNS) - 1))
    lines += ["", md(FAIRNESS_WORDS)] + ([md(not_fudge_words(facts))] if facts.not_fudge else [])
    lines += ["", f"Verify: {md(verify_words(facts.name, facts.verified))}. Receipt {md_code(facts.head_receipt)}."]
    committed, revealed = seeds(facts.records)
    if committed:
        lines.append(f"Seed committed at event {committed[0][0]}: {md_code(committed[0][1])}"
                     + (f"; revealed at event {revealed[-1][0]}: {md_code(revealed[-1][2])}." if revealed else
                        "; not revealed yet."))
    return "\n".join(lines) + "\n"
