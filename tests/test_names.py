"""Names as the GM types them (service.names): a unique beginning in any case finds a combatant, several
are listed, none gets "did you mean"; the command is written with full names before it is decided, so a
log never depends on how a name was typed (A-LOG-1) and old logs replay and verify without it.

Which fields of a command name a combatant is marked on the command models; every text field of every
command is either marked or listed below with what it holds instead, so a new command cannot forget it.
"""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Annotated, Any, Literal, Union, get_args, get_origin

import pytest
from hypothesis import given
from hypothesis import strategies as st
import msgspec
from pydantic import BaseModel

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.command_marks import NAMES_A_COMBATANT, field_hints, is_part
from fudge_combat.engine.kernel.errors import InputError, RuleError
from fudge_combat.engine.kernel.presets import resolve as resolve_rules
from fudge_combat.engine import turns
from fudge_combat.engine.kernel.state import Combatant, FightState
from fudge_combat.events.records import load
from fudge_combat.projections.fold import replay
from fudge_combat.service import names
from fudge_combat.service.fights import Fights
from tests.conftest import dice, sheet, start
from tests.fuzzing import fuzz
from tests.test_stored_rows import old_logs, store_of

# Every text field of a command that does not name a combatant, and what it holds.
NOT_NAMES = {
    "StartFight.name": "a new fight's name", "StartFight.rules": "the rules' name",
    "StartFight.options": "option keys", "StartFight.seed_commitment": "a hash", "StartFight.stream": "an id",
    "StartBranch.name": "a new fight's name", "StartBranch.parent": "a fight's name (the store checks it)",
    "StartBranch.seed_commitment": "a hash", "StartBranch.stream": "an id",
    "CommitSeed.seed_commitment": "a hash", "CommitSeed.stream": "an id", "CommitSeed.reason": "free text",
    "RevealSeed.seeds": "hashes and seeds", "RevealSeed.next_commitment": "a hash", "RevealSeed.next_stream": "an id",
    "Join.sheet": "a sheet", "Join.source": "a file name", "Join.name": "the new combatant's own name",
    "Join.side": "a side", "SealDeclaration.seal": "a hash", "Reveal.salt": "random hex",
    "Targeting.aim_at": "a body part", "Targeting.called": "a body part", "Targeting.otherwise": "a body part",
    "Targeting.affects": "a trait or `combat`", "RollTrait.trait": "a trait", "RollTrait.opponent_trait": "a trait",
    "MarkCondition.condition": "a condition's name (free text, checked and bounded)",
    "MarkCondition.note": "free text", "ClearCondition.condition": "a condition's name, as marked",
    "Kill.reason": "free text", "DeclareIntent.what": "free text", "Shoot.skill": "a trait", "Shoot.dodge": "a trait",
    "Heal.skill": "a trait", "StoryRoll.trait": "a trait", "StoryRoll.element": "free text",
    "GmWound.reason": "free text", "FateAction.skill": "a trait", "FateAction.maneuver": "free text",
    "CheckAspect.aspect": "an aspect",
}


def command_models() -> list[type]:
    """Every command the engine decides (the structs), and the model each is derived from."""
    structs = list(get_args(cmd.Command))
    return structs + [cmd.command_model(kind.__name__) for kind in structs]


def _part(annotation: Any) -> bool:
    return isinstance(annotation, type) and (issubclass(annotation, (BaseModel, msgspec.Struct)))


def text_fields(model: type) -> Iterator[tuple[str, bool]]:
    """("Model.field", marked) for each field holding text at any depth (nested parts named by their class)."""
    def walk(annotation: Any, marked: bool, path: str) -> Iterator[tuple[str, bool]]:
        origin, args = get_origin(annotation), get_args(annotation)
        if annotation is str:
            yield path, marked
        elif origin is Annotated:
            yield from walk(args[0], NAMES_A_COMBATANT in args[1:], path)
        elif origin in (Union, types.UnionType, tuple, dict, list):
            for arg in args:
                yield from walk(arg, marked, path)
        elif origin is not Literal and _part(annotation):
            for field, hint in field_hints(annotation):
                yield from walk(hint, False, f"{annotation.__name__}.{field}")
    return walk(model, False, model.__name__)


def example(annotation: Any, marked: bool = False) -> Any:
    """A value of `annotation` with "name" in every text marked as a combatant's and "text" elsewhere
    (built without validation: only its shape matters here)."""
    origin, args = get_origin(annotation), get_args(annotation)
    if annotation is str:
        return "name" if marked else "text"
    if origin is Annotated:
        return example(args[0], NAMES_A_COMBATANT in args[1:])
    if origin is Literal:
        return args[0]
    if origin in (Union, types.UnionType):
        return example(next(a for a in args if a is not type(None)), marked)
    if origin is tuple:
        return (example(args[0], marked),) if args[-1] is Ellipsis else tuple(example(a, marked) for a in args)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation.model_construct(**{f: example(hint) for f, hint in field_hints(annotation)})
    if isinstance(annotation, type) and issubclass(annotation, msgspec.Struct):
        return annotation(**{f: example(hint) for f, hint in field_hints(annotation)})
    return {} if origin is dict else 0 if annotation in (int, float) else False if annotation is bool else None


def texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if is_part(value):
        return [t for field, _ in field_hints(type(value)) for t in texts(getattr(value, field))]
    if isinstance(value, (tuple, list)):
        return [t for item in value for t in texts(item)]
    return []


# --- every command says which of its fields name a combatant ------------------------------------------

def test_every_text_field_of_every_command_is_a_name_or_listed_as_something_else() -> None:
    """A new field holding text must be marked CombatantName (the shell resolves it) or listed in NOT_NAMES."""
    fields = {path: marked for model in command_models() for path, marked in text_fields(model)}
    by_kind = {model: dict(text_fields(model)) for model in command_models()}
    assert all(dict(text_fields(kind)) == by_kind[cmd.command_model(kind.__name__)] for kind in get_args(cmd.Command))
    unclassified = sorted(path for path, marked in fields.items() if not marked and path not in NOT_NAMES)
    assert not unclassified, f"mark these CombatantName or list them in NOT_NAMES: {unclassified}"
    assert not [path for path in NOT_NAMES if fields.get(path) is not False], "NOT_NAMES lists a field no longer text"
    assert sum(fields.values()) >= 40  # the marks are there: every command's combatants, Fate's actions and mods


@pytest.mark.parametrize("model", command_models(), ids=lambda m: f"{m.__module__.rpartition('.')[2]}.{m.__name__}")
def test_the_resolver_reaches_every_marked_field_and_no_other(model: type) -> None:
    """Every name at any depth (a Fate action's target, a --magic pair, a list of foes) is rewritten, and
    no trait, text or hash is touched."""
    command = example(model)
    renamed = names.rename(command, str.upper)
    before, after = texts(command), texts(renamed)
    assert len(before) == len(after)
    assert all(b == a for b, a in zip(before, after) if b != "name")
    assert after.count("NAME") == before.count("name")


# --- matching, pure -----------------------------------------------------------------------------------

KNOWN = ["Snorri", "Brynhild", "Bjorn", "Grok the Orc", "Guard", "Guard-A", "Guard-B"]


def unknown(close: list[str]) -> str:
    return f"unknown; close: {close}"


@pytest.mark.parametrize("typed,meant", [("sn", "Snorri"), ("SNORRI", "Snorri"), ("grok", "Grok the Orc"),
                                         ("Grok The", "Grok the Orc"), ("bry", "Brynhild"), ("guard", "Guard"),
                                         ("GUARD-a", "Guard-A"), ("  bj ", "Bjorn")])
def test_a_unique_beginning_in_any_case_finds_the_name(typed: str, meant: str) -> None:
    assert names.pick(KNOWN, typed, unknown) == meant


def test_an_ambiguous_beginning_lists_the_candidates_in_one_line() -> None:
    with pytest.raises(InputError) as refused:
        names.pick(KNOWN, "b", unknown)
    assert str(refused.value) == "'b' could be Brynhild or Bjorn: type more of the name"
    with pytest.raises(InputError, match="'guard-' could be Guard-A or Guard-B: type more"):
        names.pick(KNOWN, "guard-", unknown)


def test_a_name_beginning_none_gets_the_close_ones() -> None:
    assert names.close_to(KNOWN, "snori") == ["Snorri"]
    assert names.close_to(KNOWN, "brinhild") == ["Brynhild"]
    assert names.close_to(KNOWN, "grk") == ["Grok the Orc"]  # a short slip finds the long name by its start
    assert names.close_to(KNOWN, "zzz") == []
    with pytest.raises(InputError, match=r"unknown; close: \['Snorri'\]"):
        names.pick(KNOWN, "snori", unknown)
    assert names.matching(KNOWN, "") == []


def test_one_of_reads_as_a_sentence() -> None:
    assert [names.one_of(["A"]), names.one_of(["A", "B"]), names.one_of(["A", "B", "C"])] == \
        ["A", "A or B", "A, B or C"]


def state_of(*known: str) -> FightState:
    """A state holding combatants of these names (the resolver reads only their names)."""
    return FightState(name="duel", combatants={n.lower(): Combatant(n, n, None, 0, ()) for n in known})  # type: ignore[arg-type]


def test_an_unknown_combatant_gets_did_you_mean_and_the_list_of_combatants() -> None:
    state = state_of("Snorri", "Brynhild")
    with pytest.raises(InputError) as refused:
        names.resolve(state, "snorr1")
    assert str(refused.value) == ("no combatant 'snorr1' in duel: did you mean Snorri? "
                                  "(combatants: Snorri, Brynhild)")
    with pytest.raises(InputError, match=r"^no combatant 'zed' in duel; combatants: Snorri, Brynhild$"):
        names.resolve(state, "zed")
    with pytest.raises(InputError, match="nobody has joined yet"):
        names.resolve(state_of(), "zed")


def test_an_unknown_combatant_in_a_crowd_lists_the_first_twelve_and_how_many_more() -> None:
    """One error line, not a roster of 30 (or 800): the first twelve in join order, and the count of the rest."""
    state = state_of(*(f"Guard-{number}" for number in range(30)))
    with pytest.raises(InputError) as refused:
        names.resolve(state, "zed")
    assert str(refused.value) == ("no combatant 'zed' in duel; combatants: "
                                  + ", ".join(f"Guard-{n}" for n in range(12)) + " and 18 more")


def test_canonical_writes_full_names_at_every_depth_and_keeps_everything_else() -> None:
    state = state_of("Cyrus", "Guard-A", "Guard-B", "Finn")
    typed = cmd.FateExchange(
        actions=(cmd.FateAction(combatant="cy", target="guard-a", skill="swords"),
                 cmd.FateAction(combatant="GUARD-B", target="c")),
        mods=(cmd.FateMod(combatant="f", kind="flanking", against="guard-b"),))
    full = names.canonical(state, typed)
    assert [(a.combatant, a.target, a.skill) for a in full.actions] == [("Cyrus", "Guard-A", "swords"),
                                                                          ("Guard-B", "Cyrus", None)]
    assert (full.mods[0].combatant, full.mods[0].against) == ("Finn", "Guard-B")
    exchange = cmd.Exchange(first="cy", second="fi", magic=(("cy", 1),), pull=(("fi", 2),), targeting=cmd.Targeting(aim_at="eye"))
    done = names.canonical(state, exchange)
    assert (done.first, done.second, done.magic, done.pull) == ("Cyrus", "Finn", (("Cyrus", 1),), (("Finn", 2),))
    assert done.targeting == exchange.targeting
    assert names.canonical(state, done) is done  # nothing to change: the very same command


# --- properties -----------------------------------------------------------------------------------------

NAME = st.text(st.sampled_from("abcAB -'é"), min_size=1, max_size=8).map(str.strip).filter(bool)


@fuzz(300)
@given(known=st.lists(NAME, min_size=1, max_size=6, unique_by=str.lower), typed=st.text(max_size=8),
       which=st.integers(0, 5), cut=st.integers(1, 8))
def test_resolution_is_idempotent_and_never_changes_a_full_name(known: list[str], typed: str, which: int,
                                                                 cut: int) -> None:
    """A full name (in any case) resolves to itself; whatever a typed text (anything, or the beginning of a
    name in another case) resolves to resolves to itself again; a command of full names comes back unchanged."""
    state = state_of(*known)
    full = known[which % len(known)]
    assert names.resolve(state, full) == full
    if full.swapcase().lower() == full.lower():
        assert names.resolve(state, full.swapcase()) == full
    for text in (typed, full[:cut].swapcase()):
        try:
            meant = names.resolve(state, text)
        except InputError as refused:
            assert "could be" in str(refused) or "no combatant" in str(refused)
            continue
        assert meant in known and meant.lower().startswith(text.strip().lower())
        assert names.resolve(state, meant) == meant
    command = cmd.Melee(lone=full, foes=tuple(known), magic=((full, 1),))
    assert names.canonical(state, command) is command


# --- who has the turn, per ruleset ------------------------------------------------------------------------

def joined(fights: Fights, *who: str, **skills: Any) -> None:
    for name in who:
        fights.execute("fight", cmd.Join(sheet=sheet(name, skills={"Sword": "Good"}, attack="Sword", **skills),
                                         source="test"))


def test_nobody_has_the_turn_without_turns_and_the_message_says_how_to_name_both(fights: Fights) -> None:
    start(fights)
    joined(fights, "Ann", "Bob")
    state = fights.state("fight")
    assert turns.current_actor(state) is None
    with pytest.raises(InputError, match=r"nobody has the turn: these rules give no turns \(F-INIT-1\); "
                                         r"or name both: `fudge exchange A B`"):
        names.actor_and_target(state, ["bob"], "fudge exchange A B")
    assert names.actor_and_target(state, ["ann", "bob"], "x") == ("ann", "bob")


def test_under_phases_the_actor_given_the_turn_attacks(fights: Fights) -> None:
    """PH-1: after `fudge next`, `attack TARGET` is the actor's attack."""
    start(fights, rules="fudge-phases")
    joined(fights, "Ann", "Bob")
    with pytest.raises(InputError, match="`fudge round` rolls initiative"):
        names.actor_and_target(fights.state("fight"), ["bob"], "fudge attack A B")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ + + +", "bob=- - - -"))
    with pytest.raises(InputError, match="`fudge next` gives the next turn"):
        names.actor_and_target(fights.state("fight"), ["bob"], "fudge attack A B")
    fights.execute("fight", cmd.NextTurn())
    assert names.actor_and_target(fights.state("fight"), ["bob"], "u") == ("Ann", "bob")


def test_under_atari_isev_the_actor_of_the_highest_total_attacks(fights: Fights) -> None:
    """AI-INIT-2: `fudge next` walks the totals; the one whose turn it is attacks by default."""
    start(fights, rules="atari-isev")
    joined(fights, "Ann", "Bob")
    fights.execute("fight", cmd.StartRound(), dice("ann=+ + + +", "bob=- - - -"))
    fights.execute("fight", cmd.NextTurn())
    assert names.actor_and_target(fights.state("fight"), ["bob"], "u") == ("Ann", "bob")


def test_under_fate_turns_the_next_in_alertness_order_attacks(fights: Fights) -> None:
    """FT-INIT: no `next`: the first in the order who has not acted is the actor."""
    start(fights, rules="fate", pace="turn", initiative="alertness")
    joined(fights, "Ann", "Bob")
    with pytest.raises(InputError, match="`fudge fate round` orders the round"):
        names.actor_and_target(fights.state("fight"), ["bob"], "u")
    fights.execute("fight", cmd.FateRound(), dice("ann=- - - -", "bob=+ + + +"))
    assert names.actor_and_target(fights.state("fight"), ["ann"], "u") == ("Bob", "ann")


# --- old logs ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("index", range(len(old_logs())))
def test_A_LOG_1_old_logs_replay_and_verify_without_the_resolver_and_mean_what_it_would_read(
        tmp_path: Any, index: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Replay and verify read names as logged: with the resolver switched off they give what they gave.
    And every command an old log holds names its combatants whole: the resolver, given the state before
    it, would change at most their case."""
    rows = old_logs()[index]
    records = [load(r["body"]) for r in rows]
    for at, record in enumerate(records):
        if record.issued is None or record.issued["type"] in ("start_fight", "start_branch"):
            continue
        command = cmd.read_issued(record.issued, "fudge")
        full = names.canonical(replay(records[:at]), command)
        assert str(cmd.issued_dump(full)).lower() == str(cmd.issued_dump(command)).lower()

    def switched_off(*args: Any) -> Any:
        raise AssertionError("a replay resolved a name")
    monkeypatch.setattr(names, "resolve", switched_off)
    monkeypatch.setattr(names, "matching", switched_off)
    from fudge_combat.engine.audit import verify

    store, name = store_of(tmp_path, rows)
    assert verify(store.read(name)).ok
    assert Fights(store).state(name) == replay(records)


def test_the_house_rules_offer_the_option_meant() -> None:
    """A misspelt house-rules key is refused with the close option names; an unlike one with the list."""
    with pytest.raises(InputError, match=r"^h\.toml: unknown option 'damage_rol': did you mean damage_roll"):
        resolve_rules("fudge", 'damage_rol = "none"\n', "h.toml")
    with pytest.raises(InputError, match=r"unknown option 'zzz'; options: ruleset, ladder"):
        resolve_rules("fudge", "zzz = 1\n", "h.toml")
    with pytest.raises(InputError, match=r"^unknown rules 'fudg': did you mean fudge\? \(presets: "):
        resolve_rules("fudg")
    with pytest.raises(InputError, match=r"extends = 'fate2' is not a preset: did you mean fate\?"):
        resolve_rules("fudge", 'extends = "fate2"\n', "h.toml")
    with pytest.raises(RuleError, match="is not a preset; give one of"):
        resolve_rules("fudge", 'extends = "zork"\n', "h.toml")
