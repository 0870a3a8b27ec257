"""The players' board's link: the secret path a fight is served under to the table's network.

It is kept per fight among the GM's secrets (store.secrets, `link:board`), never in the store: the
address the players saved (or scanned) still opens the board after `fudge serve` restarts, while whoever
can read the store file learns nothing of it. Made at the first serve; made anew on demand (`fudge
serve --new-link`), after which the old path answers nothing.
"""

from __future__ import annotations

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
