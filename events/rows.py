"""A stored event as a store keeps it: a row of columns, read without loading the event models."""

from __future__ import annotations

from msgspec import Struct




class Row(Struct, frozen=True):
    """One stored event: its columns, and its body as the text whose bytes were hashed (A-LOG-2).

    Stores write and read rows; `engine.audit` checks them. A row of a damaged store may hold
    anything: the audit checks each column's type before it uses it.
    """

    seq: int
    command: str
    type: str
    body: str
    hash: str
