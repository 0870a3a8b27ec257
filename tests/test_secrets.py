"""The GM's secrets and the snapshot key (A-FAIR-1, A-SEAL-1, A-REPLAY-1).

- The snapshot key is 32 random bytes written whole; anything else is no key. A snapshot is msgpack of
  the state's own types, never unpickled: a signed malicious pickle does not run.
- Dice seeds and sealed declarations live outside the store, keyed by fight; a seed is used only if
  it matches the commitment in the log; without it generated dice are refused in one line, typed
  dice still work; `fudge secrets export/import` moves them.
- Every fight (new, branch, import, kept sim fight) has its own seed: a reveal in one never makes
  another's future rolls predictable.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import pickle
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from fudge_combat.events.records import json_form
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.audit import verify
from fudge_combat.engine.kernel.dice import commitment
from fudge_combat.engine.kernel.rewind import UNKNOWN
from fudge_combat.engine.kernel.state import FightState
from fudge_combat.events import structs as ev
from fudge_combat.store import secrets as kept_secrets
from fudge_combat.store import snapshots
from fudge_combat.store.base import StoreError
from fudge_combat.service.fights import Fights
from fudge_combat.store.memory import MemoryStore
from fudge_combat.store.secrets import MemorySecrets, Secret, SecretFile
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, sheet, start
from tests.processes import fudge

SHEETS = Path(__file__).resolve().parent.parent / "examples" / "sheets"


@pytest.fixture(autouse=True)
def plain_logging(monkeypatch: pytest.MonkeyPatch) -> None:
    """Warnings go to structlog as configured here: a CLI test run earlier may have left its set-up pending."""
    from fudge_combat.store.log import log

    monkeypatch.setattr(log, "setup", None)
    monkeypatch.setattr(log, "threshold", logging.NOTSET)


def duel(fights: Fights, name: str = "duel") -> str:
    start(fights, name)
    for who in ("Ann", "Bob"):
        fights.execute(name, cmd.Join(sheet=sheet(who, attributes={"Perception": "Fair"}), source=f"{who}.toml"))
    return name


def perception(fights: Fights, name: str = "duel", given: Any = None) -> ev.DiceRolled:
    outcome = fights.execute(name, cmd.RollTrait(combatant="Ann", trait="Perception"), given)
    return next(r.event for r in outcome.records if isinstance(r.event, ev.DiceRolled))


def on_file(path: Path) -> Fights:
    return Fights(SqliteStore(path))


def stored_bytes(path: Path) -> bytes:
    """Every byte of the store: the database and its write-ahead log."""
    return b"".join(p.read_bytes() for p in (path, Path(f"{path}-wal")) if p.exists())


# --- 1. the snapshot key -------------------------------------------------------------------------

# The last is a key written raw rather than in hex; a fixed value, as every test id must be the same in every
# run and in each of pytest-xdist's workers (a random one gives each a different id).
@pytest.mark.parametrize("content", [b"", b"ab", b"0" * 63, b"zz" * 32, b"00" * 33,
                                     pytest.param(hashlib.sha256(b"a raw key").digest(), id="32-raw-bytes")])
def test_a_short_or_garbled_key_file_is_no_key_and_is_left_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 content: bytes) -> None:
    """A-REPLAY-1: an empty key (a kill while it was first written) is never an HMAC key."""
    key = tmp_path / "snapshot.key"
    key.write_bytes(content)
    key.chmod(0o600)
    monkeypatch.setenv("FUDGE_KEY_FILE", str(key))
    snapshots._WARNED.clear()
    with capture_logs() as logs:
        assert snapshots.local_key() is None
        assert snapshots.local_key(create=True) is None
    assert key.read_bytes() == content  # never overwritten
    assert [entry["log_level"] for entry in logs] == ["warning"]  # one warning, naming the file
    assert logs[0]["key_file"] == str(key)


def test_a_key_others_can_read_is_no_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "snapshot.key"
    key.write_text(os.urandom(32).hex())
    key.chmod(0o644)
    monkeypatch.setenv("FUDGE_KEY_FILE", str(key))
    snapshots._WARNED.clear()
    with capture_logs():
        assert snapshots.local_key(create=True) is None


def test_a_new_key_is_32_random_bytes_written_whole_for_its_owner(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    key = tmp_path / "state" / "snapshot.key"
    monkeypatch.setenv("FUDGE_KEY_FILE", str(key))
    made = snapshots.local_key(create=True)
    assert made is not None and len(made) == 32
    assert key.stat().st_mode & 0o777 == 0o600
    assert key.read_text() == made.hex()
    assert os.listdir(key.parent) == ["snapshot.key"]  # no temp file left behind
    assert snapshots.local_key(create=True) == made  # read, never made again


class Boom:
    """What an attacker pickles: calling os.system when loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> Any:
        return (os.system, (f"touch {self.marker}",))


def test_a_signed_malicious_snapshot_does_not_run(tmp_path: Path) -> None:
    """A snapshot with a valid HMAC (the key stolen, or a forged key file) still cannot run code: its body
    is decoded as msgpack of the state's types, so a pickle's bytes are refused, never unpickled."""
    marker = tmp_path / "pwned"
    key = os.urandom(32)
    forged = snapshots.signed(pickle.dumps(Boom(marker)), "fight-id", 3, "ab" * 32, key)
    with capture_logs() as logs:
        assert snapshots.unpack(forged, "fight-id", 3, "ab" * 32, key) is None
    assert not marker.exists()
    assert ["does not decode to a fight's state" in entry["reason"] for entry in logs] == [True]
    state = FightState(fight_id="fight-id", last_seq=3)
    honest = snapshots.pack((state, UNKNOWN), "fight-id", 3, "ab" * 32, key)  # a state still loads
    assert snapshots.unpack(honest, "fight-id", 3, "ab" * 32, key) == (state, UNKNOWN)


def test_a_signed_malicious_snapshot_in_the_store_does_not_run_at_the_next_command(tmp_path: Path) -> None:
    """The way a GM meets it: a separate process reading a store whose snapshot was replaced and re-signed."""
    path = tmp_path / "fudge.db"
    assert fudge("new", "duel", store=path).returncode == 0
    assert fudge("join", str(SHEETS / "snorri.toml"), store=path).returncode == 0
    marker = tmp_path / "pwned"
    store = SqliteStore(path)
    info, (seq, last) = store.fight("duel"), store.tail("duel")
    key = bytes.fromhex((tmp_path / "snapshot.key").read_text())
    forged = snapshots.signed(pickle.dumps(Boom(marker)), info.fight_id, seq, last, key)
    store.db.execute("UPDATE snapshots SET seq = ?, hash = ?, version = ?, body = ?, mac = ?",
                     (forged.seq, forged.hash, forged.version, forged.body, forged.mac))
    store.close()
    done = fudge("roll", "snorri", "Perception", "--dice", "+ + 0 0", store=path)
    assert done.returncode == 0, done.stderr
    assert not marker.exists()


# --- 2. secrets out of the store ---------------------------------------------------------------

@pytest.fixture
def box_kind(request: pytest.FixtureRequest, tmp_path: Path) -> Any:
    return MemorySecrets() if request.param == "memory" else SecretFile(tmp_path / "s" / "secrets.db")


@pytest.mark.parametrize("box_kind", ["memory", "file"], indirect=True)
def test_the_secret_box_contract(box_kind: Any) -> None:
    """Secrets are kept per fight; a secret once kept is not replaced; a revealed seed is marked."""
    box = box_kind
    box.put("A", {"seed:c1": "01"})
    box.put("A", {"seed:c1": "02"})  # a seed never changes
    assert box.get("A", "seed:c1") == "01" and box.get("B", "seed:c1") is None
    assert box.knows("A") and not box.knows("B")
    assert not box.was_revealed("seed:c1")
    box.mark_revealed(["seed:c1"])
    assert box.was_revealed("seed:c1")
    assert box.add([Secret("B", "seal:s", "{}"), Secret("A", "seed:c1", "ff")]) == 1
    assert [(s.fight, s.key, s.value, s.revealed) for s in box.export()] == [
        ("A", "seed:c1", "01", True), ("B", "seal:s", "{}", False)]


def test_the_secrets_file_is_its_owners_alone(tmp_path: Path) -> None:
    path = tmp_path / "new" / "secrets.db"
    SecretFile(path).put("A", {"seed:c": "00"})
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.parent.stat().st_mode & 0o777 == 0o700


def test_A_FAIR_1_A_SEAL_1_a_reader_of_the_store_finds_no_seed_and_no_sealed_declaration(tmp_path: Path) -> None:
    path = tmp_path / "fudge.db"
    fights = on_file(path)
    duel(fights)
    fights.declare("duel", "Ann", ev.Declaration(all_out="offense"), sealed=True)
    fights.branch("duel", "what-if", None)
    lines = fights.export("duel")
    fights.import_(lines, "copy")
    fights.store.close()
    kept = SecretFile().export()
    assert {s.key.split(":")[0] for s in kept} == {"seed", "seal"}
    everything = stored_bytes(path)
    for secret in kept:
        assert secret.value.encode() not in everything
        if secret.key.startswith("seal:"):  # the salt that opens the seal is nowhere in the store
            assert json.loads(secret.value)["salt"].encode() not in everything
    assert sqlite3.connect(path).execute("SELECT count(*) FROM secrets").fetchone() == (0,)


def test_A_FAIR_1_a_swapped_seed_is_refused_naming_the_fight() -> None:
    fights = Fights(MemoryStore())
    duel(fights)
    state = fights.state("duel")
    fights.secrets.clear()  # type: ignore[attr-defined]
    fights.secrets.put(state.fight_id, {f"seed:{state.commitment}": os.urandom(32).hex()})
    with pytest.raises(StoreError, match="seed kept for fight duel does not match the commitment"):
        perception(fights)
    assert perception(fights, given=dice("ann=+ + 0 0")).source == "entered"  # typed dice still work
    with pytest.raises(StoreError, match="does not match its commitment"):
        fights.reveal_seed("duel")


def test_without_the_seed_generated_dice_are_refused_in_one_line_and_typed_dice_work(tmp_path: Path) -> None:
    """A GM moving machines: the store travels, the secrets do not; export and import bring them."""
    path = tmp_path / "fudge.db"
    assert fudge("new", "duel", store=path).returncode == 0
    assert fudge("join", str(SHEETS / "snorri.toml"), store=path).returncode == 0
    assert fudge("roll", "snorri", "Perception", store=path).returncode == 0
    exported = fudge("secrets", "export", "-o", str(tmp_path / "mine.json"), store=path)
    assert exported.returncode == 0, exported.stderr
    assert (tmp_path / "mine.json").stat().st_mode & 0o777 == 0o600
    elsewhere = {"FUDGE_KEY_FILE": str(tmp_path / "other" / "snapshot.key")}
    refused = fudge("roll", "snorri", "Perception", store=path, env=elsewhere)
    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1 and refused.stderr.startswith("error: the dice seed of fight duel")
    assert "fudge secrets import" in refused.stderr and "--dice" in refused.stderr
    typed = fudge("roll", "snorri", "Perception", "--dice", "+ + 0 0", store=path, env=elsewhere)
    assert typed.returncode == 0, typed.stderr
    imported = fudge("secrets", "import", str(tmp_path / "mine.json"), store=path, env=elsewhere)
    assert imported.returncode == 0 and "1 secrets imported" in imported.stdout
    assert fudge("roll", "snorri", "Perception", store=path, env=elsewhere).returncode == 0
    revealed = fudge("reveal-seed", store=path, env=elsewhere)
    assert revealed.returncode == 0, revealed.stderr
    assert "2 generated rolls re-derived" in fudge("verify", store=path, env=elsewhere).stdout


def test_an_import_with_a_seed_that_does_not_hash_to_its_commitment_is_refused_whole(tmp_path: Path) -> None:
    good = Secret("A", f"seed:{commitment(b'x' * 32)}", (b"x" * 32).hex())
    bad = Secret("A", f"seed:{commitment(b'y' * 32)}", (b"z" * 32).hex())
    with pytest.raises(StoreError, match="does not hash to its commitment"):
        kept_secrets.loads(kept_secrets.dumps([good, bad]))
    assert kept_secrets.loads(kept_secrets.dumps([good])) == [good]
    (tmp_path / "x.json").write_text(kept_secrets.dumps([good, bad]))
    done = fudge("secrets", "import", str(tmp_path / "x.json"), store=tmp_path / "fudge.db")
    assert done.returncode == 1 and done.stderr.startswith("error: the secret seed:") and "nothing imported" in done.stderr
    assert SecretFile(tmp_path / "secrets.db").export() == []


def old_store(path: Path) -> tuple[str, str]:
    """A store as an older version wrote it: the fight's seed in the store's own `secrets` table."""
    fights = on_file(path)
    duel(fights)
    state = fights.state("duel")
    key = f"seed:{state.commitment}"
    seed = fights.secrets.get(state.fight_id, key)
    fights.store.db.execute("INSERT INTO secrets VALUES (?, ?)", (key, seed))
    fights.store.close()
    return key, seed


def test_an_old_stores_secrets_move_out_at_the_first_write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "fudge.db"
    key, seed = old_store(path)
    monkeypatch.setenv("FUDGE_SECRETS_FILE", str(tmp_path / "fresh.db"))  # this machine never kept them
    fights = on_file(path)
    with capture_logs():
        assert perception(fights).source == "generated"
    assert SecretFile().get(fights.state("duel").fight_id, key) == seed
    fights.store.close()
    assert sqlite3.connect(path).execute("SELECT count(*) FROM secrets").fetchone() == (0,)
    assert seed.encode() not in stored_bytes(path)


def test_a_seed_written_into_the_store_is_never_adopted_for_a_fight_already_kept(tmp_path: Path) -> None:
    """Whoever can write the store cannot choose the dice: rewriting the commitment and planting a seed fails."""
    path = tmp_path / "fudge.db"
    fights = on_file(path)
    duel(fights)
    planted = b"\x07" * 32
    fights.store.db.execute("INSERT INTO secrets VALUES (?, ?)", (f"seed:{commitment(planted)}", planted.hex()))
    fights.store.close()
    fights = on_file(path)
    with capture_logs():
        perception(fights)
    assert all(s.value != planted.hex() for s in SecretFile().export())


# --- 3. every fight its own seed ----------------------------------------------------------------

def own_commitments(fights: Fights, name: str) -> list[str]:
    return [r.event.seed_commitment for r in fights.log(name) if isinstance(r.event, ev.SeedRevealed)]


def test_A_FAIR_1_revealing_a_branch_does_not_reveal_its_parents_future_rolls() -> None:
    fights = Fights(MemoryStore())
    duel(fights)
    perception(fights)
    parent = fights.state("duel")
    fights.branch("duel", "what-if", None)
    assert fights.state("what-if").commitment != parent.commitment  # its own seed from its first event
    fights.reveal_seed("what-if")
    assert parent.commitment not in own_commitments(fights, "what-if")
    assert perception(fights, "duel").source == "generated"  # the parent still rolls, unpredictably
    report = verify(fights.store.read("what-if"))
    assert report.ok and report.rolls_unchecked == 1  # the roll before the fork: the parent's seed


def test_A_FAIR_1_once_the_parent_reveals_the_branch_may_reveal_its_prefix_too() -> None:
    fights = Fights(MemoryStore())
    duel(fights)
    perception(fights)
    fights.branch("duel", "what-if", None)
    fights.reveal_seed("duel")
    fights.reveal_seed("what-if")
    report = verify(fights.store.read("what-if"))
    assert report.ok and report.rolls_checked == 1 and report.rolls_unchecked == 0


def test_A_FAIR_1_revealing_an_import_does_not_reveal_the_original() -> None:
    fights = Fights(MemoryStore())
    duel(fights)
    original = fights.state("duel").commitment
    fights.import_(fights.export("duel"), "copy")
    fights.reveal_seed("copy")
    assert original not in own_commitments(fights, "copy")
    assert perception(fights, "duel").source == "generated"


def test_A_FAIR_1_a_fight_whose_seed_another_log_revealed_refuses_generated_dice() -> None:
    """A store writer copies fight A under another name with A's id and reveals it: A's seed is public,
    so A refuses to roll with it rather than roll predictably."""
    fights = Fights(MemoryStore())
    duel(fights)
    state = fights.state("duel")
    fights.secrets.mark_revealed([f"seed:{state.commitment}"])
    with pytest.raises(StoreError, match="was revealed in another fight's log"):
        perception(fights)
    fights.reveal_seed("duel")
    assert perception(fights).source == "generated"


# --- 15. fudge sim --keep --------------------------------------------------------------------------

def sim_setup() -> Any:
    from fudge_combat.cli.sim import entrants
    from fudge_combat.engine.kernel.presets import resolve
    from fudge_combat.sim.runner import Setup

    _, options = resolve("fudge")
    return Setup("fudge", json_form(options),
                 entrants([SHEETS / "snorri.toml", SHEETS / "brynhild.toml"], [], ["plain"]), "plain", 30)


def test_kept_sim_fights_never_touch_the_current_fight(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from fudge_combat.sim.batch import run_batch

    path = tmp_path / "fudge.db"
    fights = on_file(path)
    duel(fights)
    settings: list[tuple[str, str]] = []
    original = SqliteStore.set_setting
    monkeypatch.setattr(SqliteStore, "set_setting", lambda self, k, v: (settings.append((k, v)), original(self, k, v)))
    batch = run_batch(sim_setup(), 7, 6, store=lambda: fights, keep_k=2)
    assert settings == [] and fights.store.setting("current") == "duel"
    for kept in batch.kept:
        assert verify(fights.store.read(kept["fight"])).ok


def test_a_kept_sim_fight_is_written_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run stopped while the second kept fight is written leaves the first whole and no trace of the second."""
    from fudge_combat.sim.batch import run_batch

    path = tmp_path / "fudge.db"
    fights = on_file(path)
    duel(fights)
    appends = []
    original = SqliteStore.append

    def append(self: SqliteStore, name: str, *args: Any, **kwargs: Any) -> None:
        if name.startswith("sim-"):
            appends.append(name)
            if len(set(appends)) == 2:
                raise KeyboardInterrupt  # as a Ctrl-C or a kill would stop it
        original(self, name, *args, **kwargs)

    monkeypatch.setattr(SqliteStore, "append", append)
    with pytest.raises(KeyboardInterrupt):
        run_batch(sim_setup(), 7, 6, store=lambda: fights, keep_k=2)
    names = [f.name for f in fights.store.fights() if f.name.startswith("sim-")]
    assert len(names) == 1 and appends.count(names[0]) == 1  # one append: the whole fight
    rows = fights.store.read(names[0])
    assert verify(rows).ok and rows[-1].type == "seed_committed"  # played to the end, seed revealed
    assert fights.store.setting("current") == "duel"


def test_A_FAIR_1_a_kept_sim_fights_next_seed_is_not_derived_from_its_revealed_seed(tmp_path: Path) -> None:
    """Revealing a kept fight's seed must not predict its next rolls (nor, being a hash of the master seed
    and the index, the master seed or the other fights' seeds)."""
    from fudge_combat.sim.batch import run_batch

    commitments = []
    for attempt in range(2):
        fights = Fights(MemoryStore())
        batch = run_batch(sim_setup(), 7, 4, store=lambda: fights, keep_k=2)
        names = [k["fight"] for k in batch.kept]
        states = [fights.state(name) for name in names]
        revealed = [own_commitments(fights, name) for name in names]
        assert revealed[0] != revealed[1]  # each kept fight its own seed
        commitments.append([s.commitment for s in states])
        for state in states:  # the new seed is kept, and rolls
            assert fights.secrets.get(state.fight_id, f"seed:{state.commitment}") is not None
    assert commitments[0][0] != commitments[1][0]  # the same run twice: new seeds differ (random, not derived)


KEEPER = r'''
import logging
import sys
import time

import structlog

from fudge_combat.sim.batch import run_batch
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.test_secrets import sim_setup

structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
store = SqliteStore(sys.argv[1])
kept = []


def statement(sql: str) -> None:
    if sql.startswith("INSERT INTO fights"):
        kept.append(sql)
    if len(kept) == 2 and sql.startswith("INSERT INTO events"):
        print("inside", flush=True)  # the second kept fight's rows are being inserted: wait to be killed
        time.sleep(120)


store.db.set_trace_callback(statement)
run_batch(sim_setup(), 7, 6, store=lambda: Fights(store), keep_k=3)
'''


def test_a_sim_killed_while_keeping_fights_leaves_them_whole_and_the_current_fight_as_it_was(tmp_path: Path) -> None:
    """SIGKILL inside the second kept fight's transaction: the first is whole, the second absent, current unchanged."""
    import signal
    import subprocess
    import sys

    path = tmp_path / "fudge.db"
    fights = on_file(path)
    duel(fights)
    fights.store.close()
    script = tmp_path / "keeper.py"
    script.write_text(KEEPER)
    root = Path(__file__).resolve().parent.parent
    process = subprocess.Popen([sys.executable, str(script), str(path)], cwd=root, stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL, text=True,
                               env={**os.environ, "PYTHONPATH": str(root)})
    try:
        assert process.stdout is not None and process.stdout.readline().strip() == "inside"
    finally:
        os.kill(process.pid, signal.SIGKILL)
        process.wait(timeout=30)
    store = SqliteStore(path)
    assert store.setting("current") == "duel"
    kept = [f.name for f in store.fights() if f.name.startswith("sim-")]
    assert len(kept) == 1
    rows = store.read(kept[0])
    assert verify(rows).ok and rows[-1].type == "seed_committed"
    store.close()


def test_A_SEAL_1_a_sealed_declaration_travels_with_the_secrets_and_a_forged_one_is_refused() -> None:
    from fudge_combat.cli.secrets import _seal_matches

    fights = Fights(MemoryStore())
    duel(fights)
    fights.declare("duel", "Ann", ev.Declaration(all_out="offense"), sealed=True)
    text = kept_secrets.dumps(fights.secrets.export())
    moved = kept_secrets.loads(text, check_seal=_seal_matches)
    assert {s.key.split(":")[0] for s in moved} == {"seed", "seal"}
    elsewhere = Fights(fights.store, secrets=MemorySecrets())
    with pytest.raises(StoreError, match="fudge secrets import"):
        elsewhere.reveals(elsewhere.state("duel"), ["Ann"])
    elsewhere.secrets.add(moved)
    assert elsewhere.reveals(elsewhere.state("duel"), ["Ann"])[0].declaration.all_out == "offense"
    forged = text.replace('\\"offense\\"', '\\"defense\\"')
    assert forged != text
    with pytest.raises(StoreError, match="does not match its seal"):
        kept_secrets.loads(forged, check_seal=_seal_matches)
