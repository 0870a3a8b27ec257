"""F-INIT-2, F-INIT-3 and AI-INIT-1, AI-INIT-2: rolled initiative, everyone rolls and acts in order of the total.

One implementation serves both systems:
- `opposed` (Fudge 4.3, F-INIT-2): the first initiative trait on the sheet
  (option `initiative_traits`: Reflexes, Speed...) or, without one, a
  situational roll; gift Combat Reflexes +1; rolled every round or once per
  battle (option `initiative_every`).
- `ranked` (Atari Isev, AI-INIT-2): 4dF + the derived initiative trait
  (AI-INIT-1), rolled every round.
Both add a declared waiting/hurrying change (AI-WAIT) or a hasty attack
(F-INIT-3), and the GM's surprise bonus or automatic initiative.

Equal totals act simultaneously. Our model of "simultaneous": combatants who
act at the same total (one initiative slot) each get their turn in `next`
order, but wounds dealt within the slot change nobody's penalty or ability
to act until the slot ends; a fighter taken out by a simultaneous blow still
strikes. The turn's `phase` field holds the slot's total.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from fudge_combat.engine.kernel.dice import Dice
from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.wounds import build_track, Track
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.sheets import Fighter
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.kernel.words import some_of

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fudge.command_structs import NextTurn, StartRound

NO_DECLARATION = ev.Declaration()  # frozen: one instance serves every fighter who declared nothing

SYSTEMS = ("opposed", "ranked")


def derived_initiative(fighter: Fighter, options: RuleOptions) -> tuple[str, int]:
    """AI-INIT-1: round(mean(Perception, Agility, Intuition)); an `Initiative` trait on the sheet overrides.

    A mean of three whole numbers never ends in .5, so rounding is never a tie.
    """
    for table in (fighter.attributes, fighter.skills):
        for key, value in table.items():
            if key.lower() == "initiative":
                return "Initiative (sheet)", value
    levels = [fighter.trait(t, options)[1] for t in ("Perception", "Agility", "Intuition")]
    return "Initiative", round(sum(levels) / 3)


def initiative_trait(who: Combatant, state: FightState) -> tuple[str, int]:
    """AI-INIT-1 for `ranked`; for `opposed` the first of `initiative_traits` on the sheet, else situational."""
    opts = state.options
    if opts.initiative == "ranked":
        return derived_initiative(who.fighter, opts)
    for wanted in opts.initiative_traits:
        for table in (who.fighter.skills, who.fighter.attributes):
            for key, value in table.items():
                if key.lower() == wanted.lower():
                    return key, value
    return "situational", 0


def declaration(state: FightState, key: str) -> ev.Declaration:
    return state.round_declarations.get(key, NO_DECLARATION)


def initiative_modifiers(who: Combatant, state: FightState, decl: ev.Declaration,
                         bonus: int) -> list[ev.Modifier]:
    opts = state.options
    mods = []
    if opts.initiative == "opposed" and any(g.lower() == "combat reflexes" for g in who.fighter.sheet.gifts):
        mods.append(ev.Modifier(name="Combat Reflexes", value=opts.combat_reflexes_bonus))
    if decl.wait:
        mods.append(ev.Modifier(name="hurrying" if decl.wait > 0 else "waiting", value=decl.wait))
    if decl.hasty:
        mods.append(ev.Modifier(name="hasty attack", value=opts.hasty_initiative))
    if bonus:
        mods.append(ev.Modifier(name="surprise (GM)", value=bonus))
    return mods


def slot_track(state: FightState, who: Combatant) -> Track:
    """The track as it counts in the current initiative slot: wounds dealt within it wait for its end."""
    if state.options.initiative not in SYSTEMS or state.turn is None:
        return who.track
    marks = [m for m in who.marks if m.seq < state.slot_start]
    track = build_track(who.boxes, marks, state.options)
    return track if not who.track.dead or who.killed_by is None else who.track


def start_round(state: FightState, c: StartRound, dice: Dice) -> list[ev.Event]:
    """F-INIT-2, AI-INIT-2: a new round; everyone able rolls (unless once per battle and already rolled)."""
    opts = state.options
    number = state.round + 1
    known = {found.key if (found := state.find(n)) else None: n for n in (*c.surprised, *c.automatic,
                                                                         *(n for n, _ in c.initiative_bonus))}
    if None in known:
        raise RuleError(f"no combatant {known[None]!r}; combatants: {some_of([w.name for w in state.combatants.values()])}")
    if c.surprised:
        raise RuleError("rolled initiative takes surprise as --initiative-bonus NAME=N or --automatic NAME (F-INIT-2)")
    out: list[ev.Event] = [ev.RoundStarted(round=number)]
    if opts.initiative == "opposed" and opts.initiative_every == "battle" and state.ranked:
        return out
    bonus = {n.lower(): b for n, b in c.initiative_bonus}
    automatic = {n.lower() for n in c.automatic}
    pending = {k: d for k, (r, d) in state.pending.items() if r == number}
    rolled: list[ev.InitiativeRanked] = []
    waiting: list[tuple[Combatant, str, int, list[ev.Modifier]]] = []
    for who in sorted(state.combatants.values(), key=lambda w: w.joined_seq):
        if not who.track.can_act:
            continue
        trait, level = initiative_trait(who, state)
        mods = initiative_modifiers(who, state, pending.get(who.key, NO_DECLARATION), bonus.get(who.key, 0))
        if who.key in automatic:
            waiting.append((who, trait, level, mods))
            continue
        roll = dice.roll(who.name, 4, "initiative")
        total = level + roll.total + sum(m.value for m in mods)
        rolled.append(ev.InitiativeRanked(combatant=who.name, round=number, trait=trait, level=level,
                                          modifiers=tuple(mods), total=total, faces=roll.faces,
                                          source=roll.source, stream=roll.stream, draw=roll.draw))
    top = max((r.total for r in rolled), default=0)
    for who, trait, level, mods in waiting:  # automatic initiative: ahead of every roll
        rolled.append(ev.InitiativeRanked(combatant=who.name, round=number, trait=trait, level=level,
                                          modifiers=tuple(mods), total=top + 1, automatic=True))
    return out + rolled


def strikes(state: FightState, key: str) -> int:
    decl = declaration(state, key)
    return 2 if decl.two_attacks else 1


def turn_order(state: FightState) -> list[tuple[int, str, int]]:
    """(slot total, combatant key, strike number) in acting order: highest total first.

    AI-MULTI-ATK: a second attack comes `second_attack_delay` levels after the first.
    Equal totals keep join order and act simultaneously.
    """
    entries = []
    for key, rolled in state.ranked.items():
        who = state.combatants[key]
        for strike in range(1, strikes(state, key) + 1):
            slot = rolled.total - (strike - 1) * state.options.second_attack_delay
            entries.append((-slot, who.joined_seq, strike, key))
    entries.sort()
    return [(-slot, key, strike) for slot, _, strike, key in entries]


def next_turn(state: FightState, c: NextTurn, dice: Dice) -> list[ev.Event]:
    if not state.ranked:
        raise RuleError("no initiative rolled this round: `fudge round` rolls it")
    index = next_index(state)
    if index is None:
        raise RuleError(f"round {state.round} is over: `fudge round` starts the next one")
    order = turn_order(state)
    slot, key, strike = order[index]
    ties = tuple(state.combatants[k].name for s, k, _ in order if s == slot and k != key)
    return [ev.TurnTaken(round=state.round, phase=slot, combatant=state.combatants[key].name,
                         index=index, tied_with=ties, initiative=slot)]


def next_index(state: FightState) -> int | None:
    """F-INIT-2, AI-INIT-2: the place in this round's order of the next turn `fudge next` gives (the next
    fighter able to act, a wound dealt in the current slot waiting for its end), or None: the round's turns are used."""
    order = turn_order(state)
    index = 0 if state.turn is None else state.turn.index + 1
    while index < len(order):
        slot, key, _ = order[index]
        who = state.combatants[key]
        same_slot = state.turn is not None and state.turn.phase == slot
        track = slot_track(state, who) if same_slot else who.track
        if track.can_act:
            return index
        index += 1
    return None


def current_strike(state: FightState) -> int:
    """Which of the actor's blows this turn is (AI-MULTI-ATK)."""
    if state.turn is None:
        return 1
    order = turn_order(state)
    return order[state.turn.index][2] if state.turn.index < len(order) else 1


def check_declaration(state: FightState, decl: ev.Declaration) -> None:
    """AI-WAIT, AI-MULTI-ATK, AI-MULTI-AVD, AI-SWEEP, F-INIT-3: what may be declared before a round."""
    if decl.wait is not None and not -2 <= decl.wait <= 2:
        raise RuleError("waiting or hurrying changes initiative by -2..+2 (AI-WAIT)")
    if decl.wait and decl.hasty:
        raise RuleError("choose one of a hasty attack (F-INIT-3) and waiting/hurrying (AI-WAIT)")
    exclusive = [n for n, on in (("two attacks", decl.two_attacks), ("two avoidances", decl.two_avoidances),
                                 ("multi-strike", decl.sweep)) if on]
    others = [n for n, on in (("a posture", decl.posture not in (None, 0)), ("waiting/hurrying", bool(decl.wait)),
                              ("a hasty attack", decl.hasty)) if on]
    if exclusive and (len(exclusive) > 1 or others):
        raise RuleError(f"{exclusive[0]} may not be combined with other combat options "
                        f"({', '.join(exclusive[1:] + others)}) (AI-MULTI-ATK, AI-MULTI-AVD)")
