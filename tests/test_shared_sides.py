"""C-ACT-1, F-MOD-1, F-MOD-3: the traits a fighter is read for and the sides a blow brings are kept and
shared between blows; what is shared is what would have been built afresh, and only for the very same
fighter, options, modifiers and declaration."""

from __future__ import annotations

from pathlib import Path

import msgspec

from fudge_combat.engine.rulesets.fudge import sides as d
from fudge_combat.engine.kernel.options import RuleOptions
from fudge_combat.engine.kernel.sheets import parse_sheet, read_levels
from fudge_combat.events import structs as ev

SHEETS = Path(__file__).resolve().parents[1] / "examples" / "sheets"


def fighter(name: str, options: RuleOptions):  # type: ignore[no-untyped-def]
    sheet = parse_sheet((SHEETS / f"{name}.toml").read_text(), f"{name}.toml")
    from fudge_combat.engine.kernel.ladder import ladder_of
    return read_levels(sheet, ladder_of(options), f"{name}.toml")


def test_C_ACT_1_a_kept_trait_is_the_one_read_afresh_for_that_fighter_and_options() -> None:
    """C-ACT-1: a trait is the sheet's (any case), else a missing attribute's or an unlisted skill's level."""
    options = RuleOptions()
    snorri = fighter("snorri", options)
    for name in ("Strength", "strength", "Damage Capacity", "Juggling", *snorri.skills, *snorri.attributes):
        assert snorri.trait(name, options) == snorri._trait(name, options)
        assert snorri.trait(name, options) == snorri._trait(name, options)  # and again, from what is kept
    other = msgspec.structs.replace(options, **{"unlisted_skill": options.unlisted_skill - 1})
    assert snorri.trait("Juggling", other) == ("Juggling", options.unlisted_skill - 1, "unlisted skill")
    assert snorri.trait("Juggling", options) == ("Juggling", options.unlisted_skill, "unlisted skill")
    again = fighter("snorri", other)  # the same sheet read again: its own answers
    assert again.trait("Juggling", other) == ("Juggling", options.unlisted_skill - 1, "unlisted skill")


def test_F_MOD_1_F_MOD_3_a_shared_side_is_shared_only_for_the_very_same_parts() -> None:
    """F-MOD-1, F-MOD-3: the wound and shield modifiers are built once per name and value; a side with other
    modifiers, or another declaration, is another side; each roll of a shared side is worked out as before."""
    hurt = d._modifier("wound: Hurt", -1)
    assert d._modifier("wound: Hurt", -1) is hurt
    side = d._side("Ann", "Sword", 2, [hurt], d.NO_DECLARATION)
    assert d._side("Ann", "Sword", 2, [hurt], d.NO_DECLARATION) is side
    assert side == ev.Side(combatant="Ann", trait="Sword", level=2, roll=None, modifiers=(hurt,), result=None,
                           declaration=d.NO_DECLARATION)
    fresh = ev.Modifier(name="wound: Hurt", value=-1)  # equal, but not the kept one: built again
    assert d._side("Ann", "Sword", 2, [fresh], d.NO_DECLARATION) is not side
    assert d._side("Ann", "Sword", 2, [hurt, d._modifier("Bob's medium shield", -1)], d.NO_DECLARATION).modifiers \
        == (hurt, ev.Modifier(name="Bob's medium shield", value=-1))
    defensive = ev.Declaration(posture=-2)
    posed = d._side("Ann", "Sword", 2, [hurt], defensive)
    assert posed is not side and posed.declaration == defensive
    for roll in range(-4, 5):
        rolled = d.with_roll(posed, roll)
        assert d.with_roll(posed, roll) is rolled
        assert (rolled.roll, rolled.result, rolled.offense, rolled.defense) == (roll, 1 + roll, -1 + roll, 3 + roll)
        assert rolled == msgspec.structs.replace(posed, **{"roll": roll, "result": 1 + roll, "offense": -1 + roll,
                                                  "defense": 3 + roll})
    own = msgspec.structs.replace(posed)  # a side built elsewhere is rolled afresh each time
    assert d.with_roll(own, 1) == d.with_roll(posed, 1) and d.with_roll(own, 1) is not d.with_roll(own, 1)
