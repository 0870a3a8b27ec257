"""The GM's secrets as the service uses them: each fight's dice seed and the plaintext of its sealed
declarations, kept outside the store (store.secrets) and checked against the log before use."""

from __future__ import annotations

import json
import os
import secrets
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timezone

import msgspec

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.words import possessive
from fudge_combat.events import structs as ev
from fudge_combat.events.records import Recorded, load_all
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.service.dice import seed_of
from fudge_combat.service.names import find
from fudge_combat.store.base import EventStore, SecretBox, StoreError
from fudge_combat.store.bulk import paused_gc
from fudge_combat.store.log import log
from fudge_combat.store.requests import ACCEPTED, REFUSED, WANTED, Request, RequestStore

TYPED = "or type the dice with --dice NAME=FACES"
IMPORT_HINT = "`fudge secrets import FILE` brings them from the GM's other machine"
COMMITTING = (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted)
SEAL_WAIT = 30.0  # seconds a blow waits for a player's page to open a seal it holds (FUDGE_SEAL_WAIT)
WAIT_STEP = 0.05  # seconds between two reads of the secrets while waiting


def seal_asked(body: str, kind: str) -> str | None:
    """The seal a stored request of `kind` names (a stored row is untrusted: anything else is None)."""
    try:
        data = json.loads(body)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("kind") != kind or not isinstance(data.get("seal"), str):
        return None
    return str(data["seal"])


def seal_wait() -> float:
    """Seconds a blow waits for a player's page to open a seal: FUDGE_SEAL_WAIT, else SEAL_WAIT."""
    given = os.environ.get("FUDGE_SEAL_WAIT", "").strip()
    if not given:
        return SEAL_WAIT
    try:
        seconds = float(given)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 3600:
        raise StoreError(f"FUDGE_SEAL_WAIT is {given[:20]!r}: give the seconds a blow waits for a player's page "
                         "to open their seal, such as 30")
    return seconds


class Keeper:
    """Reads and writes the GM's secrets (`box`) for the fights of `store`."""

    def __init__(self, store: EventStore, box: SecretBox) -> None:
        self.store = store
        self.box = box
        self._legacy_checked = False
        self.say: Callable[[str], None] = lambda line: None  # a line for the GM while a command waits (cli)

    def put(self, fight_id: str, items: dict[str, str]) -> None:
        self.move_legacy()
        self.box.put(fight_id, items)

    def keep_seed(self, fight_id: str, seed: bytes, commit: str) -> None:
        """The new seed goes to the GM's secrets before its commitment goes to the log: a crash between
        leaves an unused secret, never a commitment without its seed."""
        self.put(fight_id, {f"seed:{commit}": seed.hex()})

    def fight_seed(self, name: str, state: FightState) -> tuple[bytes | None, str]:
        """The fight's current seed from the GM's secrets, checked against the commitment in its log (A-FAIR-1);
        or None and why not, in one line that says what to do."""
        self.move_legacy()
        key = f"seed:{state.commitment}"
        kept = self.box.get(state.fight_id, key)
        if kept is None:
            return None, f"the dice seed of fight {name} is not among this machine's secrets: {IMPORT_HINT}, {TYPED}"
        seed = seed_of(kept, state.commitment)
        if seed is None:
            return None, (f"the dice seed kept for fight {name} does not match the commitment in its log "
                          f"(A-FAIR-1): the seed or the log was changed; {TYPED}")
        if self.box.was_revealed(key):
            return None, (f"the dice seed of fight {name} was revealed in another fight's log: "
                          f"`fudge reveal-seed --fight {name}` commits a new one, {TYPED}")
        return seed, ""

    def seals_at(self, state: FightState) -> dict[str, str]:
        """The plaintext of the declarations still sealed in `state`, as kept for its fight: a branch opens
        them as the parent would (the dice seed it does not share: it has its own)."""
        items = {}
        for seal, _ in state.sealed.values():
            secret = self.box.get(state.fight_id, f"seal:{seal}")
            if secret is not None:
                items[f"seal:{seal}"] = secret
        return items

    def reveals(self, state: FightState, names: Sequence[str], ask: bool = True) -> tuple[cmd.Reveal, ...]:
        """The sealed choices of these fighters, read from the secrets to open the seals. A name may be
        typed short (service.names); one that means no fighter, or several, opens nothing here: the
        command that names it refuses it.

        A declaration sealed on a player's own device (cli.web.players) is not among the secrets until the
        rules need it: with `ask`, the device is asked for its opening (`ask_device`); without (the odds,
        which read and change nothing), it stays sealed and the odds say so."""
        out = []
        for name in names:
            who = find(state, name)
            if who is None or who.key not in state.sealed:
                continue
            self.move_legacy()
            seal = state.sealed[who.key][0]
            secret = self.box.get(state.fight_id, f"seal:{seal}")
            if secret is None:
                holder = self.holder(state, seal)
                if holder is None:
                    raise StoreError(self.missing(state, who.name, seal))
                if not ask:
                    continue
                secret = self.ask_device(state, who.name, seal, holder)
            data = json.loads(secret)
            declaration = msgspec.convert(data["declaration"], ev.Declaration, strict=False)
            out.append(cmd.Reveal(combatant=who.name, declaration=declaration, salt=data["salt"]))
        return tuple(out)

    # --- declarations sealed on a player's device -------------------------------------------------
    def holder(self, state: FightState, seal: str) -> str | None:
        """The link (its id) of the player's device that sealed `seal`: the declaration request the GM
        accepted with it (store.requests), or None when no device sealed it."""
        if not isinstance(self.store, RequestStore):
            return None
        for request in self.store.requests(state.name, ACCEPTED):
            if seal_asked(request.body, "declare") == seal:
                return request.link
        return None

    def missing(self, state: FightState, fighter: str, seal: str) -> str:
        """Why a seal has no opening here: sealed on a player's device in another fight (this one a branch
        of it: the device answers only for the fight its link is for), or kept on another machine."""
        if isinstance(self.store, RequestStore):
            for info in self.store.fights():
                if info.name != state.name and any(seal_asked(r.body, "declare") == seal
                                                   for r in self.store.requests(info.name, ACCEPTED)):
                    return (f"{possessive(fighter)} declaration was sealed on the player's own device in fight "
                            f"{info.name}, and only a blow there can ask that device for it: in this fight, undo "
                            "the seal, or declare again")
        return f"{fighter}'s sealed declaration is not among this machine's secrets: {IMPORT_HINT}"

    def ask_device(self, state: FightState, fighter: str, seal: str, link: str) -> str:
        """The opening of `fighter`'s seal from the player's device: a `wanted` mark their page answers by
        itself while it is open (cli.web.players puts the checked opening among the secrets), waited for
        up to `seal_wait()` seconds; a mark not answered in time is withdrawn, and the command refused."""
        assert isinstance(self.store, RequestStore)
        key = f"seal:{seal}"
        mark = Request(id=secrets.token_urlsafe(12), fighter=fighter, link=link,
                       at=datetime.now(timezone.utc).isoformat(timespec="microseconds"),
                       body=json.dumps({"kind": "open", "seal": seal}), state=WANTED)
        self.store.add_request(state.name, mark)
        wait = seal_wait()
        self.say(f"{possessive(fighter)} declaration is sealed on the player's own device: waiting for their page "
                 f"to open it (up to {wait:g} s; Ctrl-C stops waiting)")
        deadline = time.monotonic() + wait
        try:
            while (secret := self.box.get(state.fight_id, key)) is None and time.monotonic() < deadline:
                time.sleep(WAIT_STEP)
        finally:
            if secret is None:  # withdrawn: a page opened later would show the GM a stance no blow needs
                self.store.settle_request(state.name, mark.id, REFUSED, "not opened in time", WANTED)
        if secret is None:
            raise StoreError(f"{possessive(fighter)} sealed declaration is kept on the player's own device, which did "
                             f"not open it within {wait:g} s: ask the player to open their page, then give the "
                             "command again (if that device is lost, undo the seal)")
        return secret

    def seeds_to_reveal(self, name: str, own: str, records: Iterable[Recorded]) -> list[tuple[str, str]]:
        """(commitment, seed) of each seed the fight may reveal (A-FAIR-1): its own commitments, and another
        fight's (a branch's parent's, an imported log's original) only once that one revealed it."""
        self.move_legacy()
        seeds, mine = [], False
        for record in records:
            event = record.event
            if not isinstance(event, COMMITTING):
                continue
            key = f"seed:{event.seed_commitment}"
            if record.fight == own or self.box.was_revealed(key):  # another fight's seed only once public
                secret = self.box.get(record.fight, key)
                if secret is not None:
                    seeds.append((event.seed_commitment, secret))
                    mine = mine or record.fight == own
        if not mine:
            raise StoreError(f"no dice seed of fight {name} is among this machine's secrets: nothing to reveal; "
                             f"{IMPORT_HINT}")
        for committed, secret in seeds:
            if seed_of(secret, committed) is None:
                raise StoreError(f"the dice seed kept for fight {name} does not match its commitment "
                                 f"{committed[:12]} in the log (A-FAIR-1): nothing revealed")
        return seeds

    def move_legacy(self) -> None:
        """Seeds and sealed declarations an older version kept in the store itself are moved to the GM's
        secrets, then deleted from the store: at the first write, once.

        Each is filed under the fight whose own event committed or sealed it. A fight whose secrets are
        already kept outside the store takes none from the store: a secret written into the store
        later (by whoever can write the file) is never adopted for a fight the GM already plays.
        """
        if self._legacy_checked:
            return
        self._legacy_checked = True
        found = self.store.legacy_secrets()
        if not found:
            return
        owners: dict[str, str] = {}
        for info in self.store.fights():
            with paused_gc():
                records = load_all(row.body for row in self.store.read(info.name))
            for record in records:
                event = record.event
                if record.fight != info.fight_id:
                    continue  # a branch's prefix: the parent's own events file its secrets
                if isinstance(event, COMMITTING):
                    owners[f"seed:{event.seed_commitment}"] = record.fight
                elif isinstance(event, ev.DeclarationSealed):
                    owners[f"seal:{event.seal}"] = record.fight
        adopted: dict[str, dict[str, str]] = {}
        for key, value in found.items():
            if key in owners:
                adopted.setdefault(owners[key], {})[key] = value
        for fight_id, items in adopted.items():
            if not self.box.knows(fight_id):
                self.box.put(fight_id, items)
        self.store.forget_legacy_secrets()
        log.warning("secrets moved out of the store", store=str(self.store.path or ""),
                    moved=sum(len(items) for items in adopted.values()))
