"""`fudge play` in this process: `a TARGET` under each kind of rules, completion, the board while
another process writes the same store, and the history file of a store."""

from __future__ import annotations

import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, strategies as st
from msgspec.structs import replace
from prompt_toolkit.completion import CompleteEvent
from prompt_toolkit.document import Document

from fudge_combat.events.records import json_form
from fudge_combat.cli import context, play
from fudge_combat.cli.demos import join, join_as
from fudge_combat.cli.shorthands import Refused, attack_words, odds_words
from fudge_combat.cli.play_prompt import Completions, current_word, history_file
from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.service.fights import Fights
from fudge_combat.store.sqlite import SqliteStore
from tests.conftest import dice, make_fights, start
from tests.fuzzing import fuzz


def fight(rules: str, *sheets: Any, house: str | None = None, **options: Any) -> tuple[Fights, str]:
    fights = make_fights()
    if house is not None:
        label, resolved = resolve(rules, house)
        fights.new("f", label, json_form(resolved))
        name = "f"
    else:
        name = start(fights, "f", rules, **options)
    for command in sheets:
        fights.execute(name, command)
    return fights, name


def duel(rules: str = "fudge", **options: Any) -> tuple[Fights, str]:
    return fight(rules, join("snorri"), join("brynhild"), **options)


# --- `a TARGET` ----------------------------------------------------------------------------------
def test_F_PACE_2_a_in_simultaneous_rounds_is_an_exchange_with_the_only_foe_standing() -> None:
    fights, name = duel()
    state = fights.state(name)
    assert attack_words(state, ["bryn"]) == ["exchange", "Snorri", "Brynhild"]
    assert attack_words(state, ["snorri", "-d", "snorri=+ 0 0 0"]) == ["exchange", "Brynhild", "Snorri", "-d",
                                                                         "snorri=+ 0 0 0"]
    assert attack_words(state, ["Brynhild", "snorri", "--mod", "1"]) == ["exchange", "Brynhild", "Snorri", "--mod", "1"]


def test_F_MULTI_2_a_fighter_alone_against_two_foes_fights_both_in_one_melee() -> None:
    """F-PACE-2, F-MULTI-2: Snorri alone against Brynhild and Leroy rolls once against both; whichever of
    the three `a` names, the round's blow is the melee (naming Leroy as Snorri's target: F-MULTI-3)."""
    fights, name = fight("fudge", join("snorri", side="a"), join("brynhild", side="b"), join("leroy", side="b"))
    state = fights.state(name)
    assert attack_words(state, ["snorri"]) == ["melee", "Snorri", "Brynhild", "Leroy"]
    assert attack_words(state, ["leroy", "snorri"]) == ["melee", "Snorri", "Brynhild", "Leroy"]
    assert attack_words(state, ["leroy"]) == ["melee", "Snorri", "Brynhild", "Leroy", "--target", "Leroy"]


def test_a_does_not_pick_a_foe_who_is_out_of_the_fight() -> None:
    fights, name = fight("fudge", join("snorri", side="a"), join("brynhild", side="b"), join("leroy", side="b"))
    fights.execute(name, cmd.GmWound(combatant="Leroy", level=4, reason="a fall"))  # Incapacitated
    state = fights.state(name)
    assert not state.find("leroy").track.can_act
    assert attack_words(state, ["snorri"]) == ["exchange", "Brynhild", "Snorri"]


def test_PH_1_under_phases_the_current_actor_attacks_and_before_a_turn_nobody_does() -> None:
    fights, name = fight("fudge-phases", join("leroy", side="watch"), join("brynhild", side="raiders"))
    with pytest.raises(Refused, match="nobody has the turn: `n` gives the next actor the turn"):
        attack_words(fights.state(name), ["leroy"])
    fights.execute(name, cmd.StartRound(), dice("leroy=+ + 0 -", "brynhild=+ + + - 0"))
    fights.execute(name, cmd.NextTurn())
    state = fights.state(name)
    assert state.turn is not None and state.turn.combatant == "brynhild"  # phase +: Good Agility first
    assert attack_words(state, ["ler", "--mod", "-1"]) == ["attack", "Brynhild", "Leroy", "--mod", "-1"]
    with pytest.raises(Refused, match="it is Brynhild's turn, and a fighter does not strike himself: name whom Brynhild attacks"):
        attack_words(state, ["brynhild"])


def test_AI_INIT_2_under_atari_isev_the_actor_of_the_turn_attacks() -> None:
    fights, name = fight("atari-isev", join("max", side="Max"), join("cutthroat", side="bar"))
    fights.execute(name, cmd.StartRound(), dice("max=+ + 0 0", "cutthroat=0 0 0 0"))
    fights.execute(name, cmd.NextTurn())
    assert attack_words(fights.state(name), ["cut", "--weapon", "unarmed"]) == [
        "attack", "Max", "Cutthroat", "--weapon", "unarmed"]


def test_F_PACE_3_without_a_turn_order_the_gm_names_who_attacks() -> None:
    fights, name = duel("fudge", pace="alternating")
    state = fights.state(name)
    with pytest.raises(Refused, match="these rules have no turn order .*F-PACE-3"):
        attack_words(state, ["brynhild"])
    assert attack_words(state, ["snorri", "brynhild"]) == ["attack", "Snorri", "Brynhild"]


def test_FT_PACE_fate_exchanges_each_act_against_the_other_and_turns_are_fate_attacks() -> None:
    fights, name = fight("fate", join("cyrus"), join_as("guard", "Guard-A"))
    assert attack_words(fights.state(name), ["guard-a"]) == ["fate", "exchange", "Cyrus>Guard-A", "Guard-A>Cyrus"]
    turns = 'extends = "fate"\npace = "turn"\ninitiative = "alertness"\n'
    fights, name = fight("fate", join("cyrus"), join_as("guard", "Guard-A"), house=turns)
    with pytest.raises(Refused, match="`fate round` orders a new round by Alertness"):
        attack_words(fights.state(name), ["guard-a"])
    fights.execute(name, cmd.FateRound(), dice("cyrus=+ 0 0 0", "guard-a=- 0 0 0"))
    assert attack_words(fights.state(name), ["g"]) == ["fate", "attack", "Cyrus", "Guard-A"]


def test_a_has_no_meaning_at_a_story_or_scene_pace() -> None:
    fights, name = duel("fudge", pace="story")
    with pytest.raises(Refused, match="story pace: `story NAME TRAIT`"):
        attack_words(fights.state(name), ["brynhild"])
    scene = 'extends = "fate"\npace = "scene"\n'
    fights, name = fight("fate", join("cyrus"), join_as("guard", "Guard-A"), house=scene)
    with pytest.raises(Refused, match="scene pace: `fate scene"):
        attack_words(fights.state(name), ["guard-a"])


def test_odds_weigh_the_blow_a_would_strike() -> None:
    """`odds TARGET` names the striker `a TARGET` would make strike: in simultaneous rounds the only foe
    standing (a Fate exchange, a Fudge duel), so `odds --fight` is never left without an attacker."""
    fights, name = fight("fate", join("cyrus"), join_as("guard", "Guard-A"))
    assert odds_words(fights.state(name), ["guard-a"]) == ["odds", "--fight", "Cyrus", "Guard-A"]
    assert odds_words(fights.state(name), ["g", "c", "--json"]) == ["odds", "--fight", "Guard-A", "Cyrus", "--json"]
    fights, name = duel("fudge")
    assert odds_words(fights.state(name), ["sn"]) == ["odds", "--fight", "Brynhild", "Snorri"]


def test_names_are_any_case_and_unique_prefixes_an_ambiguous_one_lists_the_candidates() -> None:
    fights, name = fight("fate", join("cyrus"), join_as("guard", "Guard-A"), join_as("guard", "Guard-B"))
    state = fights.state(name)
    with pytest.raises(Refused, match="'guard' could be Guard-A or Guard-B: type more of the name"):
        attack_words(state, ["cyrus", "guard"])
    with pytest.raises(Refused, match="no combatant 'finn' in f; combatants: Cyrus, Guard-A, Guard-B"):
        attack_words(state, ["finn"])
    with pytest.raises(Refused, match="`a TARGET` names whom"):
        attack_words(state, ["--mod", "1"])
    assert attack_words(state, ["CYRUS", "GUARD-b"])[:4] == ["fate", "exchange", "Cyrus>Guard-B", "Guard-B>Cyrus"]


# --- a session on a store --------------------------------------------------------------------------
@pytest.fixture
def store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A store with a Fudge duel, current; the session's --store."""
    db = tmp_path / "fudge.db"
    fights = Fights(SqliteStore(db))
    label, options = resolve("fudge", None)
    fights.new("duel", label, json_form(options))
    fights.execute("duel", join("snorri"))
    fights.execute("duel", join("brynhild"))
    fights.execute("duel", replace(join_as("leroy", "Grok the Orc"), side="orcs"))
    fights.store.close()
    monkeypatch.setattr(context.settings, "store_path", db)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return db


@pytest.fixture
def session(store: Path) -> Iterator[play.Session]:
    opened = play.Session()
    yield opened
    opened.close()


def test_the_board_follows_another_process_writing_the_same_store(
        session: play.Session, store: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The session's cached state is used only while the log's last event is the one it was folded to."""
    session.board()
    assert "duel (fudge" in capsys.readouterr().out
    session.board()
    assert capsys.readouterr().out == ""  # nothing moved: not redrawn
    other = Fights(SqliteStore(store))  # another `fudge` on the same store
    other.execute("duel", cmd.Exchange(first="Snorri", second="Brynhild"), dice("snorri=0 0 0 0", "brynhild=0 0 0 0"))
    session.board()
    after = capsys.readouterr().out
    assert "duel (fudge" in after and "round 1" in after  # the other process's exchange opened round 1
    assert session.run('exchange snorri brynhild -d "snorri=- 0 0 0" -d "brynhild=+ 0 0 0"') == 0  # no conflict
    assert "Brynhild rolls" in capsys.readouterr().out
    assert other.state("duel") == session.fights.state("duel")
    other.store.close()


def test_A_REPLAY_1_the_session_folds_what_another_writer_appended_onto_its_state(
        session: play.Session, store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The new events are folded onto the cached state, which is then the replay of the whole log; an
    undo from the other writer (it may reach back before the cached state) makes the session read the fight again."""
    from fudge_combat.service.caches import named

    kept = session.fights.state("duel")
    other = Fights(SqliteStore(store))
    other.execute("duel", cmd.Exchange(first="Snorri", second="Grok the Orc"), dice("snorri=+ + 0 0", "grok the orc=0 0 0 0"))
    other.execute("duel", cmd.RollTrait(combatant="Brynhild", trait="Axe", difficulty=1), dice("0 0 0 0"))

    def no_reread(*args: Any) -> None:
        raise AssertionError("read again, not caught up")

    with monkeypatch.context() as patch:
        patch.setattr(session.fights.loader, "from_snapshot", no_reread)
        patch.setattr(session.fights, "replayed", no_reread)
        caught_up = session.fights.state("duel")
    assert caught_up.last_seq > kept.last_seq
    assert caught_up == named(Fights(SqliteStore(store)).replayed("duel")[1], "duel")

    other.execute("duel", cmd.Undo())
    assert session.fights.state("duel") == named(Fights(SqliteStore(store)).replayed("duel")[1], "duel")
    other.store.close()


def test_every_command_of_the_session_gets_the_one_service(session: play.Session) -> None:
    assert context.service() is session.fights
    session.close()
    assert context.service() is not session.fights


def test_a_defect_in_a_command_is_one_line_and_the_session_goes_on(
        session: play.Session, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from fudge_combat.cli import fight as fight_module

    def broken(*args: Any, **kwargs: Any) -> None:
        raise ZeroDivisionError("a defect")

    monkeypatch.setattr(fight_module, "order_lines", broken)
    assert session.run("initiative") == 70
    assert capsys.readouterr().err.startswith("internal error: ZeroDivisionError: a defect")
    assert session.run("fights") == 0


def test_a_defect_in_the_session_itself_is_one_line_and_it_goes_on(
        session: play.Session, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    def broken(*args: Any) -> Any:
        raise ZeroDivisionError("a defect")

    monkeypatch.setattr(play, "attack_words", broken)
    monkeypatch.setattr(play, "board_after", broken)
    assert session.run("a brynhild") == 70
    session.board()
    errors = capsys.readouterr().err.splitlines()
    assert len(errors) == 2 and all(line.startswith("internal error: ZeroDivisionError: a defect") for line in errors)
    monkeypatch.undo()
    session.board(force=True)
    assert "duel (fudge" in capsys.readouterr().out


def completions(session: play.Session, text: str) -> list[str]:
    found = Completions(session).get_completions(Document(text, len(text)), CompleteEvent(completion_requested=True))
    return [completion.text for completion in found]


def test_completion_of_commands_options_fights_combatants_and_traits(session: play.Session) -> None:
    session.board()  # the state completion reads is the board's
    assert "attack" in completions(session, "") and completions(session, "atta") == ["attack"]
    assert completions(session, "fate ex") == ["exchange"]
    assert "--defense-mod" in completions(session, "attack snorri brynhild --def")
    assert "--house" in completions(session, "new x --ho")
    assert completions(session, "status --fight d") == ["duel"]
    assert completions(session, "use ") == ["duel"]
    assert completions(session, "roll sn") == ["Snorri"]
    assert completions(session, "roll Snorri Sw") == ["Sword"]
    assert completions(session, "exchange snorri GR") == ["'Grok the Orc'"]  # quoted: one word for the shell
    assert completions(session, "fate exchange Snorri>bry") == ["Snorri>Brynhild"]
    assert completions(session, "a bry") == ["Brynhild"]
    assert completions(session, "attack snorri brynhild --una") == ["--unaware"]
    assert completions(session, "a bry --una") == []  # `a` is an exchange here (simultaneous rounds): no --unaware
    assert "--defense-mod" in completions(session, "a bry --def")
    assert completions(session, "exchange snorri brynhild -d sn") == ["snorri="]


def test_completion_of_paths_for_sheets(session: play.Session, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "kara.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    assert completions(session, "join ka") == ["ra.toml"]  # the rest of the name, as a shell completes it
    assert completions(session, "new x --house ka") == ["ra.toml"]
    (tmp_path / "karl").mkdir()
    (tmp_path / "kaput.py").write_text("")
    assert completions(session, "join ka") == ["rl/", "ra.toml"]  # a folder with its `/`; no .py file


def test_the_word_being_typed_is_read_as_the_shell_reads_it() -> None:
    assert current_word("roll 'Grok the") == (["roll"], "Grok the", len("'Grok the"))
    assert current_word("roll snorri ") == (["roll", "snorri"], "", 0)
    assert current_word("") == ([], "", 0)


WORDS = st.lists(st.text(st.characters(blacklist_categories=("Cs", "Cc")), min_size=1, max_size=12),
                 min_size=1, max_size=5)


@given(WORDS)
@fuzz(300)
def test_fuzz_the_word_being_typed_starts_where_the_shell_would_start_it(words: list[str]) -> None:
    """Whatever the names (spaces, quotes, `>`), completion replaces the last word as typed and reads the
    words before it as the shell does."""
    text = shlex.join(words)
    before, _, length = current_word(text)
    assert before == words[:-1]
    assert shlex.split(text[len(text) - length:]) == words[-1:]
    assert current_word(text + " ") == (words, "", 0)


def test_the_history_is_kept_per_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    monkeypatch.chdir(tmp_path)
    here = history_file(Path("fudge.db"))
    assert here == history_file(tmp_path / "fudge.db")  # the same store, however it is named
    assert here != history_file(tmp_path / "other" / "fudge.db")
    assert here.parent == tmp_path / "state" / "fudge" / "history"


def test_a_servers_history_is_kept_per_url_and_its_file_names_no_password(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`fudge play` on a terminal against a club's server (`--store postgresql://...`): the store is a URL."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    club = history_file("postgresql://gm:s3cret@db.example/club")
    assert club == history_file("postgresql://gm:s3cret@db.example/club")
    assert club != history_file("postgresql://gm:s3cret@db.example/other")
    assert club.parent == tmp_path / "state" / "fudge" / "history"
    assert "s3cret" not in str(club) and "example" not in str(club)


def test_mark_unmark_and_leave_in_play_complete_names_and_conditions(
        session: play.Session, capsys: pytest.CaptureFixture[str]) -> None:
    """The one-shot commands work inside play as they are; completion offers the fighters, then the rules'
    own conditions for `mark` and the fighter's marked ones for `unmark` (docs/table.md)."""
    session.board()
    assert completions(session, "mark sn") == ["Snorri"]
    assert completions(session, "mark snorri pr") == ["prone"]
    assert completions(session, "mark snorri kn") == ["'knocked down'"]  # quoted: one word for the shell
    assert session.run("mark snorri 'knocked down' --rounds 1") == 0
    session.board()  # the loop draws the board after each line: completion reads its state
    assert completions(session, "unmark snorri ") == ["'knocked down'"]
    assert completions(session, "unmark brynhild ") == []
    assert session.run("unmark sn 'knocked down'") == 0
    assert session.run("leave grok --surrendered") == 0
    out = capsys.readouterr().out
    assert "Snorri is knocked down until round 1 (1 round)" in out and "Snorri is no longer knocked down" in out
    assert "Grok the Orc is out of the fight (surrendered)" in out
