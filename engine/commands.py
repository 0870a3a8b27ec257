"""Commands: what a GM asks for, imperative, validated before the core sees them."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, TypeAdapter, model_serializer, \
    model_validator

from events.models import Declaration


from engine.command_base import CombatantName, CommandModel
from engine.commands_fate import (CheckAspect, EndScene, FateAction, FateAttack, FateExchange, FateMod,  # noqa: F401
                                  FateRound, FateScene, RecoverInjury)  # (FateAction, FateMod: cmd.FateAction for the CLI)


class StartFight(CommandModel):
    type: Literal["start_fight"] = "start_fight"
    name: str
    rules: str
    options: dict[str, Any]
    seed_commitment: str
    stream: str


class StartBranch(CommandModel):
    type: Literal["start_branch"] = "start_branch"
    name: str
    parent: str
    fork_seq: int
    seed_commitment: str
    stream: str


class CommitSeed(CommandModel):
    type: Literal["commit_seed"] = "commit_seed"
    seed_commitment: str
    stream: str
    reason: str


class RevealSeed(CommandModel):
    type: Literal["reveal_seed"] = "reveal_seed"
    seeds: tuple[tuple[str, str], ...]  # (commitment, seed hex)
    next_commitment: str
    next_stream: str


class Join(CommandModel):
    type: Literal["join"] = "join"
    sheet: dict[str, Any]
    source: str
    name: str | None = None
    side: str | None = None


class Declare(CommandModel):
    type: Literal["declare"] = "declare"
    combatant: CombatantName
    declaration: Declaration
    posture_roll: bool = False  # F-TAC-3: a 1d6 picks the posture
    posture_die: int | None = None  # the d6 face rolled at the table


class SealDeclaration(CommandModel):
    """A-SEAL-1: the shell keeps the choice and salt secret; only the seal is logged."""

    type: Literal["seal_declaration"] = "seal_declaration"
    combatant: CombatantName
    seal: str


class Reveal(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    combatant: CombatantName
    declaration: Declaration
    salt: str


class StartRound(CommandModel):
    type: Literal["start_round"] = "start_round"
    surprised: tuple[CombatantName, ...] = ()
    reveals: tuple[Reveal, ...] = ()
    # --- rolled initiative (F-INIT-2): GM inputs for surprise ---
    initiative_bonus: tuple[tuple[CombatantName, int], ...] = ()
    automatic: tuple[CombatantName, ...] = ()


class Targeting(BaseModel):
    """Where the first fighter (or the attacker) aims the blow, and whether a speed contest opens it."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    aim: int | None = None  # F-HIT-2: the minimum result to strike the part
    aim_at: str | None = None  # F-HIT-2: the part aimed at
    called: str | None = None  # F-LOC-1: a called shot at this part, declared with the command
    called_rd: int | None = None  # F-LOC-1: the relative degree it needs (None: the default)
    otherwise: str | None = None  # F-LOC-1: where a called shot won by less lands, as the defender names it
    affects: str | None = None  # F-LOC-2: what the wounded part hinders
    speed_contest: bool = False  # F-FANCY-1


NO_TARGETING = Targeting()
TARGETING_FIELDS = frozenset(Targeting.model_fields)


class _Targeted(CommandModel):
    """A blow with a `targeting`. Its fields are given, and stored in the log's `issued` dumps, flat
    (`aim`, `called`, ... beside `first` and `second`), as the commands of older logs hold them: a
    dump stays byte for byte what it was, and `fudge verify` re-decides an old log from it."""

    targeting: Targeting = NO_TARGETING

    @model_validator(mode="before")
    @classmethod
    def _nest(cls, data: Any) -> Any:
        """The flat targeting keys, as given or stored, gathered into `targeting`."""
        if not isinstance(data, dict) or TARGETING_FIELDS.isdisjoint(data):
            return data
        flat = {k: v for k, v in data.items() if k in TARGETING_FIELDS}
        nested = data.get("targeting", {})
        if isinstance(nested, Targeting):
            nested = nested.model_dump(exclude_unset=True)
        rest = {k: v for k, v in data.items() if k not in TARGETING_FIELDS}
        return {**rest, "targeting": {**nested, **flat}} if isinstance(nested, dict) else data

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data = handler(self)
        data.update(data.pop("targeting", None) or {})
        return data


class Exchange(_Targeted):
    """F-PACE-2: a simultaneous opposed round between two fighters."""

    type: Literal["exchange"] = "exchange"
    first: CombatantName
    second: CombatantName
    mods: tuple[int, int] = (0, 0)
    min_hit: int | None = None
    reveals: tuple[Reveal, ...] = ()
    stun: tuple[CombatantName, ...] = ()  # F-STUN-1: fighters whose blows stun
    pull: tuple[tuple[CombatantName, int], ...] = ()  # F-STUN-2: (fighter, worst wound level)
    head: tuple[CombatantName, ...] = ()  # F-STUN-3: fighters aiming at the head
    magic: tuple[tuple[CombatantName, int], ...] = ()  # F-MOD-5: (fighter, blessing or curse)


class Attack(_Targeted):
    """F-PACE-3: a directed attack; the target only defends."""

    type: Literal["attack"] = "attack"
    attacker: CombatantName
    target: CombatantName
    mod: int = 0
    defense_mod: int = 0
    min_hit: int | None = None
    unaware: bool = False
    difficulty: int | None = None
    reveals: tuple[Reveal, ...] = ()
    stun: bool = False  # F-STUN-1
    pull: int | None = None  # F-STUN-2
    head: bool = False  # F-STUN-3
    magic: tuple[tuple[CombatantName, int], ...] = ()
    # --- atari isev (AI-ATK, AI-POS, AI-RNG, AI-MULTI) ---
    avoid: Literal["dodge", "parry", "dodge-parry", "none"] | None = None
    position: tuple[Literal["behind", "back", "above", "below", "prone"], ...] = ()
    target_back: bool = False
    ranged: Literal["thrown", "propelled"] | None = None
    ranged_mod: int | None = None
    weapon: Literal["main", "off-hand", "unarmed"] | None = None
    targets: tuple[CombatantName, ...] = ()  # AI-SWEEP: the further foes of a multi-strike, in order
    targets_avoid: tuple[Literal["dodge", "parry", "dodge-parry", "none"], ...] = ()  # AI-SWEEP: theirs, in order


class Willpower(CommandModel):
    """AI-WILL-1: a Will roll (story inspiration) lowers the effective wound status for the scene."""

    type: Literal["willpower"] = "willpower"
    combatant: CombatantName
    mod: int = 0


class ResistSpell(CommandModel):
    """AI-WILL-2: caster and target roll Will; the target's excess reduces the spell."""

    type: Literal["resist_spell"] = "resist_spell"
    caster: CombatantName
    target: CombatantName


class HeroicAvoidance(CommandModel):
    """AI-HEROIC: roll with the blow just taken: one wound level less, then an Agility roll vs Fair."""

    type: Literal["heroic"] = "heroic"
    combatant: CombatantName
    target: int | None = None


class RollTrait(CommandModel):
    """C-ACT: any other action roll, unopposed, opposed, or situational."""

    type: Literal["roll"] = "roll"
    combatant: CombatantName
    trait: str | None
    difficulty: int | None = None
    opponent: CombatantName | None = None
    opponent_trait: str | None = None
    mod: int = 0
    opponent_mod: int = 0
    advantage: bool = False
    free: bool = False  # under phase initiative: not an action in phase order (a reaction, a GM-called roll)
    median: bool = False  # C-ACT-5: three rolls, the median counts


class Barter(CommandModel):
    type: Literal["barter"] = "barter"
    combatant: CombatantName
    trade: int
    alter: int
    direction: Literal[1, -1]
    second_trade: int | None = None  # PC-BARTER-1: classic bartering trades two dice


class NextTurn(CommandModel):
    type: Literal["next"] = "next"


class SpendPoint(CommandModel):
    type: Literal["spend"] = "spend"
    combatant: CombatantName
    use: Literal["panache", "skill", "luck", "scratch", "ticking", "spare"]  # spare: CT-SPARE
    target: int | None = None
    shift: Literal[1, -1] | None = None


class Kill(CommandModel):
    type: Literal["kill"] = "kill"
    combatant: CombatantName
    reason: str = ""


class Melee(CommandModel):
    """F-MULTI: a lone fighter against several foes, one roll compared with each foe's."""

    type: Literal["melee"] = "melee"
    lone: CombatantName
    foes: tuple[CombatantName, ...]
    target: CombatantName | None = None
    sweep: tuple[CombatantName, ...] = ()
    sweep_penalty: int = 1
    ignore: tuple[CombatantName, ...] = ()
    max_foes: int | None = None
    mod: int = 0
    magic: tuple[tuple[CombatantName, int], ...] = ()
    min_hit: int | None = None
    reveals: tuple[Reveal, ...] = ()
    foe_mods: tuple[tuple[CombatantName, int], ...] = ()  # F-MOD-2: the GM's modifier to one foe (footing, light)


class StoryRoll(CommandModel):
    """F-PACE-1: a story element's roll for one PC's chosen trait; the GM narrates what follows."""

    type: Literal["story"] = "story"
    combatant: CombatantName
    trait: str
    mod: int = 0
    median: bool = False
    element: str = ""


class Undo(CommandModel):
    type: Literal["undo"] = "undo"


class Redo(CommandModel):
    type: Literal["redo"] = "redo"


class OrderTies(CommandModel):
    """PH-3: the GM orders combatants tied on the determinant (GM input), for this round."""

    type: Literal["order_ties"] = "order_ties"
    order: tuple[CombatantName, ...]


class DeclareIntent(CommandModel):
    """PH-4 `structured`: the declaration step of a phase."""

    type: Literal["declare_intent"] = "declare_intent"
    combatant: CombatantName
    what: str = ""
    target: CombatantName | None = None  # an attack on this combatant


class Shoot(CommandModel):
    """F-RNG: a ranged attack; the GM sets the difficulty from range, light and cover."""

    type: Literal["shoot"] = "shoot"
    shooter: CombatantName
    target: CombatantName
    difficulty: int | None = None
    aware: bool = False
    weapon: Literal["thrown", "propelled"] | None = None
    shoot_back: bool = False
    back_difficulty: int | None = None
    burst: int | None = None
    burst_bonus: int | None = None
    mod: int = 0
    defense_mod: int = 0
    skill: str | None = None
    dodge: str | None = None
class HoldAction(CommandModel):
    """PH-4 `open`: the current actor holds the action until the others in the phase have acted."""

    type: Literal["hold_action"] = "hold_action"


class Heal(CommandModel):
    """F-HEAL-2: a healing skill roll on a patient, by a combatant or a healer of a given level."""

    type: Literal["heal"] = "heal"
    patient: CombatantName
    healer: CombatantName | None = None
    skill_level: int | None = None
    skill: str | None = None
    mod: int = 0


class Rest(CommandModel):
    """F-HEAL-1, F-HEAL-3: a short rest erases Scratches; each week heals one level."""

    type: Literal["rest"] = "rest"
    combatants: tuple[CombatantName, ...] = ()
    weeks: int = Field(default=0, ge=0, le=52)


class EndBattle(CommandModel):
    """F-HEAL-1, F-STUN-1: the battle is over."""

    type: Literal["end_battle"] = "end_battle"


class GmWound(CommandModel):
    """A-LOG-1: the GM's ruling of a wound from outside the blows (a fall, fire, a trap, poison)."""

    type: Literal["gm_wound"] = "gm_wound"
    combatant: CombatantName
    level: int
    reason: str = ""


Command = Annotated[
    Union[StartFight, StartBranch, CommitSeed, RevealSeed, Join, Declare, SealDeclaration,
          StartRound, Exchange, Attack, RollTrait, Barter, NextTurn, SpendPoint, Kill, Undo, Redo,
          OrderTies, DeclareIntent, Shoot, HoldAction, Heal, Rest, EndBattle, Willpower, ResistSpell,
          HeroicAvoidance, Melee, StoryRoll, GmWound, FateExchange, FateScene, FateRound, FateAttack, CheckAspect,
          EndScene, RecoverInjury],
    Field(discriminator="type"),
]
COMMAND_ADAPTER: TypeAdapter[Command] = TypeAdapter(Command, config=ConfigDict(defer_build=True))
