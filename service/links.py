"""The players' board's link: the secret path a fight is served under to the table's network.

It is kept per fight among the GM's secrets (store.secrets, `link:board`), never in the store: the
address the players saved (or scanned) still opens the board after `fudge serve` restarts, while whoever
can read the store file learns nothing of it. Made at the first serve; made anew on demand (`fudge
serve --new-link`), after which the old path answers nothing.
"""

from __future__ import annotations

import hashlib
import secrets

from fudge_combat.service.secrets import Keeper
from fudge_combat.store.base import StoreError
from fudge_combat.store.secrets import LINK_TOKEN

KEY = "link:board"


def board_link(keeper: Keeper, fight_id: str, name: str, renew: bool = False) -> tuple[str, bool]:
    """(the fight's link token, whether an older one was replaced). A token is 128 random bits
    (`secrets.token_urlsafe(16)`). One kept that is not of that form (the file was edited) is refused
    rather than put in a route: `--new-link` replaces it."""
    keeper.move_legacy()  # before the fight has a secret of its own: an old store's seeds are adopted first
    kept = keeper.box.get(fight_id, KEY)
    if kept is not None and not renew:
        if not LINK_TOKEN.fullmatch(kept):
            raise StoreError(f"the board's link kept for fight {name} among your secrets is not one fudge made: "
                             "`fudge serve --new-link` makes a new one")
        return kept, False
    token = secrets.token_urlsafe(16)
    keeper.box.replace(fight_id, KEY, token)
    return token, kept is not None


# --- a player's own link (`fudge invite FIGHTER`) -------------------------------------------------
# Kept as `invite:<token>` with the fighter's name as its value: the server finds who a link is for in one
# lookup at each request, so a revoked link (its secret deleted) is refused from the next request on.
INVITE = "invite:"


def link_id(token: str) -> str:
    """A link's name in the store and the log (a request's `link`, an event's `issued`): a hash of its
    secret, never the secret, so whoever reads the store cannot act as the player."""
    return hashlib.sha256(token.encode()).hexdigest()[:12]


def invites(keeper: Keeper, fight_id: str) -> dict[str, str]:
    """The fight's player links: {fighter's name: token}."""
    return {secret.value: secret.key[len(INVITE):] for secret in keeper.box.export()
            if secret.fight == fight_id and secret.key.startswith(INVITE)}


def invite(keeper: Keeper, fight_id: str, fighter: str) -> tuple[str, bool]:
    """(the fighter's player link, whether it was made now): the same link at every call until it is revoked."""
    kept = invites(keeper, fight_id).get(fighter)
    if kept is not None:
        return kept, False
    token = secrets.token_urlsafe(16)
    keeper.box.put(fight_id, {INVITE + token: fighter})
    return token, True


def invited(keeper: Keeper, fight_id: str, token: str) -> str | None:
    """The fighter a player's link was given for, or None (never given, or revoked)."""
    if not LINK_TOKEN.fullmatch(token):
        return None
    return keeper.box.get(fight_id, INVITE + token)


def revoke(keeper: Keeper, fight_id: str, fighter: str) -> bool:
    """The fighter's player link refused from now on; False if the fighter had none."""
    token = invites(keeper, fight_id).get(fighter)
    return token is not None and keeper.box.forget(fight_id, INVITE + token)
