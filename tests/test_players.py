"""Players who act from their own device (`fudge invite`), read byte by byte over HTTP (the page in a
browser and the GM's play on a terminal: tests/test_players_browser.py).

Every test runs `fudge` as the GM does, one process a command, and `fudge serve --port 0` as its own process:
each link is sent its own fighter alone (no other player's seal, no dice seed, no wound the GM shows in
words); a state change needs the link, its CSRF token, this server's origin and JSON, and is limited per link;
a revoked link is refused at once; a request waits until the GM's play accepts it, and then the log holds the
GM's own command with who asked beside it, and `fudge verify` agrees.
"""

from __future__ import annotations

import html
import os
import json
import re
import sqlite3
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.processes import ROOT, copied, fudge

pytest.importorskip("uvicorn", reason="the serve extra is not installed: pip install '.[serve]'")

from tests.browser import served  # noqa: E402  (after the skip)
from tests.test_board_page import GROK, cards_of, first_message  # noqa: E402

LINK = re.compile(r"http://\S+?/p/([A-Za-z0-9_-]{22,64})/")


def invite(store: Path, fighter: str) -> str:
    """`fudge invite FIGHTER --no-qr`: the link's secret."""
    done = fudge("invite", fighter, "--no-qr", store=store)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    found = LINK.search(done.stdout)
    assert found, done.stdout
    return found.group(1)


def call(url: str, body: bytes | None = None, headers: dict[str, str] | None = None,
         method: str | None = None) -> tuple[int, bytes]:
    """(status, body) of one request; an error status is an answer too."""
    request = urllib.request.Request(url, data=body, headers=headers or {}, method=method)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return int(response.status), response.read()
    except urllib.error.HTTPError as error:
        return int(error.code), error.read()


class Player:
    """One player's browser, as far as HTTP goes: their page (and its CSRF token), their asks, all bytes kept."""

    def __init__(self, base: str, token: str) -> None:
        self.url = f"{base}p/{token}/"
        self.received: list[bytes] = []
        status, page = call(self.url)
        assert status == 200, page
        self.received.append(page)
        found = re.search(rb'<meta name="csrf" content="([0-9a-f]{64})">', page)
        assert found
        self.csrf = found.group(1).decode()
        self.kept: dict[str, dict[str, str]] = {}  # seal -> the stance and salt the device keeps
        self.last_seal = ""

    def ask(self, action: dict[str, object], **headers: str) -> tuple[int, str]:
        sent = {"Content-Type": "application/json", "X-Fudge-Csrf": self.csrf, **headers}
        status, body = call(self.url + "act", json.dumps(action).encode(), sent, "POST")
        self.received.append(body)
        return status, json.loads(body)["said"]

    def page(self) -> str:
        status, body = call(self.url)
        self.received.append(body)
        return body.decode() if status == 200 else ""

    def message(self) -> dict[str, object]:
        data = first_message(self.url)
        self.received.append(data)
        return json.loads(data.removeprefix(b"data: "))  # type: ignore[no-any-return]

    def odds(self, target: str, opened: str | None = None) -> tuple[int, str]:
        """The page's odds; `opened`: with the opening of that seal of the device's, as the page sends it."""
        headers = {"X-Fudge-Open": json.dumps({"seal": opened, **self.kept[opened]})} if opened else {}
        status, body = call(self.url + "odds?target=" + urllib.request.quote(target), headers=headers)
        self.received.append(body)
        return status, json.loads(body)["said"]

    def seal(self, stance: str) -> tuple[int, str]:
        """A-SEAL-1 as the page does it on the player's device: a salt drawn here, the seal of salt and the
        stance's text sent alone; stance and salt kept here (`kept`), as the browser's storage keeps them."""
        from fudge_combat.cli.player_actions import STANCES
        from fudge_combat.engine.decide import seal_of

        salt = os.urandom(16).hex()
        seal = seal_of(STANCES[stance][0], salt)
        self.kept[seal] = {"stance": stance, "salt": salt}
        self.last_seal = seal
        return self.ask({"kind": "declare", "sealed": True, "seal": seal})

    def open_wanted(self, timeout: float = 20.0) -> list[str]:
        """What the page does when its stream marks a seal of its own `wanted`: it sends the opening."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            wanted = [seal for seal in self.message()["wanted"] if seal in self.kept]  # type: ignore[union-attr]
            if wanted:
                for seal in wanted:
                    assert self.ask({"kind": "open", "seal": seal, **self.kept[seal]}) == (
                        200, "your sealed declaration is opened for the blow")
                return wanted
            time.sleep(0.05)
        raise AssertionError("no seal of this device was wanted")


def requests_in(store: Path) -> list[tuple[str, str, str, str]]:
    with sqlite3.connect(store) as db:
        return db.execute("SELECT fighter, body, state, said FROM requests ORDER BY at").fetchall()


def secrets_of(store: Path) -> dict[str, str]:
    with sqlite3.connect(store.parent / "secrets.db") as db:
        return dict(db.execute("SELECT key, value FROM secrets"))


@pytest.fixture
def bridge(the_bridge: Path, tmp_path: Path) -> Path:
    """Leroy and Grok (PCs) against Cutthroat and Brynhild (NPCs: wounds in words), Leroy's turn: each test's own
    copy of the fight played once by `fudge` processes (tests/conftest.py), which the test's commands change."""
    return copied(the_bridge, tmp_path)


@pytest.fixture
def server(bridge: Path) -> Iterator[str]:
    with served(bridge) as (url, _, _process):
        yield url


def play(store: Path, script: str) -> tuple[str, str]:
    done = fudge("play", store=store, input=script, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def test_invite_gives_one_link_per_fighter_lists_and_revokes_it(bridge: Path) -> None:
    token = invite(bridge, "ler")  # a prefix, as every command reads names
    assert invite(bridge, "Leroy") == token  # the same link until it is revoked
    assert secrets_of(bridge)[f"invite:{token}"] == "Leroy"  # among the GM's secrets, never in the store
    assert token.encode() not in bridge.read_bytes()
    listed = fudge("invite", "--list", store=bridge)
    assert listed.stdout == "players' links of The Bridge: Leroy\n"
    revoked = fudge("invite", "--revoke", "Leroy", store=bridge)
    assert revoked.returncode == 0 and "Leroy's link is refused from now on" in revoked.stdout
    assert invite(bridge, "Leroy") != token
    for args, said in ((("invite", "Nobody"), "no combatant 'Nobody'"),
                       (("invite", "--revoke", "Brynhild"), "Brynhild has no link to revoke"),
                       (("invite", "Leroy", "--list"), "--list takes no FIGHTER")):
        before = secrets_of(bridge)
        done = fudge(*args, store=bridge)
        assert done.returncode not in (0, 70) and done.stderr.count("\n") == 1 and said in done.stderr, done.stderr
        assert secrets_of(bridge) == before


def test_invite_prints_the_link_and_its_qr_code(bridge: Path) -> None:
    """As `serve --lan` prints the board's: the link, then its QR code (the blocks are the link's), and where
    `fudge serve` must listen for it (--host and --port given here)."""
    from tests.test_serve_lan import encoded, modules

    done = fudge("invite", "Leroy", "--host", "192.0.2.7", "--port", "8123", store=bridge, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    url = lines[0].split(": ", 1)[1]
    assert re.fullmatch(r"http://192\.0\.2\.7:8123/p/[A-Za-z0-9_-]{22}/", url), url
    drawn = [line for line in lines[1:] if line and set(line) <= set("█▀▄ ")]
    assert modules(drawn, colour=False) == encoded(url)
    assert "`fudge serve --host 192.0.2.7 --port 8123` serves it" in lines[-1]


def test_each_link_is_sent_its_own_fighter_alone_no_seal_seed_or_hidden_wound(bridge: Path, server: str) -> None:
    """boardgame.io's playerView (its issue 1159: the unfiltered first state leaked): Leroy and Grok seal
    declarations on their phones (A-SEAL-1: the stance and salt stay on the device, the seal alone is sent),
    the GM accepts both in play; then neither the GM's secrets nor the store hold a stance, and every byte each
    link received (page, stream, odds, answers) and the public board's hold no seal's stance or salt, no dice
    seed, and no exact wound of a fighter the GM shows in words."""
    leroy, grok = (Player(server, invite(bridge, name)) for name in ("Leroy", GROK))
    status, odds = leroy.odds(GROK)
    assert status == 200 and odds.startswith("Leroy hits <i>Grok</i>"), odds  # a fighter shown exactly: his odds
    assert leroy.ask({"kind": "declare", "stance": "all-out-offense", "sealed": True}) == (
        400, "this page is out of date (it would send the stance you seal): reload it")  # a page from before
    assert leroy.seal("all-out-offense") == (202, "asked: declares (sealed), waiting for the GM")
    assert grok.seal("all-out-defense")[0] == 202
    stored = requests_in(bridge)
    assert [row[0] for row in stored] == ["Leroy", GROK] and all("all-out" not in row[1] for row in stored)
    shown, _ = play(bridge, "y\ny\n")
    assert "Leroy's player declares (sealed): accept? y/n" in shown and "all-out" not in shown  # the GM sees no stance
    assert shown.count("seals a declaration") == 2
    kept = secrets_of(bridge)
    assert not [key for key in kept if key.startswith("seal:")]  # the GM's machine holds no stance, no salt
    salts = [held["salt"] for player in (leroy, grok) for held in player.kept.values()]
    assert not any(salt.encode() in bridge.read_bytes() for salt in salts)
    for player in (leroy, grok):
        player.page()
        player.message()
        assert player.odds("Brynhild") == (409, "the GM shows Brynhild's wounds in words: the odds against Brynhild "
                                                "would tell them")  # her chances follow her hidden wound penalty
    status, odds = leroy.odds(GROK)
    assert status == 409 and "declaration is sealed and its reveal was not given" in odds  # no opening sent
    status, odds = leroy.odds(GROK, opened=leroy.last_seal)  # the page's own opening: used for these odds alone
    assert status == 409 and odds.startswith(f"{GROK}'s declaration is sealed"), odds  # his own counted: Grok's not
    assert not [key for key in secrets_of(bridge) if key.startswith("seal:")]  # and kept nowhere
    public = [call(server)[1], call(server + "board.json")[1], first_message(server)]
    seed = next(value for key, value in kept.items() if key.startswith("seed:"))
    for who, received in (("public", public), ("leroy", leroy.received), ("grok", grok.received)):
        for body in received:
            assert seed.encode() not in body, who
            assert not any(salt.encode() in body for salt in salts), who
            assert b'"all_out"' not in body, who
            for stance in re.findall(rb'id="sealed"[^>]*>your sealed declaration: <span class="stance">([^<]*)<', body):
                assert stance == b"kept on the device that sealed it", (who, stance)  # the page fills it in
        assert any(b'id="sealed"' in body for body in received) == (who != "public")
    for player, name in ((leroy, "Leroy"), (grok, "&lt;i&gt;Grok&lt;/i&gt; &amp; &quot;Co&quot;")):
        message = player.message()
        assert message["html"] == json.loads(public[1])["html"]  # the shared part: the public board's very bytes
        mine = str(message["mine"])
        assert list(cards_of(mine)) == [name]  # the own part: their fighter alone
        for page in (str(message["html"]), player.page()):
            for hidden, word in (("Brynhild", "hurt"), ("Cutthroat", "down")):
                card = cards_of(page)[hidden]
                assert f">{word}</span>" in card and "track" not in card and "bx" not in card
        assert str(message["asked"]).count("<li") == 1  # their own request, not the other player's
    assert "Very Hurt</span>" in cards_of(str(leroy.message()["mine"]))["Leroy"]  # his own wounds, exact


def test_A_SEAL_1_a_seal_kept_on_the_players_device_is_opened_by_their_page_when_a_blow_needs_it(
        bridge: Path, server: str) -> None:
    """The GM's blow on a fighter whose declaration is sealed on his player's phone marks the seal `wanted`,
    says so on the GM's terminal and waits; the page sends stance and salt, which must give the seal; the blow
    then reveals it (A-SEAL-1) and `fudge verify` agrees. An opening nobody asked for, or one that does not give
    the seal, opens nothing."""
    leroy = Player(server, invite(bridge, "Leroy"))
    assert leroy.seal("all-out-offense")[0] == 202
    play(bridge, "y\n")
    seal = leroy.last_seal
    assert leroy.ask({"kind": "open", "seal": seal, **leroy.kept[seal]}) == (
        409, "no blow waits for that seal now: nothing was opened")
    status, odds = leroy.odds(GROK, opened=seal)  # the page's odds count the stance it holds
    assert status == 200 and odds.startswith("Leroy hits <i>Grok</i>"), odds
    done: list[subprocess.CompletedProcess[str]] = []
    blow = threading.Thread(target=lambda: done.append(fudge(
        "attack", "Leroy", "Brynhild", "-d", "Leroy=+ + + +", store=bridge, env={"FUDGE_SEAL_WAIT": "30"})))
    blow.start()
    try:
        deadline = time.monotonic() + 20
        while seal not in leroy.message()["wanted"]:  # type: ignore[operator]
            assert time.monotonic() < deadline, "the blow never asked for the seal"
            time.sleep(0.05)
        wrong = {"kind": "open", "seal": seal, "stance": "all-out-defense", "salt": leroy.kept[seal]["salt"]}
        assert leroy.ask(wrong) == (409, "that stance and salt do not give the seal (A-SEAL-1): nothing was opened")
        grok = Player(server, invite(bridge, GROK))  # another player's link, even with the right stance and salt
        assert grok.ask({"kind": "open", "seal": seal, **leroy.kept[seal]}) == (
            409, "no blow waits for that seal now: nothing was opened")
        assert not [key for key in secrets_of(bridge) if key.startswith("seal:")]
        assert leroy.open_wanted() == [seal]
    finally:
        blow.join(60)
    assert done and done[0].returncode == 0, done and done[0].stderr
    assert done[0].stderr == ("Leroy's declaration is sealed on the player's own device: waiting for their page to "
                              "open it (up to 30 s; Ctrl-C stops waiting)\n")
    assert "Leroy's sealed declaration opens: all-out offense" in done[0].stdout
    assert requests_in(bridge)[-1][2:] == ("accepted", "opened for the blow")
    assert "sealed declaration asked for by a blow: opened" in str(leroy.message()["asked"])
    undone = fudge("undo", store=bridge)  # the blow taken back: the seal is sealed again, its opening kept
    assert undone.returncode == 0, undone.stderr
    again = fudge("attack", "Leroy", "Brynhild", "-d", "Leroy=+ + + +", store=bridge, env={"FUDGE_SEAL_WAIT": "0.3"})
    assert again.returncode == 0 and again.stderr == "", again.stderr  # no device asked a second time
    assert "Leroy's sealed declaration opens: all-out offense" in again.stdout
    assert [row[2] for row in requests_in(bridge)].count("wanted") == 0
    verified = fudge("verify", store=bridge)
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_seal_the_players_page_does_not_open_in_time_refuses_the_blow_and_writes_nothing(
        bridge: Path, server: str) -> None:
    """With no page open to answer, the blow is refused in one line that says what to do, the log is as it
    was, and the mark is withdrawn (a page opened later shows the GM no stance no blow needs)."""
    grok = Player(server, invite(bridge, GROK))
    assert grok.seal("all-out-defense")[0] == 202
    play(bridge, "y\n")
    for salt in ("not-hex", "ab" * 20, ""):  # an opening is the page's own 32 hex digits, or nothing
        assert grok.ask({"kind": "open", "seal": grok.last_seal, "stance": "all-out-defense", "salt": salt}) == (
            400, "that is no action this page makes: reload it")
    before = fudge("log", "--json", store=bridge).stdout
    done = fudge("attack", "Leroy", GROK, "-d", "Leroy=+ + + +", store=bridge, env={"FUDGE_SEAL_WAIT": "0.3"})
    assert done.returncode not in (0, 70)
    waited, refused = done.stderr.splitlines()
    assert waited.startswith(f"{GROK}'s declaration is sealed on the player's own device: waiting for their page")
    assert refused == (f"error: {GROK}'s sealed declaration is kept on the player's own device, which did not open "
                       "it within 0.3 s: ask the player to open their page, then give the command again (if that "
                       "device is lost, undo the seal)")
    assert fudge("log", "--json", store=bridge).stdout == before
    assert requests_in(bridge)[-1][2:] == ("refused", "not opened in time")
    assert grok.message()["wanted"] == []
    assert not [key for key in secrets_of(bridge) if key.startswith("seal:")]
    for wait in ("soon", "-1"):
        done = fudge("attack", "Leroy", GROK, store=bridge, env={"FUDGE_SEAL_WAIT": wait})
        assert done.returncode not in (0, 70) and done.stderr == (
            f"error: FUDGE_SEAL_WAIT is '{wait}': give the seconds a blow waits for a player's page to open "
            "their seal, such as 30\n"), done.stderr


def test_A_BRANCH_1_a_branch_says_its_seal_was_made_on_a_device_of_the_parent_fight(bridge: Path, server: str) -> None:
    """A branch shares its parent's seal (A-BRANCH-1) but not the player's link, which is the parent fight's:
    its blow cannot ask the device, and says so in one line (not "import the secrets"), writing nothing."""
    leroy = Player(server, invite(bridge, "Leroy"))
    assert leroy.seal("all-out-offense")[0] == 202
    play(bridge, "y\n")
    assert fudge("branch", "what-if", store=bridge).returncode == 0
    before = fudge("log", "--json", store=bridge).stdout
    done = fudge("attack", "Leroy", "Brynhild", "-d", "Leroy=+ + + +", store=bridge)
    assert done.returncode not in (0, 70) and done.stderr == (
        "error: Leroy's declaration was sealed on the player's own device in fight The Bridge, and only a blow "
        "there can ask that device for it: in this fight, undo the seal, or declare again\n"), done.stderr
    assert fudge("log", "--json", store=bridge).stdout == before
    assert [row[2] for row in requests_in(bridge)] == ["accepted"]  # no device was asked


def test_a_state_change_needs_the_link_its_token_this_origin_and_json(bridge: Path, server: str) -> None:
    token = invite(bridge, "Leroy")
    leroy = Player(server, token)
    act = leroy.url + "act"
    spend = json.dumps({"kind": "spend", "use": "luck"}).encode()
    json_type = {"Content-Type": "application/json"}
    assert call(act)[0] == 405  # GET changes nothing
    assert call(act, spend, json_type, "POST")[0] == 403  # no CSRF token
    assert call(act, spend, {**json_type, "X-Fudge-Csrf": "0" * 64}, "POST")[0] == 403
    assert call(act, spend, {**json_type, "X-Fudge-Csrf": leroy.csrf, "Origin": "http://evil.example"}, "POST")[0] == 403
    assert call(act, spend, {"Content-Type": "text/plain", "X-Fudge-Csrf": leroy.csrf}, "POST")[0] == 415
    assert call(server + "p/" + "A" * 22 + "/act", spend, {**json_type, "X-Fudge-Csrf": leroy.csrf}, "POST")[0] == 403
    assert leroy.ask({"kind": "spend", "use": "luck", "fighter": "Brynhild"})[0] == 400  # a fighter is the link's
    assert leroy.ask({"kind": "attack", "target": "--force"})[0] == 400  # never an option of the GM's command
    status, said = leroy.ask({"kind": "attack", "target": "Nobody"})
    assert status == 409 and "no combatant 'Nobody'" in said  # a name the fight knows, or nothing
    assert leroy.ask({"kind": "attack", "target": "Brynhild", "dice": "+ + ; rm"})[0] == 400
    assert call(act, b"{" * 5000, {**json_type, "X-Fudge-Csrf": leroy.csrf}, "POST")[0] == 413
    assert requests_in(bridge) == []  # none of these was stored
    assert leroy.ask({"kind": "attack", "target": "bry", "dice": "+ + 0 0"}) == (
        202, "asked: attacks Brynhild with dice + + 0 0, waiting for the GM")
    status, said = leroy.ask({"kind": "spend", "use": "luck"})
    assert status == 429 and "too many requests" in said  # six a link in ten seconds, the refused ones counted
    assert [row[0] for row in requests_in(bridge)] == ["Leroy"]


def test_a_revoked_link_is_refused_at_once_its_open_stream_too(bridge: Path, server: str) -> None:
    leroy = Player(server, invite(bridge, "Leroy"))
    with urllib.request.urlopen(leroy.url + "events", timeout=20) as stream:
        assert next(line for line in stream if line.startswith(b"data: "))
        assert fudge("invite", "--revoke", "Leroy", store=bridge).returncode == 0
        ended = [line for line in stream if line.startswith(b"data: ")]
    assert json.loads(ended[-1].removeprefix(b"data: "))["revoked"] is True
    assert call(leroy.url)[0] == 403
    status, said = leroy.ask({"kind": "spend", "use": "luck"})
    assert status == 403 and "ask the GM for yours" in said
    assert call(leroy.url + "odds?target=Brynhild")[0] == 403


def test_the_gm_accepts_in_play_and_the_log_holds_the_gms_command_with_who_asked(bridge: Path, server: str) -> None:
    """Leroy's blow with his own dice, accepted: the events are `attack`'s, its issued record names him, and
    `fudge verify` re-runs it (A-VERIFY-1). Grok's blow out of turn: the rules refuse it and the line reaches
    Grok's page. A point the GM says no to is refused. With --auto, a request is accepted as it comes."""
    leroy, grok = (Player(server, invite(bridge, name)) for name in ("Leroy", GROK))
    assert leroy.ask({"kind": "attack", "target": "Brynhild", "dice": "+ + + +"})[0] == 202
    assert grok.ask({"kind": "attack", "target": "Brynhild", "dice": "0 0 0 0"})[0] == 202
    assert grok.ask({"kind": "spend", "use": "luck"})[0] == 202
    shown, errors = play(bridge, "y\ny\nn\n")
    assert "Leroy's player attacks Brynhild with dice + + + +: accept? y/n" in shown
    assert "  (attack Leroy Brynhild -d 'Leroy=+ + + +')" in shown
    assert "refused: " in shown and "spends a fudge point: luck" in shown
    states = [(row[0], row[2]) for row in requests_in(bridge)]
    assert states == [("Leroy", "accepted"), (GROK, "refused"), (GROK, "refused")]
    refusal = requests_in(bridge)[1][3]
    assert refusal and refusal in errors  # the rules' own line, as the GM saw it
    asked = str(grok.message()["asked"])
    assert "refused: the GM said no" in asked and "refused: " + html.escape(refusal) in asked
    log = json.loads(fudge("log", "--json", store=bridge).stdout)
    issued = [entry for entry in log if entry.get("issued")][-1]["issued"]
    assert issued["type"] == "attack" and issued["requested"]["fighter"] == "Leroy" and issued["requested"]["v"] == 1
    verified = fudge("verify", store=bridge)
    assert verified.returncode == 0 and "rules agree" in verified.stdout, verified.stdout

    assert fudge("invite", "--auto", store=bridge).returncode == 0
    assert leroy.ask({"kind": "declare", "stance": "all-out-defense"})[0] == 202
    shown, _ = play(bridge, "")
    assert "Leroy's player declares all-out defense: accepted" in shown and "accept? y/n" not in shown
    assert requests_in(bridge)[-1][2] == "accepted"


def test_a_club_server_keeps_the_requests_and_the_gm_accepts_them_in_play(pg_url: str, tmp_path: Path) -> None:
    """PostgreSQL's store keeps players' requests as the SQLite store does (store schema 4): on a club's
    server `invite` gives a link, the players' server takes the player's ask, and the GM's play shows it
    and, accepted, appends the GM's own command naming who asked (F-MOD-7)."""
    gm = tmp_path / "gm"
    gm.mkdir()
    env = {"FUDGE_GM": "alice"}
    for args in (("new", "club-fight"), ("join", str(ROOT / "examples" / "sheets" / "leroy.toml")),
                 ("join", str(ROOT / "examples" / "sheets" / "brynhild.toml"))):
        assert fudge(*args, store=pg_url, cwd=gm, env=env).returncode == 0
    done = fudge("invite", "Leroy", "--no-qr", store=pg_url, cwd=gm, env=env)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    found = LINK.search(done.stdout)
    assert found, done.stdout
    environment = {k: v for k, v in os.environ.items() if not k.startswith("FUDGE_")}
    environment.update({"PYTHONPATH": str(ROOT), "FUDGE_KEY_FILE": str(gm / "snapshot.key"),
                        "XDG_STATE_HOME": str(gm / "state"), "NO_COLOR": "1", **env})
    server = subprocess.Popen([sys.executable, "-m", "fudge_combat.cli.main", "--store", pg_url, "serve", "--port", "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, cwd=gm)
    try:
        line = server.stdout.readline() if server.stdout else ""
        assert "http://" in line, line
        leroy = Player(line[line.index("http://"):].split()[0], found.group(1))
        assert leroy.ask({"kind": "declare", "stance": "all-out-defense"})[0] == 202
        shown = fudge("play", store=pg_url, cwd=gm, env=env, input="y\n")
        assert shown.returncode == 0, shown.stderr
        assert "Leroy's player declares all-out defense: accept? y/n" in shown.stdout
        assert "accepted" in str(leroy.message()["asked"])
    finally:
        server.terminate()
        server.wait(timeout=10)
    log = json.loads(fudge("log", "--json", store=pg_url, cwd=gm, env=env).stdout)
    issued = [entry for entry in log if entry.get("issued")][-1]["issued"]
    assert issued["type"] == "declare" and issued["requested"]["fighter"] == "Leroy"
    other = fudge("invite", "--list", store=pg_url, cwd=tmp_path, env={"FUDGE_GM": "bob"})  # another GM's name
    assert other.returncode not in (0, 70) and "club-fight" not in other.stdout


def test_a_refusal_that_names_a_fighter_shown_in_words_reaches_the_player_without_its_words(
        bridge: Path, server: str) -> None:
    """The rules' refusal line may say a wound (`Brynhild is Hurt`): on the page of a player who reads
    Brynhild's wounds in words it becomes a line that names nothing; one naming only fighters shown exactly is
    kept as it is."""
    import hashlib

    token = invite(bridge, "Leroy")
    leroy = Player(server, token)
    assert leroy.ask({"kind": "spend", "use": "luck"})[0] == 202
    link = hashlib.sha256(token.encode()).hexdigest()[:12]
    with sqlite3.connect(bridge) as db:  # as a GM's play refused them (the rules' lines, made up here)
        db.execute("UPDATE requests SET state = 'refused', said = 'Brynhild is Hurt (-1): not now' WHERE link = ?",
                   (link,))
    asked = str(leroy.message()["asked"])
    assert "Hurt" not in asked and "(-1)" not in asked and "the rules refuse it now (the GM&#x27;s screen says why)" in asked
    with sqlite3.connect(bridge) as db:
        db.execute("UPDATE requests SET said = 'Leroy has no fudge points left (C-FP-3)' WHERE link = ?", (link,))
    assert "refused: Leroy has no fudge points left (C-FP-3)" in str(leroy.message()["asked"])


def test_a_player_rolls_a_trait_of_his_own_sheet_with_his_dice_and_the_gm_accepts(bridge: Path, server: str) -> None:
    """C-ACT-2, C-DICE-3: Leroy's player rolls his Broadsword with the dice he rolled; a trait his sheet lacks
    is refused before the GM is asked."""
    leroy = Player(server, invite(bridge, "Leroy"))
    status, said = leroy.ask({"kind": "roll", "trait": "Sorcery"})
    assert status == 409 and "Leroy's sheet has no trait 'Sorcery'" in said and "Broadsword" in said
    assert leroy.ask({"kind": "roll", "trait": "broadsword", "dice": "+ + 0 -"}) == (
        202, "asked: rolls Broadsword with dice + + 0 -, waiting for the GM")
    shown, errors = play(bridge, "y\n")
    assert "  (roll Leroy Broadsword -d 'Leroy=+ + 0 -')" in shown and errors == "", errors
    log = json.loads(fudge("log", "--json", store=bridge).stdout)
    issued = [entry for entry in log if entry.get("issued")][-1]["issued"]
    assert issued["type"] == "roll" and issued["requested"]["fighter"] == "Leroy"
    assert [row[2] for row in requests_in(bridge)] == ["accepted"]


def test_a_request_row_fudge_did_not_write_is_refused_not_run(bridge: Path) -> None:
    """A stored request is untrusted: one whose fighter is an option (`--force`) or whose action is none
    is refused in play, one line, and nothing is appended."""
    before = fudge("log", store=bridge).stdout
    with sqlite3.connect(bridge) as db:
        fight = db.execute("SELECT id FROM fights").fetchone()[0]
        for number, (fighter, body) in enumerate((("--force", '{"kind":"spend","use":"luck"}'),
                                                  ("Leroy", '{"kind":"declare"}'), ("Leroy", "not json"))):
            db.execute("INSERT INTO requests VALUES (?, ?, ?, 'x', ?, ?, 'pending', '')",
                       (fight, f"forged{number}", fighter, f"2026-01-0{number + 1}", body))
    shown, errors = play(bridge, "y\ny\ny\n")
    assert shown.count("(not a request this fudge knows)") == 3 and errors == "", (shown, errors)
    assert [row[2] for row in requests_in(bridge)] == ["refused"] * 3
    assert fudge("log", store=bridge).stdout == before


def test_a_held_row_fudge_did_not_write_gives_no_dice_to_the_round(bridge: Path) -> None:
    """Held initiative dice are read again at the round's start: a row for no fighter of the fight (an option,
    a name with its own dice in it) or with no action gives nothing, and stays as it was."""
    with sqlite3.connect(bridge) as db:
        fight = db.execute("SELECT id FROM fights").fetchone()[0]
        for number, (fighter, body) in enumerate((("--force", '{"kind":"initiative","dice":"+ + + +"}'),
                                                  ("Leroy=+ + + +", '{"kind":"initiative","dice":"+ + + +"}'),
                                                  ("Leroy", "not json"))):
            db.execute("INSERT INTO requests VALUES (?, ?, ?, 'x', ?, ?, 'held', '')",
                       (fight, f"forged{number}", fighter, f"2026-01-0{number + 1}", body))
    shown, errors = play(bridge, "round --force\n")
    assert "-d" not in shown and errors == "", (shown, errors)
    assert [row[2] for row in requests_in(bridge)] == ["held"] * 3


def test_FT_PTS_a_fate_players_page_offers_fates_points_and_his_blow_is_fates_exchange(tmp_path: Path) -> None:
    """Under Fate the page offers what Fate spends (FT-PTS): a fate point, and each aspect with a box still
    open, no fudge point's use; the player's blow is the exchange `a` strikes at Fate's exchange pace
    (FT-PACE: everyone engaged rolls), and each accepted request is the GM's own Fate command."""
    store = tmp_path / "fudge.db"
    sheets = ROOT / "examples" / "sheets"
    for args in (("new", "tavern", "--rules", "fate"), ("join", str(sheets / "cyrus.toml")),
                 ("join", str(sheets / "guard.toml"), "--as", "Guard-A")):
        done = fudge(*args, store=store)
        assert done.returncode == 0, done.stderr
    with served(store) as (url, _, _process):
        cyrus = Player(url, invite(store, "Cyrus"))
        page = cyrus.page()
        assert '<label for="use">fate point</label>' in page
        offered = re.findall(r'<option value="(fate-point|aspect:[^"]*|luck|skill)">', page)
        assert offered == ["fate-point", "aspect:Brawler"], offered
        assert cyrus.message()["uses"] == [["fate-point", "spends a fate point: +1 to the latest roll"],
                                           ["aspect:Brawler", "invokes the aspect Brawler: a reroll of the latest roll"]]
        assert 'id="f-declare"' not in page and 'id="f-spend"' in page  # Fate declares no stance (FT-PACE)
        assert cyrus.ask({"kind": "declare", "stance": "all-out-offense", "sealed": True}) == (
            409, "this fight's rules (fate) declare no stance before a roll")
        status, said = cyrus.ask({"kind": "spend", "use": "luck"})
        assert status == 409 and said == "Cyrus' points offer no 'luck' now: fate-point, aspect:Brawler", said

        assert cyrus.ask({"kind": "attack", "target": "guard", "dice": "+ + + +"}) == (
            202, "asked: attacks Guard-A with dice + + + +, waiting for the GM")
        shown, errors = play(store, "y\n")
        assert "Cyrus' player attacks Guard-A with dice + + + +: accept? y/n" in shown
        assert "  (fate exchange 'Cyrus>Guard-A' 'Guard-A>Cyrus' -d 'Cyrus=+ + + +')" in shown and errors == "", errors

        assert cyrus.ask({"kind": "spend", "use": "aspect:Brawler"}) == (
            202, "asked: invokes the aspect Brawler: a reroll of the latest roll, waiting for the GM")
        assert cyrus.ask({"kind": "spend", "use": "fate-point"})[0] == 202
        shown, errors = play(store, "y\ny\n")
        assert "Cyrus' player invokes the aspect Brawler: a reroll of the latest roll: accept? y/n" in shown
        assert "  (fate aspect Cyrus Brawler)" in shown and "  (fate point Cyrus)" in shown and errors == "", errors
        assert [row[2] for row in requests_in(store)] == ["accepted"] * 3
        log = json.loads(fudge("log", "--json", store=store).stdout)
        asked = [entry["issued"] for entry in log if (entry.get("issued") or {}).get("requested")]
        assert [(i["type"], i["requested"]["fighter"]) for i in asked] == [
            ("fate_exchange", "Cyrus"), ("check_aspect", "Cyrus"), ("spend", "Cyrus")], asked
        assert '<option value="aspect:Brawler">' in cyrus.page()  # Brawler has two boxes: one is still open
        verified = fudge("verify", store=store)
        assert verified.returncode == 0 and "rules agree" in verified.stdout, verified.stdout


def test_PH_2_a_players_initiative_dice_are_held_and_rolled_at_the_next_rounds_start(bridge: Path, server: str) -> None:
    """C-DICE-3, PH-2: Leroy's player types the initiative dice he rolled; the GM holds them (y) and his next
    round's start rolls them as `-d Leroy=...`, with who asked kept in its `issued` (several requests:
    version 2); Grok's the GM refuses. Dice the round refuses (too few) are refused with the round's line,
    and the GM starts it again without them."""
    leroy, grok = (Player(server, invite(bridge, name)) for name in ("Leroy", GROK))
    assert 'id="f-initiative"' in leroy.page()
    assert leroy.ask({"kind": "initiative", "dice": "   "}) == (400, "type the dice you rolled")
    assert leroy.ask({"kind": "initiative", "dice": "+ + + +"}) == (
        202, "asked: rolls initiative dice + + + + for the next round, waiting for the GM")
    assert grok.ask({"kind": "initiative", "dice": "- - - -"})[0] == 202
    shown, errors = play(bridge, "y\nn\n")
    assert "rolls initiative dice + + + + for the next round: held for the next round" in str(leroy.message()["asked"])
    shown_more, errors_more = play(bridge, "round --force -d 'Brynhild=0 0 0 0 0'\n")
    shown, errors = shown + shown_more, errors + errors_more
    assert "Leroy's player rolls initiative dice + + + + for the next round: accept? y/n" in shown
    assert "  Leroy's initiative dice held for the next round" in shown
    assert "  (round --force -d 'Brynhild=0 0 0 0 0' -d 'Leroy=+ + + +')" in shown and errors == "", errors
    assert [(row[0], row[2], row[3]) for row in requests_in(bridge)] == [
        ("Leroy", "accepted", "rolled at the round's start"), (GROK, "refused", "the GM said no")]
    log = json.loads(fudge("log", "--json", store=bridge).stdout)
    started = [entry for entry in log if (entry.get("issued") or {}).get("requested")][-1]
    requested = started["issued"]["requested"]
    assert requested["v"] == 2 and [r["fighter"] for r in requested["requests"]] == ["Leroy"]
    assert started["issued"]["type"] == "start_round"
    rolls = {entry["combatant"]: entry for entry in log
             if entry["seq"] >= started["seq"] and entry["type"] == "initiative_rolled"}
    assert rolls["Leroy"]["source"] == "entered" and rolls["Leroy"]["faces"] == [1, 1, 1, 1], rolls["Leroy"]
    assert rolls[GROK]["source"] == "generated"  # his player's dice refused: the fight's own

    assert leroy.ask({"kind": "initiative", "dice": "+ +"})[0] == 202  # two dice where phases roll four
    shown, errors = play(bridge, "y\nround --force\nround --force\n")
    assert "the players' initiative dice were refused with the round (Leroy)" in errors
    assert requests_in(bridge)[-1][2] == "refused" and requests_in(bridge)[-1][3] in errors
    assert shown.count("(round --force") == 1  # the second start is the GM's own, with the fight's dice
    verified = fudge("verify", store=bridge)
    assert verified.returncode == 0 and "rules agree" in verified.stdout, verified.stdout
