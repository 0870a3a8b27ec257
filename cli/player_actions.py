"""What a player may ask from their own device (`fudge invite`), as one model read on both sides: the
players' server (cli.web.players) reads the page's JSON through it, and the GM's play (cli.play_requests)
reads the stored request back through it again (a stored request is untrusted input).

An action names no fighter: the fighter is the link's, set by the server. Every other name is matched to the
fight's own combatant by the server before the request is stored, and the words the GM's play runs are
built here from the model's fields alone, never from the player's text: a target is a combatant's full
name, dice are fudge dice faces, a trait is one of the fighter's own sheet, a stance is a word of a closed
list, and a point's use is one the fight's ruleset offers the fighter now (`Reading.point_uses`: a fudge
point's uses, or Fate's fate point and the aspects with a box still open), whose command is the ruleset's.
A blow is the one `a FIGHTER TARGET` strikes in the GM's play: the fight's rules and pace choose the command.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, TypeAdapter

from fudge_combat.engine.kernel.words import possessive
from fudge_combat.events.structs import Declaration

if TYPE_CHECKING:
    from fudge_combat.engine.kernel.state import FightState

DICE = re.compile(r"^[ +\-0]{1,24}$")  # fudge dice as typed: "+ + 0 -", "++0-"
NAME = Annotated[str, StringConstraints(min_length=1, max_length=80, pattern=r"^[^\x00-\x1f\x7f-]")]

STANCES = {  # the stances a player declares, in the GM's `declare` options
    "all-out-offense": (Declaration(all_out="offense"), ["--all-out-offense"], "all-out offense"),
    "all-out-defense": (Declaration(all_out="defense"), ["--all-out-defense"], "all-out defense"),
}


class _Action(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Attack(_Action):
    """The fighter's blow on their turn: their dice typed (physical dice) or generated under the fight's seed."""

    kind: Literal["attack"] = "attack"
    target: NAME
    dice: Annotated[str, StringConstraints(pattern=DICE.pattern)] | None = None


SEAL = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]  # A-SEAL-1: SHA-256 in hex
SALT = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{32}$")]  # 16 random bytes in hex, as the page makes it
Stance = Literal["all-out-offense", "all-out-defense"]


class Declare(_Action):
    """A stance; sealed: the player's page seals it on the player's own device (A-SEAL-1) and sends only the
    seal, so neither the request nor the log nor the GM's machine holds the stance until a blow opens it."""

    kind: Literal["declare"] = "declare"
    stance: Stance | None = None  # never sent when sealed
    sealed: bool = False
    seal: SEAL | None = None


class Open(_Action):
    """The opening of a seal the page holds (its stance and salt), sent when a blow needs it: the GM's side
    asks for it by a `wanted` mark (service.secrets), stored with the seal alone. Not a request for the GM."""

    kind: Literal["open"] = "open"
    seal: SEAL
    stance: Stance | None = None
    salt: SALT | None = None


class Roll(_Action):
    """An action roll of one of the fighter's own traits (C-ACT-2), as the GM asks for one; dice as for a blow."""

    kind: Literal["roll"] = "roll"
    trait: NAME
    dice: Annotated[str, StringConstraints(pattern=DICE.pattern)] | None = None


class Initiative(_Action):
    """The fighter's initiative dice, as rolled at the table (C-DICE-3), for the next round: held once the GM
    accepts them, and given to the round's start (`round`, `n`) as the GM's `-d NAME=FACES` would."""

    kind: Literal["initiative"] = "initiative"
    dice: Annotated[str, StringConstraints(pattern=DICE.pattern)]


class Spend(_Action):
    """A point spent: one of the uses the fight's ruleset offers the fighter now (`uses`), by its key."""

    kind: Literal["spend"] = "spend"
    use: NAME


Action = Annotated[Union[Attack, Declare, Roll, Spend, Initiative, Open], Field(discriminator="kind")]
ACTION: TypeAdapter[Attack | Declare | Roll | Spend | Initiative | Open] = TypeAdapter(Action)
PlayerAction = Attack | Declare | Roll | Spend | Initiative | Open  # one of them, as read


def read(body: str) -> PlayerAction:
    """A stored request's action (raises ValueError when it is none)."""
    return ACTION.validate_python(json.loads(body))


def uses(state: FightState, fighter: str) -> dict[str, tuple[str, tuple[str, ...]]]:
    """The points the fighter may spend now, by key: what each says and the GM's command that spends it."""
    from fudge_combat.engine.kernel.reading import ruleset_of

    who = state.find(fighter)
    if who is None:
        return {}
    return {use.key: (use.said, use.words) for use in ruleset_of(state).point_uses(state, who)}


def words(fighter: str, action: PlayerAction, state: FightState) -> list[str]:
    """The GM's command for the action, as play runs it (a sealed declaration has none: cli.play_requests).
    Raises ValueError for an action no page makes, RuleError for a use the ruleset does not offer the
    fighter now, and the play's refusal (cli.shorthands.Refused) for a blow the pace cannot strike now."""
    from fudge_combat.cli.shorthands import attack_words

    if isinstance(action, Attack):
        dice = ["-d", f"{fighter}={action.dice}"] if action.dice else []
        return attack_words(state, [fighter, action.target, *dice])
    if isinstance(action, Declare):
        if action.stance is None or action.sealed:  # a sealed one is appended by its seal (cli.play_requests)
            if action.sealed and action.seal is not None:
                return []
            raise ValueError("a declaration without its stance or its seal")
        return ["declare", fighter, *STANCES[action.stance][1]]
    if isinstance(action, Roll):
        return ["roll", fighter, action.trait, *(["-d", f"{fighter}={action.dice}"] if action.dice else [])]
    if isinstance(action, Initiative):  # held, then given to the next round's start (cli.play_requests)
        return []
    if isinstance(action, Open):
        raise ValueError("a seal's opening is no request for the GM")
    offered = uses(state, fighter).get(action.use)
    if offered is None:
        from fudge_combat.engine.kernel.errors import RuleError

        raise RuleError(f"{possessive(fighter)} points offer no {action.use!r} now")
    return list(offered[1])


def what(action: PlayerAction, state: FightState | None = None, fighter: str = "") -> str:
    """The request in a few words: "declares (sealed)", "attacks Brynhild with dice + + 0 -"; a point's
    use in the ruleset's words when the fight is given, else by its key."""
    if isinstance(action, Attack):
        return f"attacks {action.target}" + (f" with dice {action.dice.strip()}" if action.dice else " (dice generated)")
    if isinstance(action, Declare):
        return "declares (sealed)" if action.sealed or action.stance is None else f"declares {STANCES[action.stance][2]}"
    if isinstance(action, Roll):
        return f"rolls {action.trait}" + (f" with dice {action.dice.strip()}" if action.dice else " (dice generated)")
    if isinstance(action, Initiative):
        return f"rolls initiative dice {action.dice.strip()} for the next round"
    if isinstance(action, Open):
        return "sealed declaration asked for by a blow"
    offered = uses(state, fighter).get(action.use) if state is not None else None
    return offered[0] if offered is not None else f"spends a point: {action.use}"


def said(fighter: str, action: PlayerAction, state: FightState | None = None) -> str:
    """The request in the GM's words: "Leroy's player declares (sealed)"."""
    return f"{possessive(fighter)} player {what(action, state, fighter)}"
