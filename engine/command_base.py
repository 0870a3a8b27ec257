"""What every command is: a frozen model that refuses unknown fields (a typo in a GM's input is an error)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict


class CommandModel(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)
