"""A-VERIFY-1: the receipt of a log's head, `SEQ:HASH`, that a table keeps outside the store.

The hash chain proves that a log is internally consistent, not that it is the log the table saw:
whoever can write the store can drop the last commands, or rewrite an event and re-hash every
event after it. The receipt is the anchor against both: the last event's seq and the first
RECEIPT_DIGITS hex digits of its hash, read aloud or posted at the end of a session. Because
each hash covers the previous one, that one event fixes the whole log up to it, and
`fudge verify --head SEQ:HASH` fails if the log no longer holds that very event at that seq.

Why 32 hex digits (128 bits): a forger who did not write the receipted log must find another
log whose head starts with the same digits (a second preimage: 2**128 tries), and even the one
who keeps the store, preparing two logs with the same receipt in advance (a collision), needs
about 2**64 tries: out of reach. Sixteen digits would still stop the first attacker (2**64),
but a collision would cost only 2**32 tries, seconds on a laptop. A receipt typed back with
fewer digits is accepted down to MIN_DIGITS, and protects less.

This module imports nothing heavy: `fudge status` prints a receipt from its fast path.
"""

from __future__ import annotations

import re

RECEIPT_DIGITS = 32
MIN_DIGITS = 16
_RECEIPT = re.compile(r"\s*(\d{1,18})\s*:\s*([0-9a-fA-F]+)\s*")


def receipt(seq: int, digest: str) -> str:
    """The receipt of the event at `seq` whose hash is `digest`."""
    return f"{seq}:{digest[:RECEIPT_DIGITS]}"


def parse(text: str) -> tuple[int, str]:
    """(seq, lowercase hex prefix) of a receipt as `receipt` writes it; ValueError says what is wrong."""
    found = _RECEIPT.fullmatch(text)
    if found is None:
        raise ValueError(f"{text!r} is not a receipt: it is SEQ:HASH as `fudge verify` prints it")
    seq, digits = int(found.group(1)), found.group(2).lower()
    if seq < 1:
        raise ValueError(f"a receipt's event is 1 or later, not {seq}")
    if not MIN_DIGITS <= len(digits) <= 64:
        raise ValueError(f"a receipt's hash has {MIN_DIGITS} to 64 hex digits, not {len(digits)}")
    return seq, digits
