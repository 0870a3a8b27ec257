"""The peer: the `eventsourcing` library (9.5.x) replaying one aggregate of N events from SQLite.

Run by bench/replay.py with the interpreter of a separate venv that has `eventsourcing`
installed (it is not a dependency of this project):

    .venv-peer/bin/python bench/peer_eventsourcing.py --events 10000 --replays 5 --db PATH

Writes an aggregate of about N events (dice rolls, resolutions and wound marks of a fight,
payloads shaped like ours) through the library's SQLite recorder, then times
`Application.repository.get(id)` on a fresh application each run: its SELECT, its JSON
transcoder, its event objects and its mutators, with snapshotting and the aggregate cache
off. Prints one line of JSON: {"events": N, "seconds": [...], "cpu": [...], "version": "9.5.x"} (wall and
CPU seconds of each replay).
"""

from __future__ import annotations

import argparse
import json
import time
from importlib.metadata import version
from typing import Any

from eventsourcing.application import Application
from eventsourcing.domain import Aggregate, event


class Fight(Aggregate):
    @event("Started")
    def __init__(self, name: str) -> None:
        self.name = name
        self.rolls: dict[int, list[int]] = {}
        self.resolutions: dict[int, int] = {}
        self.wounds: dict[str, list[int]] = {}

    @event("DiceRolled")
    def rolled(self, action: int, roller: str, purpose: str, faces: list[int], draw: int, stream: str) -> None:
        self.rolls.setdefault(action, []).append(sum(faces))

    @event("ExchangeResolved")
    def resolved(self, action: int, sides: list[dict[str, Any]], round: int, kind: str) -> None:
        self.resolutions[action] = max(side["result"] for side in sides)

    @event("WoundMarked")
    def wounded(self, action: int, combatant: str, level: int, damage: int) -> None:
        self.wounds.setdefault(combatant, []).append(level)


class Fights(Application):
    pass


def app(path: str) -> Fights:
    return Fights(env={"PERSISTENCE_MODULE": "eventsourcing.sqlite", "SQLITE_DBNAME": path,
                       "IS_SNAPSHOTTING_ENABLED": "n", "AGGREGATE_CACHE_MAXSIZE": "0"})


def build(path: str, events: int) -> Any:
    application = app(path)
    fight = Fight(name="long")
    action = 0
    while fight.version < events:
        action += 1
        fight.rolled(action, "F1", "Sword", [1, 0, -1, 0], 2 * action, "abcdef123456")
        fight.rolled(action, "F2", "Sword", [0, 0, 1, -1], 2 * action + 1, "abcdef123456")
        fight.resolved(action, [{"combatant": "F1", "result": 3, "modifiers": []},
                                {"combatant": "F2", "result": 2, "modifiers": []}], action // 3, "exchange")
        if action % 2:
            fight.wounded(action, "F2", 1, 2)
        if action % 200 == 0:
            application.save(fight)  # batches keep the build quick; replay reads every event alike
    application.save(fight)
    application.close()
    return fight.id, fight.version


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--replays", type=int, default=5)
    parser.add_argument("--db", required=True)
    args = parser.parse_args()
    ident, count = build(args.db, args.events)
    seconds, cpu = [], []
    for _ in range(args.replays):
        application = app(args.db)
        started, started_cpu = time.perf_counter(), time.process_time()
        fight = application.repository.get(ident)
        seconds.append(time.perf_counter() - started)
        cpu.append(time.process_time() - started_cpu)
        assert fight.version == count
        application.close()
    print(json.dumps({"events": count, "seconds": seconds, "cpu": cpu, "version": version("eventsourcing")}))


if __name__ == "__main__":
    main()
