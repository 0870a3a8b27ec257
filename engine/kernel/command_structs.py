"""The commands every fight has, and a revealed declaration as msgspec structs, the values the engine holds:
written by `python -m fudge_combat.engine.derive` from the pydantic models (engine.kernel.command_base,
engine.kernel.commands_fight), which are the schema and validate requests. Do not edit: change a model, then
write this again (tests/test_kernel_structs.py fails until it is)."""

from typing import Annotated, Any, Literal

from msgspec import Meta, Struct, field

from fudge_combat.engine.kernel.command_marks import NAMES_A_COMBATANT
from fudge_combat.events.structs import Declaration


class Reveal(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    combatant: Annotated[str, NAMES_A_COMBATANT]
    declaration: Declaration
    salt: str


class StartFight(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['start_fight'] = 'start_fight'
    name: str
    rules: str
    options: dict[str, Any]
    seed_commitment: str
    stream: str


class StartBranch(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['start_branch'] = 'start_branch'
    name: str
    parent: str
    fork_seq: int
    seed_commitment: str
    stream: str


class CommitSeed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['commit_seed'] = 'commit_seed'
    seed_commitment: str
    stream: str
    reason: str


class RevealSeed(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['reveal_seed'] = 'reveal_seed'
    seeds: tuple[tuple[str, str], ...]
    next_commitment: str
    next_stream: str


class Join(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['join'] = 'join'
    sheet: dict[str, Any]
    source: str
    name: str | None = None
    side: str | None = None


class Undo(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['undo'] = 'undo'


class Redo(Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    type: Literal['redo'] = 'redo'


# each command by its `type`: how a log's `issued` dump is read back
BY_TYPE: dict[str, type[Struct]] = {
    'start_fight': StartFight,
    'start_branch': StartBranch,
    'commit_seed': CommitSeed,
    'reveal_seed': RevealSeed,
    'join': Join,
    'undo': Undo,
    'redo': Redo,
}

# the module of each struct's model: the words of a value a struct refuses
MODELS: dict[str, str] = {
    'Reveal': 'fudge_combat.engine.kernel.command_base',
    'StartFight': 'fudge_combat.engine.kernel.commands_fight',
    'StartBranch': 'fudge_combat.engine.kernel.commands_fight',
    'CommitSeed': 'fudge_combat.engine.kernel.commands_fight',
    'RevealSeed': 'fudge_combat.engine.kernel.commands_fight',
    'Join': 'fudge_combat.engine.kernel.commands_fight',
    'Undo': 'fudge_combat.engine.kernel.commands_fight',
    'Redo': 'fudge_combat.engine.kernel.commands_fight',
}
