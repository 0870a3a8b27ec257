"""The fast path for a Fudge duel in phase order (F-PACE-3 under PH, CT and PC initiative), as
`engine.rulesets.fudge.fast` is for a duel at simultaneous pace: the `fudge-phases` preset's fights.

Speed code (`projections.speed`): `fudge sim --engine`, or FUDGE_PLAIN=1, plays the engine instead.

Each round both fighters, in join order, roll their initiative dice (PH-1, CT-TABLE or PC-DICE:
`engine.kernel.initiative.allotment`, a draw of that many dice, none when the table gives none);
the phases each acts in are the engine's own reading of the card (`Initiative.phases`, with the
discards and gifts of `engine.kernel.initiative`), worked out once per card a process meets. Phase
by phase, `++` first and `--` (everyone's) last, the faster on the in-phase order trait first and
then the first to join (PH-3, `engine.rulesets.fudge.phase_order.slots_of`), each fighter still
able to act makes one directed attack on the other (F-PACE-3): the attacker rolls, then the
defender with his defense trait (F-MEL-1), and a result above the defender's that reaches the
least that hits wounds him as a duel's blow does (`fast_common.strike` and `fast_common.place`).
The fight ends when a fighter can no longer act, or after `max_rounds` rounds.

Taken (`plan`): the options `engine.rulesets.fudge.fast` takes, with pace "alternating" and
initiative "phases-crunch" or "phases-classic" instead of simultaneous pace, and the initiative
options read here at any value; two combatants on two sides, each as the simultaneous fast path
takes them; the policies `plain`, `reckless` (all-out offense declared with every attack, F-MOD-6,
or the most aggressive posture, F-TAC-1; an all-out attacker is exposed on his foe's next turn,
F-MOD-8) and `sensible` for a fighter without points (he spends none and, alone, never defends: he
barters one `+` die to raise another to `++`, CT-BARTER-1). Anything else (PH-4's structured
declarations, CT-SPARE, a fighter with points to spend) is played by the engine.
tests/test_sim_fast_phases.py plays thousands of fights both ways.

Rules restated here, each as the engine states it: F-PACE-3 and F-MEL-1 (a directed attack:
`engine.rulesets.fudge.settle.settle_exchange`, kind "attack"), PH-1 and PH-3 (the order of turns:
`phase_order.slots_of` without ties ordered, holds or intents), CT-BARTER-1 as the `sensible` policy
barters (`sim.policies.barter_for_double_plus`, then the engine's own `initiative.barter`), F-MOD-6,
F-MOD-8 and F-TAC-4 (`blows.alternating_all_out`, `evolve._all_out_turns`), F-MOD-1, F-MOD-3 and
F-MOD-4 (the modifiers `sides.side_for` gives an attacker and a defender), F-FANCY-2
(`melee_mods.plus_modifiers`), F-NPC-1, F-MEL-3 (no defense: the unaware difficulty); the damage and
the track as `fast_common` restates them. The digest check of tests/test_sim_fast_phases.py
(`RESTATES`) fails when one of these functions changes, so the restatement is read again.
"""

from __future__ import annotations

from typing import Any

from msgspec import Struct

from fudge_combat.engine.kernel.errors import RuleError
from fudge_combat.engine.kernel.initiative import Initiative, allotment, barter, bonus_phases, card_dice, discards
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.state import Combatant
from fudge_combat.engine.kernel.wounds import INCAPACITATED, LEVELS
from fudge_combat.engine.rulesets.fudge import fast_common as common
from fudge_combat.engine.rulesets.fudge.damage import defensive_factor, offensive_factor
from fudge_combat.engine.rulesets.fudge.fast_common import _FACE, Dice, penalties, place, stream_of, strike
from fudge_combat.engine.rulesets.fudge.melee_mods import weapon_size_modifiers
from fudge_combat.engine.rulesets.fudge.phase_order import PHASE_SYSTEMS, speed
from fudge_combat.engine.rulesets.fudge.settle import min_hit_for
from fudge_combat.engine.rulesets.fudge.sides import shield_value
from fudge_combat.engine.rulesets.fudge.wounding import tech_difference

# The options of the simultaneous fast path, less what phase order changes: each option is in exactly one
# of these (tests/test_sim_fast_phases.py checks it).
FIXED: dict[str, Any] = {**{k: v for k, v in common.FIXED.items() if k not in ("pace", "initiative", "bartering")},
                         "pace": "alternating"}
SYSTEMS = PHASE_SYSTEMS  # the `initiative` values taken
INITIATIVE = frozenset({  # read here, any value
    "initiative_trait", "initiative_order_trait", "crunch_table", "duplicates_act", "bartering",
    "crunch_single_plus_trade", "crunch_downgrades",
})
READ = common.READ | {"initiative", "all_out_exposure", "unaware_difficulty"} | INITIATIVE
AT_OPENING = common.AT_OPENING
UNREAD = common.UNREAD - INITIATIVE - READ
POLICIES = frozenset({"plain", "reckless", "sensible"})  # sensible: only for a fighter without points
EXPOSED = -2  # F-MOD-8: the defense of an all-out attacker on his foe's next turn (`blows.alternating_all_out`)
_DEFAULTS = RuleOptions()


def options_eligible(options: RuleOptions) -> bool:
    """The options are ones this fast path was proven on (see the module's docstring)."""
    if options.initiative not in SYSTEMS:
        return False
    for name in options.__struct_fields__:
        value = getattr(options, name)
        if name in FIXED:
            if value != FIXED[name]:
                return False
        elif name not in READ and name not in AT_OPENING and name not in UNREAD:
            if value != getattr(_DEFAULTS, name):
                return False
    return True


class Fighter(Struct, frozen=True):
    """One fighter of a phase duel: everything constant over the fight, worked out by the engine's functions."""

    attack: int  # the attack trait's level, less the foe's shield (F-MOD-3), with weapon size (F-MOD-4) and all-out offense
    posture: int  # F-TAC-1: offense = result + posture (2 for `reckless` under postures)
    all_out: bool  # F-MOD-6: all-out offense declared with every attack (`reckless` under all_out tactics)
    attack_plus: bool  # F-FANCY-2: the attack trait has a plus level
    defend: int  # the defense trait's level (`combat.defend`, else the attack trait), with weapon size
    defend_plus: bool
    static: bool  # F-NPC-1: no roll
    penalties: tuple[int, ...]  # F-MOD-1: the wound penalty at each track level able to act
    rows: tuple[int, ...]  # boxes per wound level, Scratch first
    min_hit: int  # F-HIT-1: the least result that hits the foe
    factor: int  # F-DMG-3: damage factor against the foe
    dice: int  # initiative dice rolled each round (PH-1)
    phases: Any  # the card (rolled faces) -> the phases acted in, best first (`Phases`)


class Phases:
    """A fighter's phases for each card he may roll (after his policy's barter), each worked out once by the
    engine (`Initiative.phases`, `initiative.barter`); fighters with the same dice, gifts, options and
    policy share what was worked out (`_CARDS`)."""

    __slots__ = ("gifts", "allot", "options", "barters", "known")

    def __init__(self, who: Combatant, options: RuleOptions, barters: bool) -> None:
        _, determinant, _ = who.fighter.trait(options.initiative_trait, options)
        self.allot = allotment(determinant, options)
        self.gifts = who.fighter.sheet.gifts
        self.options = options
        self.barters = barters and options.bartering == "crunch"
        if len(_CARDS) > 256:
            _CARDS.clear()
        self.known = _CARDS.setdefault((self.allot, tuple(self.gifts), options, self.barters), {})

    def __call__(self, faces: tuple[int, ...]) -> tuple[int, ...]:
        known = self.known.get(faces)
        if known is None:  # as `engine.rulesets.fudge.phases.start_round` puts the card, and `phase_order` reads it
            allot = self.allot
            card = card_dice(faces, allot.fixed, discards(faces + allot.fixed, allot, self.gifts))
            initiative = Initiative(card, bonus=bonus_phases(self.gifts))
            if self.barters:
                initiative = bartered(initiative, self.options)
            known = self.known[faces] = initiative.phases(self.options)
        return known


def bartered(initiative: Initiative, options: RuleOptions) -> Initiative:
    """The card after the `sensible` policy's barter (`sim.policies.barter_for_double_plus`, CT-BARTER-1): with
    two or more `+` dice and no `++`, trade the first `+` to raise another to `++`; a barter the rules refuse
    is not made."""
    live = [(i, d) for i, d in enumerate(initiative.dice) if d.live]
    if any(d.face == 2 for _, d in live):
        return initiative
    plus = [i for i, d in live if d.face == 1 and not d.fixed]
    tradeable = [i for i in plus if not initiative.dice[i].locked]
    if len(plus) < 2 or not tradeable or (options.duplicates_act and len(plus) < 3):
        return initiative
    trade = tradeable[0]
    try:
        return barter(initiative, trade, next(i for i in plus if i != trade), 1, options)
    except RuleError:
        return initiative


# (allotment, gifts, options, barters) -> rolled faces -> the phases acted in
_CARDS: dict[tuple[Any, ...], dict[tuple[int, ...], tuple[int, ...]]] = {}


def turns_of(first: tuple[int, ...], second: tuple[int, ...], first_leads: bool) -> tuple[int, ...]:
    """PH-1, PH-2, PH-3: who acts at each turn of a round (0: the first to join, 1: the other), as
    `phase_order.slots_of` orders the two fighters' phases: phase by phase, `++` first; within a phase the
    faster first (`first_leads`), and a repeat (PH-2 `duplicates_act`) after everyone's first."""
    key = (first, second, first_leads)
    known = _TURNS.get(key)
    if known is None:
        acting = (first, second)
        order = (0, 1) if first_leads else (1, 0)
        repeats = max(len(first), len(second))
        known = tuple(who for phase in (2, 1, 0, -1, -2) for repeat in range(repeats)
                      for who in order if acting[who].count(phase) > repeat)
        if len(_TURNS) > 4096:
            _TURNS.clear()
        _TURNS[key] = known
    return known


_TURNS: dict[tuple[Any, ...], tuple[int, ...]] = {}


class Damage(Struct, frozen=True):
    """The options a won blow's damage and its mark read (`fast_common.strike`, `fast_common.place`)."""

    thresholds: tuple[int, ...]
    graze_table: tuple[int, int]
    graze_cap: int
    damage_roll: str
    graze_damage_roll: bool
    weight: int
    scratch_cap: bool
    gm_death: bool


class PhaseDuel(Struct, frozen=True):
    """A duel in phase order: both fighters, the order between them within a phase, and the strike's options."""

    first: Fighter
    second: Fighter
    first_leads: bool  # PH-3: within a phase the first to join acts first (faster, or as fast)
    max_rounds: int
    damage: Damage
    postures: bool  # F-TAC-4: offense against defense
    offense_damage: int  # F-MOD-6: the all-out attacker's damage bonus
    no_defense: bool  # F-MOD-8 `all_out_exposure = "no_defense"`: an exposed fighter does not defend at all
    unaware: int  # F-MEL-3: the difficulty a blow on one who does not defend is rolled against

    def play(self, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
        return play(self, seed)


def plan(setup: Any, opening: Any) -> PhaseDuel | None:
    """The duel to play fast, or None when any part of the setup is outside what this path was proven on."""
    state = opening.state
    options = state.options
    if not options_eligible(options) or len(setup.entrants) != 2 or len(state.combatants) != 2:
        return None
    first, second = sorted(state.combatants.values(), key=lambda c: c.joined_seq)
    if first.side == second.side or state.initiative or state.turn is not None:
        return None
    policies = [entrant.policy or setup.policy for entrant in setup.entrants]
    for who, policy in zip((first, second), policies):
        if policy not in POLICIES or (policy == "sensible" and who.fudge_points > 0) or not common.fighter_eligible(who):
            return None
    if state.exposed or state.forfeits or state.declarations or state.round_declarations:
        return None
    damage = Damage(tuple(options.wound_thresholds), tuple(options.graze_table), options.graze_cap,
                    options.damage_roll, options.graze_damage_roll, options.relative_degree_weight,
                    options.scratch_cap, options.death_rule == "gm")
    return PhaseDuel(_fighter(state, first, second, policies[0]), _fighter(state, second, first, policies[1]),
                     speed(state, first) >= speed(state, second), setup.max_rounds, damage,
                     options.tactics == "postures", options.all_out_offense_damage,
                     options.all_out_exposure == "no_defense", options.unaware_difficulty)


def _fighter(state: Any, who: Combatant, foe: Combatant, policy: str) -> Fighter:
    """`engine.rulesets.fudge.sides.side_for` for an attack on `foe` and a defense against him, less what
    changes from blow to blow (the wound, the plus level's round, an exposure)."""
    options = state.options
    combat = who.fighter.sheet.combat
    attack, attack_level, _ = who.fighter.trait(combat.attack if combat else "Brawling", options)
    defend, defend_level, _ = who.fighter.trait((combat.defend or combat.attack) if combat else "Brawling", options)
    size = sum(m.value for m in weapon_size_modifiers(state, who, foe))  # F-MOD-4, both roles
    tech = tech_difference(who.fighter, foe.fighter, options)
    factor = (offensive_factor(who.fighter, options) - defensive_factor(foe.fighter, who.fighter, options)
              + (tech or 0))
    reckless = policy == "reckless"
    all_out = reckless and options.tactics == "all_out"  # `sim.policies.OFFENSES`
    posture = 2 if reckless and options.tactics == "postures" else 0
    phases = Phases(who, options, barters=policy == "sensible")
    return Fighter(attack_level - shield_value(foe, options) + size + (options.all_out_offense_skill if all_out else 0),
                   posture, all_out, attack in who.fighter.plus, defend_level + size, defend in who.fighter.plus,
                   options.npc_static and who.fighter.sheet.kind == "npc", penalties(options, who.track.pain),
                   tuple(who.boxes), min_hit_for(state, who, foe, None), factor, phases.allot.rolled, phases)


def faces(dice: Dice, draw: int, count: int) -> tuple[int, ...]:
    """`engine.kernel.dice.derive_faces(seed, stream, draw, count)`: each byte of 255 rejected, byte % 3 - 1."""
    digest = dice.block(draw, 0)
    if 255 not in digest[:count]:  # the common case: the first `count` bytes, none rejected
        return tuple(map(_FACE.__getitem__, digest[:count]))
    out: list[int] = []
    block = 0
    while True:
        for byte in digest:
            if byte != 255:
                out.append(_FACE[byte])
                if len(out) == count:
                    return tuple(out)
        block += 1
        digest = dice.block(draw, block)


def play(duel: PhaseDuel, seed: bytes) -> tuple[int | None, int, tuple[str, str]]:
    """(winner: 0, 1 or None for a draw; rounds; each fighter's final wound) of the fight with this seed."""
    dice = Dice(seed, stream_of(seed))
    fighters = (duel.first, duel.second)
    damage = duel.damage
    filled = ([0] * len(duel.first.rows), [0] * len(duel.second.rows))
    levels = [0, 0]  # each track's level: the highest marked row, DEAD (6) once dead
    exposure: list[int | None] = [None, None]  # F-MOD-8: the foe whose next turn finds each fighter exposed
    first_leads = duel.first_leads
    draw = rounds = 0
    over = False
    while not over and rounds < duel.max_rounds:
        rounds += 1
        even = rounds >= 2 and rounds % 2 == 0  # F-FANCY-2
        phases = []
        for fighter in fighters:  # PH-1: both can act at a round's start (else the fight is over)
            if fighter.dice:
                phases.append(fighter.phases(faces(dice, draw, fighter.dice)))
                draw += 1
            else:
                phases.append(fighter.phases(()))
        turns = turns_of(phases[0], phases[1], first_leads)
        for who in turns:
            if levels[who] >= INCAPACITATED:
                continue  # `phases.next_index`: the turn of one who can no longer act is skipped
            attacker, defender = fighters[who], fighters[1 - who]
            exposed = exposure[1 - who] == who  # F-MOD-8: the defender attacked this attacker all-out
            if attacker.static:
                attack_roll = 0
            else:
                attack_roll = dice.total(draw, 4)
                draw += 1
            result = (attacker.attack + attack_roll + attacker.penalties[levels[who]]
                      + (attacker.attack_plus and even))
            defense_roll: int | None
            if exposed and duel.no_defense:  # F-MEL-3: no defense, the unaware difficulty
                defense_roll, defense = None, duel.unaware
            else:
                if defender.static:
                    defense_roll = 0
                else:
                    defense_roll = dice.total(draw, 4)
                    draw += 1
                defense = (defender.defend + defense_roll + defender.penalties[levels[1 - who]]
                           + (defender.defend_plus and even) + (EXPOSED if exposed else 0))
            offense = result + attacker.posture  # F-TAC-4 (a posture is 0 under all_out tactics)
            rd = offense - defense
            if rd >= 1 and offense >= attacker.min_hit:  # F-MEL-1, F-HIT-1
                bonus = duel.offense_damage if attacker.all_out else 0  # F-MOD-6
                level, draw = strike(damage, attacker, rd, bonus, attack_roll, defense_roll, dice, draw)
                if level > 0 and levels[1 - who] != 6:
                    levels[1 - who] = place(damage, defender.rows, filled[1 - who], level)
            exposure[who] = 1 - who if attacker.all_out else None  # `evolve._all_out_turns`
            if exposed:
                exposure[1 - who] = None
            if levels[1 - who] >= INCAPACITATED:
                over = True
                break
    able = (levels[0] < INCAPACITATED, levels[1] < INCAPACITATED)
    won = None if able[0] == able[1] else (0 if able[0] else 1)
    return won, rounds, (LEVELS[levels[0]], LEVELS[levels[1]])


# The engine code restated above, each with a digest of its source (`projections.fast.source_digest`) when the
# two were last read together: tests/test_sim_fast_phases.py fails when one changes, until this module is read
# again (and the change made here, or seen not to matter) and the digest set anew.
RESTATES: dict[str, str] = {
    "engine.rulesets.fudge.settle.settle_exchange": "7094637a4a77",
    "engine.rulesets.fudge.phase_order.slots_of": "bbdd294f2203",
    "engine.rulesets.fudge.sides.side_for": "e425d76d80c3",
    "engine.rulesets.fudge.phases.start_round": "e477f2a4729f",
    "engine.rulesets.fudge.phases.next_index": "0cd71113b7f6",
    "engine.rulesets.fudge.melee_mods.plus_modifiers": "70eecbef4bfd",
    "engine.rulesets.fudge.decider.attack": "98eca8cc663f",
    "engine.rulesets.fudge.blows.fight": "053a7243ddab",
    "engine.kernel.dice.derive_faces": "8fec2ca0203e",
    "engine.rulesets.fudge.blows.alternating_all_out": "3a8f29aeb0b8",
    "engine.rulesets.fudge.evolve._all_out_turns": "7866c978ee07",
    "sim.policies.barter_for_double_plus": "dd7b4eaae0e3",
    "sim.policies.reckless_declaration": "b86cf1b5a798",
    "sim.policies.sensible_declaration": "3658e73a0648",
}
