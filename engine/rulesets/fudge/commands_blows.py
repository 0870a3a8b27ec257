"""Blows between two fighters: an exchange or an attack, with where it aims (`Targeting`).

One module of `engine.commands`, which loads it when one of its classes is first named."""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, SerializerFunctionWrapHandler, model_serializer, model_validator

from fudge_combat.engine.kernel.command_base import CombatantName, CommandModel, Reveal
from fudge_combat.engine.kernel.command_marks import STORED_FLAT, flattened, nested


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
    (`aim`, `called`, ... beside `first` and `second`: engine.kernel.command_marks.STORED_FLAT)."""

    targeting: Annotated[Targeting, STORED_FLAT] = NO_TARGETING

    @model_validator(mode="before")
    @classmethod
    def _nest(cls, data: Any) -> Any:
        """The flat targeting keys, as given or stored, gathered into `targeting`."""
        if isinstance(data, dict) and isinstance(data.get("targeting"), Targeting):
            data = {**data, "targeting": data["targeting"].model_dump(exclude_unset=True)}
        return nested(data, {"targeting": TARGETING_FIELDS})

    @model_serializer(mode="wrap")
    def _flat(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return flattened(handler(self), ("targeting",))


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
