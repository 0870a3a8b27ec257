"""Fate (Fudge version), chapter 8 (FT-*): exchanges, scenes and turns compared by margin of success.

Every participant rolls once per exchange (or scene, or attack); each roll is
compared with the roll of whom it opposes, with the modifiers that hold
against that foe only (FT-MOD: outnumbering one fighter is not outnumbering
another). The winner's margin is read on the outcome table (FT-OUT, through
the arms rules FT-SIMPLE / FT-ADV) and marked on the loser's boxes with
overflow (FT-TRACK-2). Fate points (+1) and aspect rerolls re-resolve the
latest exchange: its old resolution and marks are voided, new ones appended.

Readings taken where the text leaves room:
- A side who targets someone but is attacked by several inflicts harm only
  when beating every attacker (FT-MULTI); with no target declared it affects
  the attacker with the worst roll.
- A tie is a Scratch (FT-OUT); under simple arms a tie is "a Scratch result or
  better", so the attacker still adds the weapon and takes off the armor.
- Advanced arms read margin (+ Vicious bonus) on the armor type's column; the
  weapon's simple rating is not added. A maneuver always reads armor type 0.
- Clipped boxes stay marked for the scene (so clips can spill into Hurt), but
  the -1 is paid by the next roll only (in turn pace, the next attack roll).
- A maneuver (FT-MANEUVER) replaces the harm when the outcome reaches what
  the GM said it needs; below that, the outcome's harm applies as usual.
- Scene pace, total mode: the difference of the two sides' totals is read on
  the table and marked on every member of the losing side.
- Turn pace (FT-INIT): 004 8.3 says only "characters act in the order of
  initiative, each taking an action"; it names no way to give a turn up. A
  fighter who will not or cannot act may pass: his turn is used with no
  action, as an action would use it (he still rolls defence when attacked,
  which is no turn of his). He may instead hold: he acts after the next
  fighter who still has a turn this round, and may hold again, one place at a
  time, until nobody is left to act after him; a hold never carries into the
  next round, whose order is rolled afresh. Holding one place at a time keeps
  each step the GM's choice at the table ("do you act now?") without a rule
  the text does not give for interrupting another's turn.
- A fighter ruled dead has no turn in the order, as one Taken Out has none.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal, TYPE_CHECKING, TypedDict

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.sheets import FateArmor, Sheet
from fudge_combat.engine.rulesets.fudge.sides import combatant
from fudge_combat.engine.rulesets.fate.tables import (ARMOR_PIERCING, ARMOR_TYPES, BOXES, OUTCOME_NAME, OUTCOMES, SIMPLE_ARMOR,
                                SIMPLE_WEAPONS, VICIOUS, outcome_for)
from fudge_combat.events import structs as ev
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.engine.rulesets.fate.state import FateMark, fate_of

if TYPE_CHECKING:
    from fudge_combat.engine.rulesets.fate.command_structs import FateAction, FateMod

MEDIOCRE = -1


# --- the track (FT-TRACK) -----------------------------------------------------------

def marks_of(state: FightState, who: Combatant, exclude: frozenset[int] = frozenset()) -> tuple[FateMark, ...]:
    marks = tuple(fate_of(state).marks.get(who.key, ()))  # the state keeps tuples: no copy
    if not exclude:  # the usual reading (every check of who is still in the fight): nothing to leave out
        return marks
    return tuple(m for m in marks if m.seq not in exclude)


def count(marks: Sequence[FateMark], box: str) -> int:
    return sum(1 for m in marks if m.box == box)


def is_taken_out(marks: Sequence[FateMark]) -> bool:
    return any(m.box == "taken_out" for m in marks)


def place(marks: Sequence[FateMark], outcome: str, boxes: tuple[int, int, int]) -> str:
    """FT-TRACK-2: the box an outcome marks: its own, or the next more severe one with room."""
    capacity = dict(zip(BOXES, (*boxes, 1)))
    for box in BOXES[BOXES.index(outcome):]:
        if box == "taken_out" or count(marks, box) < capacity[box]:
            return box
    return "taken_out"


def penalties(state: FightState, who: Combatant, role: str = "act") -> tuple[list[ev.Modifier], bool]:
    """FT-TRACK-3, FT-SCENE: the penalties on a roll, and whether it pays the clipped -1.

    `role` is "attack" or "defend" in turn pace (a clip counts only on the next attack roll).
    """
    marks = marks_of(state, who)
    scene = state.options.pace == "scene"
    out: list[ev.Modifier] = []
    clip = who.key in fate_of(state).clip and not scene and role != "defend"
    if clip:
        out.append(ev.Modifier(name="clipped (next action)", value=-1))
    if count(marks, "hurt") and not scene:
        out.append(ev.Modifier(name="hurt (this scene)", value=-1))
    injured = count(marks, "injured")
    if injured:
        out.append(ev.Modifier(name=f"injured x{injured}", value=-injured))
    return out, clip


class AspectView(TypedDict):
    boxes: int  # the aspect's boxes on the sheet
    checked: list[int]  # those checked (FT-PTS)


class PenaltyView(TypedDict):
    """A fighter's track as `status` shows it (FT-TRACK-3), the boxes and aspects by name."""

    boxes: dict[str, int]  # marked, by box
    capacity: dict[str, int]  # the boxes of each kind
    next_action: int
    scene: int
    beyond_scene: int
    total_next_action: int
    taken_out: bool
    hurt_narrative: bool
    aspects: dict[str, AspectView]
    fate_points: int


def penalty_view(state: FightState, who: Combatant) -> PenaltyView:
    """What `status` shows: the penalties on the next action, for the scene, beyond the scene."""
    marks = marks_of(state, who)
    scene = state.options.pace == "scene"
    clipped = who.key in fate_of(state).clip and not scene
    hurt = -1 if count(marks, "hurt") and not scene else 0
    injured = -count(marks, "injured")
    return {
        "boxes": {OUTCOME_NAME[b]: count(marks, b) for b in BOXES},
        "capacity": dict(zip((OUTCOME_NAME[b] for b in BOXES), (*state.options.fate_boxes, 1))),
        "next_action": -1 if clipped else 0,
        "scene": hurt,
        "beyond_scene": injured,
        "total_next_action": (-1 if clipped else 0) + hurt + injured,
        "taken_out": is_taken_out(marks),
        "hurt_narrative": scene and bool(count(marks, "hurt")),
        "aspects": {name: {"boxes": boxes,
                           "checked": sorted(b for a, b in fate_of(state).aspects.get(who.key, ()) if a == name)}
                    for name, boxes in who.fighter.sheet.aspects.items()},
        "fate_points": who.fudge_points,
    }


# --- arms (FT-ARMS, FT-SIMPLE, FT-ADV) ------------------------------------------------

def weapon_rating(who: Combatant) -> int:
    weapon = who.fighter.sheet.fate_weapon
    if weapon is None:
        return 0
    if weapon.rating is not None:
        return weapon.rating
    return SIMPLE_WEAPONS[weapon.name.lower()]


def armor_rating(who: Combatant) -> int:
    armor = who.fighter.sheet.fate_armor
    if armor is None:
        return 0
    if armor.rating is not None:
        return armor.rating
    return SIMPLE_ARMOR[armor.name.lower()]


def armor_type(who: Combatant) -> int:
    armor = who.fighter.sheet.fate_armor
    if armor is None:
        return 0
    return armor.type if armor.type is not None else armor_rating(who)


def attributes(who: Combatant) -> tuple[str, ...]:
    weapon = who.fighter.sheet.fate_weapon
    return weapon.attributes if weapon else ()


def check_arms(sheet: Sheet, limit: int, arms: str) -> None:
    """FT-SIMPLE, FT-ADV-1: ratings 0..limit (a house rule raises it), armor types 0..8, names from the tables.

    A rating is read from the table by name when the fight needs it: simple arms, or advanced armor with no type.
    """
    for kind, item, table in (("weapon", sheet.fate_weapon, SIMPLE_WEAPONS), ("armor", sheet.fate_armor, SIMPLE_ARMOR)):
        if item is None:
            continue
        needed = arms == "simple" or (arms == "advanced" and isinstance(item, FateArmor) and item.type is None)
        if item.rating is None and not needed:
            continue
        if item.rating is None and item.name.lower() not in table:
            raise RuleError(f"{sheet.name}'s {kind} {item.name!r} is not in the simple {kind} table (FT-SIMPLE): "
                            f"give a rating, or one of: {', '.join(table)}")
        rating = item.rating if item.rating is not None else table[item.name.lower()]
        if not 0 <= rating <= limit:
            raise RuleError(f"{sheet.name}'s {kind} rating {rating} is outside 0..{limit} (FT-SIMPLE): "
                            "a house rule can raise arms_rating_limit")
    armor = sheet.fate_armor
    if armor is not None and armor.type is not None and armor.type not in ARMOR_TYPES:
        raise RuleError(f"{sheet.name}'s armor type {armor.type} is not on the table: types 0..8 (FT-ADV-1)")
    names = [a for a in (sheet.fate_weapon.attributes if sheet.fate_weapon else ())]
    if len([a for a in names if a in ARMOR_PIERCING]) > 1 or len([a for a in names if a in VICIOUS]) > 1:
        raise RuleError(f"{sheet.name}'s weapon: AP and APx2 (or Vicious and Vcsx2) do not stack (FT-ADV-2)")


def read_harm(state: FightState, attacker: Combatant, defender: Combatant, margin: int) -> tuple[int, int, str]:
    """(number read, armor type, how) for a won attack under the fight's arms (FT-ARMS)."""
    arms = state.options.arms
    if arms == "simple":
        weapon, armor = weapon_rating(attacker), armor_rating(defender)
        return margin + weapon - armor, 0, f"MoS {margin} + weapon {weapon} - armor {armor} (FT-SIMPLE)"
    if arms == "advanced":
        at = armor_type(defender)
        notes = [f"AT{at}"]
        bonus = 0
        for attribute in attributes(attacker):
            if attribute in ARMOR_PIERCING:
                at = max(0, at - ARMOR_PIERCING[attribute][0])
                notes.append(f"{attribute} -> AT{at}")
            if attribute in VICIOUS:
                bonus = VICIOUS[attribute][0]
                if at > 0:
                    at = min(8, at + VICIOUS[attribute][1])
                notes.append(f"{attribute} +{bonus} -> AT{at}")
        return margin + bonus, at, f"MoS {margin}{f' +{bonus}' if bonus else ''} on {', '.join(notes)} (FT-ADV)"
    return margin, 0, ""


# --- sides -----------------------------------------------------------------------------

def fate_able(state: FightState, name: str) -> Combatant:
    who = combatant(state, name)
    if who.track.dead:
        raise RuleError(f"{who.name} is dead (the GM's ruling after the fight)")
    if is_taken_out(marks_of(state, who)):
        raise RuleError(f"{who.name} is Taken Out (FT-TRACK-3): out of the fight")
    if who.left:
        raise RuleError(f"{who.name} is out of the fight ({who.left}) and cannot act")
    return who


def build_side(state: FightState, action: FateAction, mods: Sequence[FateMod], roll: int,
               role: str = "act", mobile: bool = False) -> ev.FateSide:
    """C-ACT-1: the skill and every modifier one combatant brings (FT-MOD, FT-DEF, FT-DROP, FT-ADV-2)."""
    opts = state.options
    who = fate_able(state, action.combatant)
    skill, level, _ = who.fighter.trait(skill_of(who, action, role, state), opts)
    if action.unaware:  # FT-DROP
        _, alertness, _ = who.fighter.trait("Alertness", opts)
        skill, level = "the drop: Mediocre or Alertness", max(MEDIOCRE, alertness)
    modifiers, clip = penalties(state, who, role)
    if action.defensive:
        if action.non_combat:
            raise RuleError(f"{who.name}: fighting defensively (FT-DEF-2) is with the combat skill, not a "
                            "non-combat defence (FT-DEF-1)")
        modifiers.append(ev.Modifier(name="fighting defensively (FT-DEF-2)", value=1))
    if opts.arms == "advanced":  # FT-ADV-2
        for attribute in attributes(who):
            if attribute in ARMOR_PIERCING:
                modifiers.append(ev.Modifier(name=f"{attribute} weapon", value=ARMOR_PIERCING[attribute][1]))
            if attribute == "Flex" and action.maneuver_kind == "disarm" and action.maneuver:
                modifiers.append(ev.Modifier(name="Flex: maneuver", value=1))
            if attribute == "Flex" and mobile:
                modifiers.append(ev.Modifier(name="Flex: both mobile", value=-1))
            if attribute == "Locking" and action.maneuver_kind == "finesse" and action.maneuver:
                modifiers.append(ev.Modifier(name="Locking: finesse maneuver", value=-1))
    if action.mod:
        modifiers.append(ev.Modifier(name="GM modifier", value=action.mod))
    against: dict[str, list[ev.Modifier]] = {}
    for mod in mods:
        if mod.combatant.lower() != who.key:
            continue
        label = f"{mod.kind} (FT-MOD)" if mod.kind != "GM" else "GM modifier"
        if mod.against is None:
            modifiers.append(ev.Modifier(name=label, value=mod.value))
        else:
            against.setdefault(mod.against, []).append(ev.Modifier(name=label, value=mod.value))
    stance: Literal["attack", "defensive", "non_combat", "defend"] = "defensive" if action.defensive else "non_combat" if action.non_combat else (
        "defend" if role == "defend" else "attack")
    return ev.FateSide(combatant=who.name, skill=skill, level=level, roll=roll, modifiers=tuple(modifiers),
                       against=tuple((k, tuple(v)) for k, v in against.items()),
                       target=action.target, stance=stance, maneuver=action.maneuver,
                       maneuver_needs=action.maneuver_needs, maneuver_kind=action.maneuver_kind,
                       non_lethal=action.non_lethal, clip_used=clip)


def result_vs(side: ev.FateSide, foe: str | None = None) -> int:
    extra = sum(m.value for name, mods in side.against if foe and name.lower() == foe.lower() for m in mods)
    return side.level + side.roll + sum(m.value for m in side.modifiers) + extra


def check_actions(state: FightState, actions: Sequence[FateAction], mods: Sequence[FateMod]) -> None:
    names = [fate_able(state, a.combatant).key for a in actions]
    if len(set(names)) != len(names):
        raise RuleError("a combatant rolls once per exchange: name each one once")
    for action in actions:
        if action.target is not None:
            target = fate_able(state, action.target)
            if target.key not in names:
                raise RuleError(f"{action.combatant} acts against {target.name}, who is not in this exchange: "
                                "add him (his roll opposes)")
            if target.key == action.combatant.lower():
                raise RuleError(f"{action.combatant} cannot act against himself")
    for mod in mods:
        if mod.combatant.lower() not in names or (mod.against and mod.against.lower() not in names):
            raise RuleError(f"a modifier names {mod.combatant}{' against ' + mod.against if mod.against else ''}: "
                            "both must be in this exchange")
        if mod.kind in ("superior weapon", "superior armor") and state.options.arms != "dramatic":
            raise RuleError(f"{mod.kind} is the dramatic arms bonus (FT-ARMS); this fight uses {state.options.arms} "
                            "arms, read from the sheets")


def contests(state: FightState, sides: Sequence[ev.FateSide]) -> list[ev.FateContest]:
    """FT-PACE, FT-MULTI, FT-DEF, FT-MANEUVER, FT-OUT: who affects whom, and how much."""
    by_key = {s.combatant.lower(): s for s in sides}
    attackers = {key: [s for s in sides if s.target and s.target.lower() == key and s.stance != "defend"]
                 for key in by_key}
    out = []
    for side in sides:
        key = side.combatant.lower()
        group = attackers[key]
        target = side.target
        note = ""
        if target is None and len(group) >= 2 and side.stance == "attack":
            target = min(group, key=lambda s: result_vs(s, side.combatant)).combatant  # FT-MULTI: the worst roll
            note = "picks the worst roll (FT-MULTI); "
        if target is None:
            continue
        foe = by_key[target.lower()]
        mine, theirs = result_vs(side, foe.combatant), result_vs(foe, side.combatant)
        margin = mine - theirs
        mutual = foe.target is not None and foe.target.lower() == key
        if margin < 0:
            if not mutual:
                out.append(ev.FateContest(attacker=side.combatant, defender=foe.combatant, attacker_result=mine,
                                          defender_result=theirs, margin=margin, read=margin, outcome="none",
                                          note=f"{foe.combatant} holds him off"))
            continue
        if len(group) >= 2 and not all(result_vs(side, s.combatant) > result_vs(s, side.combatant) for s in group):
            out.append(ev.FateContest(attacker=side.combatant, defender=foe.combatant, attacker_result=mine,
                                      defender_result=theirs, margin=margin, read=margin, outcome="none",
                                      note=note + "did not beat every attacker (FT-MULTI)"))
            continue
        attacker, defender = state.find(side.combatant), state.find(foe.combatant)
        assert attacker is not None and defender is not None
        if side.stance == "defensive":
            outcome, read, at, how = "none", margin, 0, "fighting defensively: no harm (FT-DEF-2)"
        elif side.stance == "non_combat":
            outcome, read, at, how = "scratched", margin, 0, "a non-combat defence wins only a Scratch (FT-DEF-1)"
        else:
            read, at, how = read_harm(state, attacker, defender, margin)
            outcome = outcome_for(read, at) if read >= 0 else "scratched"
        maneuver = None
        if side.maneuver is not None:
            if side.maneuver_kind == "disarm" and "Locking" in attributes(defender):
                raise RuleError(f"{defender.name}'s weapon is Locking: it cannot be disarmed (FT-ADV-2)")
            reached = outcome_for(margin, 0)  # FT-ADV-1: armor does not change a maneuver's difficulty
            if OUTCOMES.index(reached) >= OUTCOMES.index(side.maneuver_needs):
                maneuver = side.maneuver
                how = (how + "; " if how else "") + f"maneuver instead of the harm (FT-MANEUVER, needs " \
                                                    f"{OUTCOME_NAME[side.maneuver_needs]})"
            elif side.stance == "defensive":
                how += f"; the maneuver needs {OUTCOME_NAME[side.maneuver_needs]}"
        out.append(ev.FateContest(attacker=side.combatant, defender=foe.combatant, attacker_result=mine,
                                  defender_result=theirs, margin=margin, read=read, armor_type=at, outcome=outcome,
                                  maneuver=maneuver, note=note + how))
    return out


def total_contests(state: FightState, sides: Sequence[ev.FateSide]) -> list[ev.FateContest]:
    """FT-PACE scene, total mode: the two sides' totals; the difference is read and marked on every loser."""
    totals: dict[str, int] = {}
    members: dict[str, list[str]] = {}
    for side in sides:
        who = state.find(side.combatant)
        assert who is not None
        totals[who.side] = totals.get(who.side, 0) + result_vs(side)
        members.setdefault(who.side, []).append(who.name)
    if len(totals) != 2:
        raise RuleError(f"the total difference compares two sides (FT-PACE); this scene has {len(totals)}: "
                        "pair them off with --paired")
    (a, ta), (b, tb) = totals.items()
    if ta < tb:
        (a, ta), (b, tb) = (b, tb), (a, ta)
    margin = ta - tb
    outcome = outcome_for(margin)
    return [ev.FateContest(attacker=a, defender=loser, attacker_result=ta, defender_result=tb, margin=margin,
                           read=margin, outcome=outcome if margin > 0 else "scratched",
                           note=f"side {a} {ta} vs side {b} {tb}") for loser in members[b]]


def mark_events(state: FightState, action: int, found: Sequence[ev.FateContest], sides: Sequence[ev.FateSide],
                exclude: frozenset[int] = frozenset()) -> list[ev.FateBoxMarked]:
    """FT-TRACK-2: each harmful outcome marked on the loser, overflowing; nothing after Taken Out."""
    lethal = {s.combatant.lower(): not s.non_lethal for s in sides}
    placed: dict[str, list[FateMark]] = {}
    out = []
    for contest in found:
        if contest.outcome not in BOXES or contest.maneuver is not None:
            continue
        who = state.find(contest.defender)
        assert who is not None
        marks = placed.setdefault(who.key, list(marks_of(state, who, exclude)))
        if is_taken_out(marks):
            continue
        box = place(marks, contest.outcome, state.options.fate_boxes)
        non_lethal = not lethal.get(contest.attacker.lower(), True)
        marks.append(FateMark(0, box))
        out.append(ev.FateBoxMarked(action=action, combatant=who.name, outcome=contest.outcome, box=box,
                                    by=contest.attacker, non_lethal=non_lethal))
    return out


def resolution(state: FightState, action: int, pace: Literal["scene", "exchange", "turn"],
               sides: Sequence[ev.FateSide], mode: Literal["contests", "total"] = "contests",
               supersedes: int | None = None, exclude: frozenset[int] = frozenset()) -> list[ev.Event]:
    found = total_contests(state, sides) if mode == "total" else contests(state, sides)
    resolved = ev.FateResolved(action=action, pace=pace, round=state.round, sides=tuple(sides),
                               contests=tuple(found), mode=mode, supersedes=supersedes)
    return [resolved, *mark_events(state, action, found, sides, exclude)]


def skill_of(who: Combatant, action: FateAction, role: str, state: FightState) -> str:
    combat = who.fighter.sheet.combat
    wanted = action.skill or ((combat.defend or combat.attack) if combat and role == "defend"
                              else combat.attack if combat else "Fighting")
    return who.fighter.trait(wanted, state.options)[0]


def tie_breaks(state: FightState, who: Combatant) -> tuple[int, int]:
    """FT-INIT: ties of rolled Alertness go to Tactics, then to the combat skill."""
    opts = state.options
    combat = who.fighter.sheet.combat
    return (who.fighter.trait("Tactics", opts)[1],
            who.fighter.trait(combat.attack if combat else "Fighting", opts)[1])


def still_to_act(state: FightState) -> Iterator[Combatant]:
    """FT-INIT: who still has a turn this round, in order: not acted (or passed), not Taken Out, not dead."""
    for key in fate_of(state).order:
        who = state.combatants[key]
        if (key not in fate_of(state).acted and not who.track.dead and who.left is None
                and not is_taken_out(marks_of(state, who))):
            yield who


def next_actor(state: FightState) -> Combatant | None:
    """FT-INIT: whose turn it is in this round's order (None: no order yet, or the round is over)."""
    return next(still_to_act(state), None)
