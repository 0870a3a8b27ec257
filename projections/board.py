"""The board: the fight at a glance, in turn order, two lines a combatant.

    duel (fudge-phases) · round 1 · phase + · Kara's turn
    ▶ Kara             kara       Hurt -1           S■□□ H■ VH□ I□ ND□
        fudge pts 3 · turns 1/3 · phases ++ + -- · sealed
      Grok the Orc     orcs       Incapacitated     S□□□ H□ VH□ I■ ND□
        OUT of the fight · fudge pts 0 · turns 0/2 · phases + --

A header (fight, rules, round, phase or total, whose turn), then each combatant: ▶ on the current
actor, name, side, wound level and penalty, the wound boxes (Fate's clipped, hurt, injured and taken
out boxes), then fudge or fate points, whether he has acted this round, his initiative (phases,
rolled total, or place in Fate's Alertness order), his declaration (a sealed one only as
"sealed"), what else weighs on him and the conditions the GM marked ("prone until round 3").
Eight combatants take 17 lines of 80 columns; a long name is cut with "…".

It is data: lines of `(text, kind)` segments (projections.text), each text escaped (`safe`), so the
shell prints it plain, in colour, as HTML or as JSON (cli.board, cli.web) and the stored read model
(projections.board_view) keeps it as it is shown.
"""

from __future__ import annotations

import unicodedata

from fudge_combat.engine.kernel.words import possessive
from fudge_combat.engine.kernel.reading import TrackLine, ruleset_of
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.turns import battle_over, current_actor, round_over, still_fights
from fudge_combat.engine.kernel.wounds import LEVELS
from fudge_combat.projections.status import condition_words
from fudge_combat.projections.text import Line, safe

NAME, SIDE, LEVEL = 16, 10, 17  # columns of line 1, after the two of the turn mark
ROWS = ("S", "H", "VH", "I", "ND")  # Scratch, Hurt, Very Hurt, Incapacitated, Near Death
EMPTY, MARKED = "□", "■"  # U+25A1, U+25A0: in every common terminal font, one column
MANY = 6  # more boxes than this in a row are counted, not drawn: "S2/9"


def board_lines(state: FightState, width: int = 80) -> list[Line]:
    """The board as lines of segments, none wider than `width` columns."""
    order = turn_order(state)
    done = acted(state)
    actor = current_actor(state)
    current = actor.key if actor is not None else None
    lines = [header(state, current)]
    columns = widths(width)
    for key in order:
        who = state.combatants[key]
        first, second = combatant_lines(state, who, key == current, done.get(key), columns)
        lines += [first, second]
    lines += footer(state)
    return [clip(line, width) for line in lines]


# --- order, turn, acted ---------------------------------------------------------------------------

def turn_order(state: FightState) -> list[str]:
    """Combatant keys in the order they act this round: phase order (PH-1), rolled totals (F-INIT-2,
    AI-INIT-2), Fate's Alertness order (FT-INIT); join order for the rest and where there is none."""
    joined = sorted(state.combatants, key=lambda key: state.combatants[key].joined_seq)
    return list(dict.fromkeys(acting_first(state) + joined))


def acting_first(state: FightState) -> list[str]:
    """The keys `turn_order` puts before join order (those with a place in this round's order)."""
    from fudge_combat.engine.rulesets.fudge.phase_order import phased, slots
    from fudge_combat.engine.rulesets.fudge.ranked import turn_order as ranked_order

    first: list[str] = []
    if phased(state) and state.initiative:
        first = [slot.combatant for slot in slots(state)]
    elif state.options.initiative in ("opposed", "ranked") and state.ranked:
        first = [key for _, key, _ in ranked_order(state)]
    elif state.options.initiative == "alertness":
        first = list(ruleset_of(state).own_order(state)[0])
    return list(dict.fromkeys(key for key in first if key in state.combatants))


def acted(state: FightState) -> dict[str, str]:
    """What each combatant has done this round: "turns 1/3" under phases (each phase is a turn),
    "acted" or "to act" under rolled or Alertness order, "fought" without turns (F-PACE-2)."""
    from fudge_combat.engine.rulesets.fudge.phase_order import phased, slots
    from fudge_combat.engine.rulesets.fudge.ranked import turn_order as ranked_order

    keys: list[str] = []
    if phased(state) and state.initiative:
        keys = [slot.combatant for slot in slots(state)]
    elif state.options.initiative in ("opposed", "ranked") and state.ranked:
        keys = [key for _, key, _ in ranked_order(state)]
    if keys:
        turn = state.turn
        passed = 0 if turn is None else turn.index + (1 if turn.acted else 0)
        out = {}
        for key in dict.fromkeys(keys):
            total = keys.count(key)
            had = keys[:passed].count(key)
            if phased(state) and total > 1:
                out[key] = f"turns {had}/{total}"
            else:
                out[key] = "acted" if had >= total else "to act"
        return out
    order, turns_had = ruleset_of(state).own_order(state)
    if state.options.initiative == "alertness" and order:
        return {key: "acted" if key in turns_had else "to act" for key in order}
    return {key: "fought" for key in state.fought if state.round}


# --- lines ----------------------------------------------------------------------------------------

def header(state: FightState, current: str | None) -> Line:
    line: Line = [(safe(state.name), "title"), (f" ({safe(state.rules)})", "dim")]
    rules = ruleset_of(state)
    if rules.scene is not None:
        line.append((f" · scene {rules.scene(state)}", ""))
    if rules.plays_rounds(state.options.pace):  # Fate's scene and exchange paces have no rounds
        line.append((" · ", "dim"))
        line.append((f"round {state.round}" if state.round else "before the first round", "round"))
    over = round_over(state)
    if over:  # the last actor's turn is spent: nobody has the turn, the next step is a new round
        line.append((" is over", "round"))  # play's `n`, or `fudge round`, starts the next
    turn = state.turn
    if turn is not None and not over and not battle_over(state):
        if state.options.initiative in ("opposed", "ranked"):
            line.append((f" · initiative {turn.phase:+d}", ""))
        else:
            from fudge_combat.engine.kernel.initiative import PHASE_NAME

            line.append((f" · phase {PHASE_NAME[turn.phase]}", ""))
    if current is not None:
        step = {"declare": " (declares)", "resolve": " (resolves)", "held": " (holds)"}.get(
            turn.step if turn is not None else "", "")
        name = fit(safe(state.combatants[current].name), NAME).rstrip()
        line += [(" · ", "dim"), (f"{name}'s turn{step}", "turn")]
    if battle_over(state):
        line += [(" · ", "dim"), ("battle over", "out")]
    return line


def widths(width: int) -> tuple[int, int]:
    """Name and side columns: 16 and 10 at 80 columns, narrower below (the side first)."""
    short = max(0, 80 - width)
    side = max(5, SIDE - short)
    return max(8, NAME - (short - (SIDE - side))), side


def combatant_lines(state: FightState, who: Combatant, current: bool, done: str | None,
                    columns: tuple[int, int] = (NAME, SIDE)) -> tuple[Line, Line]:
    out, level, kind, boxes = track(state, who)
    first: Line = [("▶ " if current else "  ", "current"),
                   (fit(safe(who.name), columns[0]), "current" if current else ""), (" ", ""),
                   (fit(safe(who.side), columns[1]), "dim"), (" ", ""),
                   (fit(level, LEVEL), kind), (" ", ""), *boxes]
    parts: list[list[tuple[str, str]]] = []
    if out:
        parts.append([(out, "out")])
    points = ruleset_of(state).points
    parts.append([(f"{points} pts {who.fudge_points}", "points")])
    if done:
        parts.append([(done, "acted" if done in ("acted", "fought") or _all_done(done) else "todo")])
    parts += [[(text, "")] for text in initiative(state, who)]
    declared = declaration(state, who)
    if declared:
        parts.append([(declared, "sealed" if declared == "sealed" else "")])
    parts += [[(safe(text), "dim")] for text in extras(state, who)]
    parts += [[(safe(text), "condition")] for text in condition_words(who, notes=False)]
    second: Line = [("    ", "")]
    for index, part in enumerate(parts):
        if index:
            second.append((" · ", "dim"))
        second += part
    return first, second


def _all_done(done: str) -> bool:
    had, _, total = done.removeprefix("turns ").partition("/")
    return done.startswith("turns ") and had == total


def fudge_track(state: FightState, who: Combatant) -> tuple[str, str, str, Line]:
    """(out-of-the-fight words, level shown, its kind, boxes) on the Fudge wound track (F-WND)."""
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound

    track = who.track
    _, penalty = acting_wound(state, who)
    level = LEVELS[track.level]
    if track.can_act and penalty:
        level += f" {penalty:+d}"
    out = ""
    if track.dead:
        out = "DEAD"
    elif not track.can_act:
        out = f"OUT of the fight ({safe(track.out)})" if track.out else "OUT of the fight"
    kind = "out" if out else f"wound{min(track.level, 4)}" if track.level else "ok"
    boxes: Line = []
    for index, row in enumerate(track.boxes):
        if not row:
            continue
        if boxes:
            boxes.append((" ", ""))
        filled = sum(1 for box in row if box is not None)
        boxes += _row(ROWS[index], filled, len(row))
    return out, level, kind, boxes


def track(state: FightState, who: Combatant) -> tuple[str, str, str, Line]:
    """(out-of-the-fight words, level shown, its kind, boxes) as the fight's ruleset marks harm: in its own
    boxes when its Reading draws them (Fate's, FT-TRACK), else on the wound track (F-WND)."""
    own = ruleset_of(state).track
    return fudge_track(state, who) if own is None else own_track(own(state, who))


def own_track(line: TrackLine) -> tuple[str, str, str, Line]:
    """The same of a ruleset's own boxes, as its Reading gives them (`TrackLine`): every row drawn."""
    boxes: Line = []
    for row in line.rows:
        if boxes:
            boxes.append((" ", ""))
        boxes += _row(row.letter, row.filled, row.boxes)
    return line.out, line.level, line.kind, boxes


def _row(letter: str, filled: int, boxes: int) -> Line:
    if boxes > MANY:
        return [(letter, "dim"), (f"{filled}/{boxes}", "marked" if filled else "box")]
    empty = max(0, boxes - filled)
    return [(letter, "dim"), *([(MARKED * filled, "marked")] if filled else []),
            *([(EMPTY * empty, "box")] if empty else [])]


def initiative(state: FightState, who: Combatant) -> list[str]:
    from fudge_combat.engine.kernel.initiative import PHASE_NAME

    if who.key in state.initiative:
        card = state.initiative[who.key]
        phases = " ".join(PHASE_NAME[p] for p in card.phases(state.options))
        return [f"phases {phases}" + (" (surprised)" if card.surprised else "")]
    rolled = state.ranked.get(who.key)
    if rolled is not None:
        return [f"initiative {rolled.total:+d}" + (" (automatic)" if rolled.automatic else "")]
    order, _ = ruleset_of(state).own_order(state)
    if who.key in order:
        return [f"order {order.index(who.key) + 1}"]
    return []


def declaration(state: FightState, who: Combatant) -> str:
    """The declaration in force: sealed ones only as "sealed" (F-TAC-2)."""
    from fudge_combat.projections.status import _declaration, declaration_text

    if who.key in state.sealed:
        return "sealed"
    shown = [text for text in [_declaration(state, who)] if text]
    for declared in (state.round_declarations.get(who.key),):
        if declared is not None and declaration_text(declared) != "normal":
            shown.append(declaration_text(declared))
    card = state.initiative.get(who.key)
    if card is not None:
        from fudge_combat.engine.kernel.initiative import PHASE_NAME

        for intent in card.intents:
            what = f"attack {state.combatants[intent.target].name}" if intent.target else intent.what
            shown.append(f"{PHASE_NAME[intent.phase]}: {safe(what)}")
    return "; ".join(dict.fromkeys(shown))


def extras(state: FightState, who: Combatant) -> list[str]:
    """What else weighs on him: willpower, stun, damage capacity, wounded parts (AI-WILL-1, F-STUN, F-WND-8,
    F-LOC-2)."""
    from fudge_combat.projections.status import aftermath_json
    from fudge_combat.engine.rulesets.fudge.sides import acting_wound
    from fudge_combat.engine.rulesets.fudge.locations import LOCATION_LEVELS

    out = []
    acts_as, _ = acting_wound(state, who)
    if acts_as != who.track.level:
        out.append(f"acts as {LEVELS[acts_as]} (willpower)")
    extra = aftermath_json(state, who)
    stun = extra.get("stun")
    if stun and stun["effect"]:
        out.append(f"{stun['effect']} until round {stun['until_round']}")
    if "damage_capacity" in extra:
        out.append(f"DC {extra['damage_capacity']['now']}")
    out += [f"{part} {LOCATION_LEVELS[level]}" for part, (level, _) in sorted(who.locations.items())]
    return out


def footer(state: FightState) -> list[Line]:
    """The fight's state in words when it says something: no one joined, or one side left standing."""
    return footer_of(state, {who.side for who in state.combatants.values()},
                     {who.side for who in state.combatants.values() if still_fights(state, who)})


def footer_of(state: FightState, sides: set[str], standing: set[str]) -> list[Line]:
    """`footer` from the sides joined and the sides with someone still fighting (projections.board_view keeps
    each combatant's)."""
    if not state.combatants:
        return [[("no combatants yet: `fudge join SHEET` adds one", "dim")]]
    if len(sides) > 1 and len(standing) == 1 and not (state.ended_through == state.last_seq):
        return [[(f"only {possessive(safe(next(iter(standing))))} side is standing", "turn")]]
    return []


# --- widths ---------------------------------------------------------------------------------------

def cells(text: str) -> int:
    """Columns a text takes: East Asian wide and full-width characters take two."""
    if text.isascii():  # most of a board: one column a character, without a lookup for each
        return len(text)
    return sum(2 if unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def fit(text: str, columns: int) -> str:
    """`text` padded to `columns`, or cut with "…" to fit."""
    if cells(text) <= columns:
        return text + " " * (columns - cells(text))
    out = ""
    for char in text:
        if cells(out + char) > columns - 1:
            break
        out += char
    return out + "…" + " " * (columns - 1 - cells(out))


def clip(line: Line, width: int) -> Line:
    """A line cut to `width` columns, "…" where it was cut; trailing spaces dropped."""
    out: Line = []
    used = 0
    total = sum(cells(text) for text, _ in line)
    for text, kind in line:
        if total <= width or used + cells(text) <= width - 1:
            out.append((text, kind))
            used += cells(text)
            continue
        room = width - 1 - used
        cut = ""
        for char in text:
            if cells(cut + char) > room:
                break
            cut += char
        out += [(cut, kind), ("…", "dim")]
        break
    while out and out[-1][0].strip() == "":
        out.pop()
    if out:
        text, kind = out[-1]
        out[-1] = (text.rstrip(), kind)
    return out
