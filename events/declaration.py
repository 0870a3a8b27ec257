"""A fighter's declaration for a round (F-MOD-6, F-MOD-7, F-TAC, AI-WAIT, F-INIT-3, AI-MULTI-ATK, AI-MULTI-AVD,
AI-SWEEP, A-SEAL): the pydantic model, in a module of its own.

The events hold it (events.models, and as a struct events.structs), and so do the commands that declare or
reveal one (engine.kernel.command_base): a command validates a declaration given as fields (a player's
request, `fudge act`, a command read back from the log) by this model, in its words, without creating every
event model.
"""

from typing import Literal

from pydantic import BaseModel, ConfigDict

from fudge_combat.events.bounds import Number


class Declaration(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
    all_out: Literal["offense", "defense"] | None = None
    posture: Number | None = None
    # --- atari isev and rolled initiative (AI-WAIT, F-INIT-3, AI-MULTI-ATK, AI-MULTI-AVD, AI-SWEEP) ---
    wait: Number | None = None  # initiative change -2..+2: + hurries, - waits
    hasty: bool = False
    two_attacks: bool = False
    two_avoidances: Literal["dodge-dodge", "parry-parry", "dodge-parry"] | None = None
    sweep: bool = False
