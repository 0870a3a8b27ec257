"""The GM's secrets as the service uses them: each fight's dice seed and the plaintext of its sealed
declarations, kept outside the store (store.secrets) and checked against the log before use."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from fudge_combat.engine import commands as cmd
from fudge_combat.events import models as ev
from fudge_combat.events.envelope import Recorded, load_all
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.service.dice import seed_of
from fudge_combat.service.names import find
from fudge_combat.store.base import EventStore, SecretBox, StoreError
from fudge_combat.store.bulk import paused_gc
from fudge_combat.store.log import log

TYPED = "or type the dice with --dice NAME=FACES"
IMPORT_HINT = "`fudge secrets import FILE` brings them from the GM's other machine"
COMMITTING = (ev.FightStarted, ev.BranchStarted, ev.SeedCommitted)


class Keeper:
    """Reads and writes the GM's secrets (`box`) for the fights of `store`."""

    def __init__(self, store: EventStore, box: SecretBox) -> None:
        self.store = store
        self.box = box
        self._legacy_checked = False

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

    def reveals(self, state: FightState, names: Sequence[str]) -> tuple[cmd.Reveal, ...]:
        """The sealed choices of these fighters, read from the secrets to open the seals. A name may be
        typed short (service.names); one that means no fighter, or several, opens nothing here: the
        command that names it refuses it."""
        out = []
        for name in names:
            who = find(state, name)
            if who is None or who.key not in state.sealed:
                continue
            self.move_legacy()
            secret = self.box.get(state.fight_id, f"seal:{state.sealed[who.key][0]}")
            if secret is None:
                raise StoreError(f"{who.name}'s sealed declaration is not among this machine's secrets: {IMPORT_HINT}")
            data = json.loads(secret)
            out.append(cmd.Reveal(combatant=who.name, declaration=ev.Declaration.model_validate(data["declaration"]),
                                  salt=data["salt"]))
        return tuple(out)

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
