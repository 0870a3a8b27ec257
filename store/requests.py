"""Players' requests: what a player asked from their own device (a blow, a declaration, a fudge point),
waiting for the GM's answer. A request is not an event: it changes no fight until the GM accepts it, and
then the events appended are the GM's own command's (cli.play_requests); until then it only waits here.

A store that can keep them says so by these methods (`RequestStore`, as store.views.ViewStore says it keeps
read models): the SQLite store keeps them in its `requests` table (store schema 3), PostgreSQL's in its own
(store schema 4, of the fights a GM sees). A store without them refuses players' requests in one line
(`requests_of`).

A request row is untrusted input when it is read back, as every stored thing: its `body` is JSON the
serving side wrote, and only the fields a kind of request names are used (cli.play_requests reads them
through `PlayerAction`'s model). `state` is `pending`, `accepted` or `refused`, or `held`: accepted by the
GM for a command still to come (a player's initiative dice, rolled at the next round's start); or
`wanted`: not the player's request but the GM's side asking the player's device for what it alone holds
(the opening of a declaration sealed on the player's phone, which a blow needs: service.secrets). `said` is
the line the player's page shows for it (the refusal's reason, or what was done). A version that knows no
`wanted` leaves such a row out, as it leaves out any row not of its types.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from msgspec import Struct

from fudge_combat.store.base import StoreError

PENDING, ACCEPTED, REFUSED, HELD, WANTED = "pending", "accepted", "refused", "held", "wanted"
MAX_BODY = 4096  # characters of a request's body at most: a blow with its typed dice, many times over


class Request(Struct, frozen=True):
    id: str  # random, unguessable: the player's page asks about its own requests by it
    fighter: str  # the fighter the link was given for (never what the page said)
    link: str  # the link's id (a hash of its secret, never the secret): who asked
    at: str
    body: str  # JSON: the action (kind and its fields)
    state: str = PENDING
    said: str = ""


@runtime_checkable
class RequestStore(Protocol):
    def add_request(self, name: str, request: Request) -> None: ...
    def requests(self, name: str, state: str | None = None) -> list[Request]: ...  # oldest first
    def settle_request(self, name: str, request_id: str, state: str, said: str,
                       was: str = PENDING) -> bool: ...  # False: it was not `was` (answered by another session)


def requests_of(store: Any) -> RequestStore:
    """The store's requests, or one line saying this store keeps none."""
    if not isinstance(store, RequestStore):
        raise StoreError("players' requests need a store that keeps them (an SQLite file or a club's server): this store "
                         "keeps none; players can still follow the board, and the GM types their actions")
    return store


def from_row(row: Any) -> Request | None:
    """A stored row as a `Request`, or None when a column is not of its type or the body is oversized."""
    if len(row) != 7 or not all(type(value) is str for value in row) or len(row[4]) > MAX_BODY:
        return None
    if row[5] not in (PENDING, ACCEPTED, REFUSED, HELD, WANTED):
        return None
    return Request(*row)
