"""The commands that start, branch, join, undo and redo a fight, and its seed commitments.

One module of `engine.commands`, which loads it when one of its classes is first named."""

from typing import Any, Literal

from fudge_combat.engine.kernel.command_base import CommandModel


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


class Undo(CommandModel):
    type: Literal["undo"] = "undo"


class Redo(CommandModel):
    type: Literal["redo"] = "redo"
