"""Players acting from their own devices, timed on localhost as a table runs it: `fudge serve` and the GM's
`fudge play` (on a pty) as their own processes, two players' pages as two open event streams.

    .venv/bin/python bench/players.py [--runs 20]

- tap → shown: from a player's POST (the tap on Declare) to the request's line in the GM's play;
- accept → redrawn: from the GM's `y` to both players' streams having sent the board after it;
- blow → seal opened: from the GM's Enter on a blow whose target's declaration is sealed on the player's
  device to the blow's reveal in play: the seal marked wanted, the page's stream told, the page's opening
  sent and checked, the blow run (`--seals` runs; each seals anew, and `undo` takes blow and seal back).

A phases fight of three (Leroy, Theodora, Brynhild), round 1 begun with typed dice; Leroy's player declares
all-out offense openly, again and again, and the GM accepts each.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pexpect

ROOT = Path(__file__).resolve().parent.parent
SHEETS = ROOT / "examples" / "sheets"


def env(folder: Path) -> dict[str, str]:
    found = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    found.update({"FUDGE_KEY_FILE": str(folder / "snapshot.key"), "FUDGE_SECRETS_FILE": str(folder / "secrets.db"),
                  "XDG_STATE_HOME": str(folder / "state"), "NO_COLOR": "1", "TERM": "xterm",
                  "PROMPT_TOOLKIT_NO_CPR": "1", "PYTHONPATH": str(ROOT)})
    return found


def fudge(store: Path, *args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), *args],
                          capture_output=True, text=True, env=env(store.parent), check=True)
    return done.stdout


class Stream(threading.Thread):
    """A player's page: the event stream's messages, each with the time it arrived; as the page's script does,
    it sends the opening of a seal it holds (`kept`) when a message marks it wanted."""

    def __init__(self, port: int, path: str) -> None:
        super().__init__(daemon=True)
        self.port, self.path = port, path
        self.seqs: list[tuple[float, int]] = []
        self.kept: dict[str, dict[str, str]] = {}
        self.csrf = ""

    def run(self) -> None:
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        connection.request("GET", self.path + "events")
        response = connection.getresponse()
        for line in response:
            if line.startswith(b"data: "):
                data = json.loads(line[6:])
                self.seqs.append((time.perf_counter(), int(data["seq"])))
                for seal in data.get("wanted", []):
                    if seal in self.kept:
                        post(self.port, self.path, self.csrf, {"kind": "open", "seal": seal, **self.kept.pop(seal)})

    def at(self, seq: int, timeout: float = 10) -> float:
        deadline = time.perf_counter() + timeout
        while time.perf_counter() < deadline:
            for arrived, shown in list(self.seqs):
                if shown >= seq:
                    return arrived
            time.sleep(0.002)
        raise SystemExit(f"no board at event {seq} within {timeout} s")


class Pace:
    """The link's limit (cli.web.players.RATE: 6 requests in any 10 s): before the next requests, an idle moment
    (the streams idle between measures: `--idle`), then as long as the limit needs."""

    def __init__(self, idle: float | None) -> None:
        from fudge_combat.cli.web.players import RATE

        self.limit, self.window = RATE
        self.idle = idle
        self.sent: list[float] = []

    def before(self, count: int, idle: float) -> None:
        time.sleep(idle if self.idle is None else self.idle)
        while True:
            now = time.monotonic()
            self.sent = [at for at in self.sent if now - at < self.window + 0.2]  # a margin for the server's clock
            if len(self.sent) + count <= self.limit:
                break
            time.sleep(self.sent[0] + self.window + 0.2 - now)
        self.sent += [time.monotonic()] * count


def post(port: int, path: str, csrf: str, action: dict[str, object]) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("POST", path + "act", json.dumps(action), {"Content-Type": "application/json",
                                                                   "X-Fudge-Csrf": csrf})
    answer = connection.getresponse()
    said = answer.read()
    if answer.status >= 300:
        raise SystemExit(f"the request was refused: {answer.status} {said!r}")
    return said


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--seals", type=int, default=10)
    parser.add_argument("--idle", type=float, help="seconds between two measures (default: 1.75, and 3.5 before a "
                        "seal's: the figures in bench/README.md); the link's limit is kept whatever this says")
    given = parser.parse_args()
    runs, seals = given.runs, given.seals
    folder = Path(tempfile.mkdtemp(prefix="fudge-players-"))
    store = folder / "fudge.db"
    for args in (("new", "watch", "--rules", "fudge-phases"), ("join", str(SHEETS / "leroy.toml")),
                 ("join", str(SHEETS / "theodora.toml")), ("join", str(SHEETS / "brynhild.toml")),
                 ("round", "-d", "leroy=+ + 0 -", "-d", "theodora=+ 0 0 -", "-d", "brynhild=+ + + - 0")):
        fudge(store, *args)
    links = [re.search(r"/p/([A-Za-z0-9_-]+)/", fudge(store, "invite", name, "--no-qr")).group(1)  # type: ignore[union-attr]
             for name in ("Leroy", "Theodora")]
    server = subprocess.Popen([sys.executable, "-m", "fudge_combat.cli.main", "--store", str(store), "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env(folder))
    try:
        port = int(re.search(r":(\d+)/", server.stdout.readline()).group(1))  # type: ignore[union-attr, arg-type]
        play = pexpect.spawn(sys.executable, ["-m", "fudge_combat.cli.main", "--store", str(store), "play", "watch"],
                             env=env(folder), encoding="utf-8", timeout=20, dimensions=(40, 120))
        play.expect_exact("watch>")
        streams = [Stream(port, f"/p/{link}/") for link in links]
        for stream in streams:
            stream.start()
        connection = http.client.HTTPConnection("127.0.0.1", port)
        connection.request("GET", f"/p/{links[0]}/")
        csrf = re.search(rb'name="csrf" content="([0-9a-f]+)"', connection.getresponse().read()).group(1).decode()  # type: ignore[union-attr]
        body = json.dumps({"kind": "declare", "stance": "all-out-offense"})
        shown, appended, redrawn = [], [], []
        pace = Pace(given.idle)
        for stream in streams:
            stream.at(1)  # the first board sent
        for _ in range(runs):
            pace.before(1, 1.75)  # within the link's limit; the streams idle between
            tapped = time.perf_counter()
            connection.request("POST", f"/p/{links[0]}/act", body,
                               {"Content-Type": "application/json", "X-Fudge-Csrf": csrf})
            answer = connection.getresponse()
            said = answer.read()
            if answer.status != 202:
                raise SystemExit(f"the request was refused: {answer.status} {said!r}")
            play.expect_exact("accept? y/n")
            shown.append(time.perf_counter() - tapped)
            seq = max(shown_seq for stream in streams for _, shown_seq in stream.seqs) + 1
            accepted = time.perf_counter()
            play.sendline("y")
            play.expect(r"\n\s+\d+\s+Leroy declares")
            appended.append(time.perf_counter() - accepted)
            redrawn.append(max(stream.at(seq) for stream in streams) - accepted)
        from fudge_combat.cli.player_actions import STANCES
        from fudge_combat.engine.decide import seal_of

        streams[0].csrf = csrf
        play.sendline("next")  # Brynhild's turn: her blow on Leroy opens his seal
        play.expect_exact("Brynhild's turn")
        opened = []
        for _ in range(seals):
            pace.before(2, 3.5)  # the seal and its opening
            salt = os.urandom(16).hex()
            seal = seal_of(STANCES["all-out-defense"][0], salt)
            streams[0].kept[seal] = {"stance": "all-out-defense", "salt": salt}
            post(port, f"/p/{links[0]}/", csrf, {"kind": "declare", "sealed": True, "seal": seal})
            play.expect_exact("accept? y/n")
            play.sendline("y")
            play.expect_exact("seals a declaration")
            play.expect_exact("watch")
            struck = time.perf_counter()
            play.sendline("attack Brynhild Leroy -d 'Brynhild=0 0 0 0' -d 'Leroy=0 0 0 0'")
            play.expect_exact("Leroy's sealed declaration opens")
            opened.append(time.perf_counter() - struck)
            play.expect_exact("watch")
            play.sendline("undo")
            play.sendline("undo")
        play.sendline("q")
        play.expect(pexpect.EOF)
    finally:
        server.terminate()
        server.wait()

    def row(name: str, times: list[float]) -> str:
        times = sorted(times)
        p95 = times[min(len(times) - 1, int(0.95 * len(times)))]
        return f"| {name} | {statistics.median(times) * 1000:.0f} ms | {p95 * 1000:.0f} ms | {max(times) * 1000:.0f} ms |"

    print(f"{runs} requests, localhost, `fudge serve` and `fudge play` (on a pty) as their own processes")
    print("| measure | median | p95 | max |\n|---|---|---|---|")
    print(row("tap → request shown in play", shown))
    print(row("accept (`y`) → the event's line in play", appended))
    print(row("accept (`y`) → both phones redrawn", redrawn))
    if opened:
        print(row("blow → a seal on the player's device opened and revealed", opened))


if __name__ == "__main__":
    main()
