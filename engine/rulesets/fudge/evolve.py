"""`evolve`: the state after one event, one small function per event type (`HANDLERS`).

Each function takes the state and the recorded event and returns a new state (`replace`);
none mutates what it is given. Voiding events change nothing here: which events count is
worked out before evolve sees them (`engine.kernel.history.effective`).
"""

from __future__ import annotations

from typing import Any

from fudge_combat.engine.rulesets.fudge import healing
from fudge_combat.engine.rulesets.fudge.conditions import expire
from fudge_combat.engine.kernel.initiative import Initiative, Intent, card_dice
from fudge_combat.engine.rulesets.fudge.locations import worsen
from fudge_combat.engine.kernel.options import stored_options
from fudge_combat.engine.kernel.sheets import read_levels, stored_sheet
from fudge_combat.engine.rulesets.fudge.evolving import remember, with_item, without
from fudge_combat.engine.rulesets.fudge.phase_order import with_tie_order
from fudge_combat.engine.kernel.state import Combatant, FightState, Turn, initial_part, replace
from fudge_combat.engine.rulesets.fudge.tracks import KNOCKED_OUT, track_of
from fudge_combat.engine.kernel.wounds import Mark
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded


def _fight_started(s: FightState, r: Recorded, e: ev.FightStarted) -> FightState:
    options = stored_options(e.options)
    return replace(s, fight_id=r.fight, name=e.name, rules=e.rules, part=initial_part(options.ruleset),
                   options=options, stream=e.stream, commitment=e.seed_commitment)


def _branch_started(s: FightState, r: Recorded, e: ev.BranchStarted) -> FightState:
    return replace(s, fight_id=r.fight, name=e.name, stream=e.stream, commitment=e.seed_commitment)


def _seed_committed(s: FightState, r: Recorded, e: ev.SeedCommitted) -> FightState:
    return replace(s, fight_id=r.fight, stream=e.stream, commitment=e.seed_commitment)


def _seed_revealed(s: FightState, r: Recorded, e: ev.SeedRevealed) -> FightState:
    return replace(s, revealed=s.revealed + (e.seed_commitment,))


def _joined(s: FightState, r: Recorded, e: ev.CombatantJoined) -> FightState:
    sheet = stored_sheet(e.sheet)
    fighter = read_levels(sheet, s.ladder, e.source, s.options.plus_levels)
    if sheet.fudge_points is not None:
        points = sheet.fudge_points
    else:  # C-FP-1: the ruleset's pool, and none for an NPC unless the sheet says otherwise
        points = s.options.npc_fudge_points if sheet.kind == "npc" else s.options.default_fudge_points
    boxes = sheet.wounds.boxes if sheet.wounds else s.options.wound_boxes
    if not sheet.wounds and s.options.wound_chart == "health":
        from fudge_combat.engine.rulesets.fudge.campaign import health_chart  # AI-WND-1, an option of a Fudge fight

        boxes = health_chart(fighter.trait("Health", s.options)[1]).boxes
    combatant = Combatant(e.combatant, e.side, fighter, points, tuple(boxes),
                          track=track_of(fighter, boxes, (), s.options), joined_seq=r.seq)
    return replace(s, combatants=with_item(s.combatants, combatant.key, combatant))


def _round_started(s: FightState, r: Recorded, e: ev.RoundStarted) -> FightState:
    s = expire(s, e.round)
    return replace(s, round=e.round, declarations={}, sealed={}, fought=frozenset(), forfeits=frozenset(),
                   round_starts=with_item(s.round_starts, len(s.round_starts), r.seq),
                   initiative={}, turn=None, slot_start=0, pending={},
                   round_declarations={k: d for k, (n, d) in s.pending.items() if n == e.round},
                   ranked=s.ranked if (s.options.initiative == "opposed"
                                       and s.options.initiative_every == "battle") else {},
                   advantages={k: v for k, v in s.advantages.items() if v[2] >= e.round})


def _declared(s: FightState, r: Recorded, e: ev.Declared) -> FightState:
    key = e.combatant.lower()
    if e.round > s.round:  # rolled initiative: declared before the round it is for (AI-WAIT, F-INIT-3)
        return replace(s, pending=with_item(s.pending, key, (e.round, e.declaration)))
    return replace(s, declarations=with_item(s.declarations, key, e.declaration),
                   sealed=without(s.sealed, key))


def _sealed(s: FightState, r: Recorded, e: ev.DeclarationSealed) -> FightState:
    key = e.combatant.lower()
    return replace(s, sealed=with_item(s.sealed, key, (e.seal, r.seq)),
                   declarations=without(s.declarations, key))


def _revealed(s: FightState, r: Recorded, e: ev.DeclarationRevealed) -> FightState:
    key = e.combatant.lower()
    return replace(s, sealed=without(s.sealed, key),
                   declarations=with_item(s.declarations, key, e.declaration))


def _dice_rolled(s: FightState, r: Recorded, e: ev.DiceRolled) -> FightState:
    record = s.actions.get(e.action)
    rolls = (record.rolls if record else ()) + (r.seq,)
    return remember(s, r, e.action, rolls=rolls)


def _action_resolved(s: FightState, r: Recorded, e: ev.ActionResolved) -> FightState:
    return remember(s, r, e.action, resolution=r.seq)


def _exchange_resolved(s: FightState, r: Recorded, e: ev.ExchangeResolved) -> FightState:
    s = remember(s, r, e.action, resolution=r.seq)
    keys = frozenset(side.combatant.lower() for side in e.sides)
    opened = dict(s.advantage_open)
    for side in e.sides:
        key = side.combatant.lower()
        opened.pop(key, None)
        foes = [o for o in e.sides if o.combatant.lower() != key]
        won = all(side.result is not None and o.result is not None and side.result >= o.result for o in foes)
        if side.declaration.all_out == "defense" and won and foes:
            opened[key] = foes[0].combatant.lower()
    used = {k: v for k, v in s.advantages.items() if k not in keys}
    turn = replace(s.turn, acted=True) if (s.turn and e.kind == "attack") else s.turn
    s = _all_out_turns(s, e)
    return replace(s, fought=s.fought | keys, advantage_open=opened, advantages=used,
                   declarations=without(s.declarations, *keys), turn=turn)


def _all_out_turns(s: FightState, e: ev.ExchangeResolved) -> FightState:
    """F-MOD-8 (alternating turns): an all-out defender forfeits his attack this round; an all-out
    attacker is exposed on his foe's next turn; the attacker's own turn ends an earlier exposure."""
    if s.options.pace != "alternating" or e.kind != "attack":
        return s
    attacker, defender = e.sides[0], e.sides[1]
    exposed = without(s.exposed, attacker.combatant.lower())
    if attacker.declaration.all_out == "offense":
        exposed[attacker.combatant.lower()] = defender.combatant.lower()
    if s.exposed.get(defender.combatant.lower()) == attacker.combatant.lower():
        exposed = without(exposed, defender.combatant.lower())
    forfeits = s.forfeits | ({defender.combatant.lower()} if defender.declaration.all_out == "defense" else set())
    return replace(s, exposed=exposed, forfeits=frozenset(forfeits))


def _shot_resolved(s: FightState, r: Recorded, e: ev.ShotResolved) -> FightState:
    """F-RNG: a shot is the shooter's action (and the target's when it shoots back)."""
    s = remember(s, r, e.action, resolution=r.seq)
    keys = frozenset(side.combatant.lower() for side in e.sides)
    turn = replace(s.turn, acted=True) if (s.turn and s.turn.combatant == e.sides[0].combatant.lower()) else s.turn
    return replace(s, fought=s.fought | keys, turn=turn)


def _retrack(s: FightState, combatant: Combatant, marks: tuple[Mark, ...]) -> FightState:
    track = track_of(combatant.fighter, combatant.boxes, marks, s.options, combatant.out)
    if combatant.killed_by is not None and not track.dead:
        track = replace(track, dead=True, killed_by=combatant.killed_by)
    updated = replace(combatant, marks=marks, track=track)
    return replace(s, combatants=with_item(s.combatants, combatant.key, updated))


def _wound_marked(s: FightState, r: Recorded, e: ev.WoundMarked) -> FightState:
    record = s.actions.get(e.action)
    consequences = (record.consequences if record else ()) + (r.seq,)
    s = remember(s, r, e.action, consequences=consequences)
    combatant = s.combatants[e.combatant.lower()]
    return _retrack(s, combatant, combatant.marks + (Mark(e.level, r.seq, e.still_ticking),))


def _location_wounded(s: FightState, r: Recorded, e: ev.LocationWounded) -> FightState:
    """F-LOC-2: the part keeps its own level; the wound track is not marked."""
    record = s.actions.get(e.action)
    s = remember(s, r, e.action, consequences=(record.consequences if record else ()) + (r.seq,))
    who = s.combatants[e.combatant.lower()]
    part = e.location.strip().lower()
    before, affects = who.locations.get(part, (0, None))
    updated = replace(who, locations=with_item(who.locations, part, (worsen(before, e.level), e.affects or affects)))
    return replace(s, combatants=with_item(s.combatants, who.key, updated))


def _killed(s: FightState, r: Recorded, e: ev.CombatantKilled) -> FightState:
    combatant = replace(s.combatants[e.combatant.lower()], killed_by=r.seq)
    return _retrack(s, combatant, combatant.marks)


def _left(s: FightState, r: Recorded, e: ev.CombatantLeft) -> FightState:
    """Out of the fight as a knocked-out fighter is (the track's `out`), and still out after the battle."""
    combatant = replace(s.combatants[e.combatant.lower()], left=e.how, out=e.how)
    return _retrack(s, combatant, combatant.marks)


def _advantage(s: FightState, r: Recorded, e: ev.AdvantageGained) -> FightState:
    if e.action is not None:
        record = s.actions.get(e.action)
        s = remember(s, r, e.action, consequences=(record.consequences if record else ()) + (r.seq,))
    return replace(s, advantages=with_item(s.advantages, e.over.lower(), (e.combatant, e.modifier, e.round)),
                   advantage_open=without(s.advantage_open, e.combatant.lower()))


def _initiative_rolled(s: FightState, r: Recorded, e: ev.InitiativeRolled) -> FightState:
    initiative = Initiative(card_dice(e.faces, e.fixed, e.discarded), e.surprised, bonus=e.bonus_phases, seq=r.seq)
    return replace(s, initiative=with_item(s.initiative, e.combatant.lower(), initiative))


def _bartered(s: FightState, r: Recorded, e: ev.DieBartered) -> FightState:
    key = e.combatant.lower()
    dice = list(s.initiative[key].dice)
    dice[e.traded] = replace(dice[e.traded], traded=True)
    before = dice[e.altered]
    dice[e.altered] = replace(before, face=e.face_after,
                              locked=before.locked or (e.direction > 0 and e.face_after == 1))
    return replace(s, initiative=with_item(s.initiative, key, replace(s.initiative[key], dice=tuple(dice))))


def _turn(s: FightState, r: Recorded, e: ev.TurnTaken) -> FightState:
    same_slot = s.turn is not None and (s.turn.round, s.turn.phase) == (e.round, e.phase)
    return replace(s, turn=Turn(e.round, e.phase, e.combatant.lower(), e.index, step=e.step),
                   slot_start=s.slot_start if same_slot else r.seq)


def _ranked(s: FightState, r: Recorded, e: ev.InitiativeRanked) -> FightState:
    return replace(s, ranked=with_item(s.ranked, e.combatant.lower(), e))


def _steeled(s: FightState, r: Recorded, e: ev.WillSteeled) -> FightState:
    record = s.actions.get(e.action)
    s = remember(s, r, e.action, consequences=(record.consequences if record else ()) + (r.seq,))
    return replace(s, will_relief=with_item(s.will_relief, e.combatant.lower(), e.levels))


def _spent(s: FightState, r: Recorded, e: ev.FudgePointSpent) -> FightState:
    combatant = s.combatants[e.combatant.lower()]
    updated = replace(combatant, fudge_points=combatant.fudge_points - e.cost)
    return replace(s, combatants=with_item(s.combatants, combatant.key, updated))


def _melee_resolved(s: FightState, r: Recorded, e: ev.MeleeResolved) -> FightState:
    """F-MULTI: everyone in the melee has fought this round; their declarations and advantages are used."""
    s = remember(s, r, e.action, resolution=r.seq)
    keys = frozenset(side.combatant.lower() for side in (e.lone, *e.foes))
    return replace(s, fought=s.fought | keys, declarations=without(s.declarations, *keys),
                   advantages={k: v for k, v in s.advantages.items() if k not in keys},
                   advantage_open=without(s.advantage_open, *keys))


def _story_rolled(s: FightState, r: Recorded, e: ev.StoryRolled) -> FightState:
    return remember(s, r, e.action, resolution=r.seq)


def _with_initiative(s: FightState, name: str, **changes: Any) -> FightState:
    key = name.lower()
    return replace(s, initiative=with_item(s.initiative, key, replace(s.initiative[key], **changes)))


def _with_die(s: FightState, name: str, index: int, **changes: Any) -> FightState:
    dice = list(s.initiative[name.lower()].dice)
    dice[index] = replace(dice[index], **changes)
    return _with_initiative(s, name, dice=tuple(dice))


def _die_traded(s: FightState, r: Recorded, e: ev.DieTraded) -> FightState:
    return _with_die(s, e.combatant, e.die, traded=True)


def _die_altered(s: FightState, r: Recorded, e: ev.DieAltered) -> FightState:
    return _with_die(s, e.combatant, e.die, face=e.face_after)


def _ties_ordered(s: FightState, r: Recorded, e: ev.TiesOrdered) -> FightState:
    return with_tie_order(s, e.order)


def _intent(s: FightState, r: Recorded, e: ev.IntentDeclared) -> FightState:
    key = e.combatant.lower()
    intent = Intent(e.phase, e.what, e.target.lower() if e.target else None)
    s = _with_initiative(s, key, intents=s.initiative[key].intents + (intent,))
    return replace(s, turn=replace(s.turn, acted=True) if s.turn else None)


def _turn_used(s: FightState, r: Recorded, e: ev.TurnUsed) -> FightState:
    return replace(s, turn=replace(s.turn, acted=True) if s.turn else None)


def _held(s: FightState, r: Recorded, e: ev.ActionHeld) -> FightState:
    """PH-4: the held turn moves to the end of its phase; the turn before it counts as the last taken."""
    s = _with_initiative(s, e.combatant, held=s.initiative[e.combatant.lower()].held + (e.phase,))
    return replace(s, turn=replace(s.turn, index=s.turn.index - 1, step="held", acted=True) if s.turn else None)


def _spare_spent(s: FightState, r: Recorded, e: ev.SpareDieSpent) -> FightState:
    return _with_die(s, e.combatant, e.die, spent=True)


def _healed(s: FightState, r: Recorded, e: ev.WoundsHealed) -> FightState:
    """F-HEAL: the marks are healed from their own levels and placed again."""
    combatant = s.combatants[e.combatant.lower()]
    if e.action is not None:
        s = remember(s, r, e.action, resolution=r.seq)
    if e.cause == "end" and s.ended_through == r.seq - 1:  # the Scratches a battle's end erases belong to it
        s = replace(s, ended_through=r.seq)
    return _retrack(s, combatant, healing.apply(combatant.marks, e.changes))


def _stun_marked(s: FightState, r: Recorded, e: ev.StunMarked) -> FightState:
    """F-STUN-1: a Stun stays on the sheet; a knockout takes the combatant out."""
    record = s.actions.get(e.action)
    s = remember(s, r, e.action, consequences=(record.consequences if record else ()) + (r.seq,))
    combatant = s.combatants[e.combatant.lower()]
    if e.effect == "knocked_out":
        combatant = replace(combatant, out=KNOCKED_OUT)
        return _retrack(s, combatant, combatant.marks)
    lasts = 1 if e.effect == "stun" else 2
    combatant = replace(combatant, stuns=combatant.stuns + 1, stunned=(e.effect, e.round + lasts))
    return replace(s, combatants=with_item(s.combatants, combatant.key, combatant))


def _battle_ended(s: FightState, r: Recorded, e: ev.BattleEnded) -> FightState:
    """F-STUN-1: stun marks clear after combat; a knocked-out combatant comes round in time."""
    for key, combatant in s.combatants.items():
        cleared = replace(combatant, stuns=0, stunned=None, out=combatant.left)  # who left stays out
        s = _retrack(s, cleared, cleared.marks)
    # AI-WILL-1: willpower lasts the scene, and the battle was the scene
    return replace(s, will_relief={}, ended_through=r.seq)


def _ignore(s: FightState, r: Recorded, e: ev.Event) -> FightState:
    return s  # voiding events act in `fold.effective`, before evolve sees anything
