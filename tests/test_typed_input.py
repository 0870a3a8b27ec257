"""What the GM types and the command turns out not to need, or names wrongly.

Typed dice that a command does not roll (a damage roll typed before the blow missed) are reported,
not refused; dice typed for a name that takes no part are refused (C-DICE-3). A trait name close to
one on the sheet is a typo, refused with "did you mean"; a trait the sheet lacks is rolled at the
rules' default and the output says so (C-ACT-1); so is a [combat] trait the sheet lacks, at `join`.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fudge_combat.engine import commands as cmd
from fudge_combat.engine.kernel.presets import resolve
from fudge_combat.engine.kernel.sheets import Sheet, likely_typo
from fudge_combat.service.fights import Fights
from tests.conftest import dice, sheet, start
from tests.test_cli import SHEETS, Fudge, duel, fresh_logging, fudge  # noqa: F401 - fixtures

README_EXAMPLE = ("exchange", "snorri", "brynhild", "--dice", "snorri=- 0 0 0", "--dice", "brynhild=+ 0 0 0",
                  "--dice", "brynhild=0 0 0 0", "--dice", "snorri=- - 0 0")


# --- C-DICE-3: typed dice that were not needed ---------------------------------------

def test_C_DICE_3_a_damage_roll_typed_before_a_miss_is_reported_unused_not_refused(duel: Fudge) -> None:
    """docs/table.md's exchange with Snorri's damage roll typed, when Snorri misses (F-EX dice, swapped):
    Snorri Great -1 -1 (shield) = Fair; Brynhild Good +1 = Great: she hits (RD +2, damage roll +0)."""
    out = duel(*README_EXAMPLE).stdout
    assert "Brynhild hits Snorri: Hurt" in out
    assert "unused dice: Snorri - - 0 0 (not needed: Snorri rolled only Sword)" in out.splitlines()
    rolls = [(e["roller"], e["purpose"], e["faces"]) for e in duel.log() if e["type"] == "dice_rolled"]
    assert rolls == [("Snorri", "Sword", [-1, 0, 0, 0]), ("Brynhild", "Axe", [1, 0, 0, 0]),
                     ("Brynhild", "damage", [0, 0, 0, 0])]  # the unused faces are not in the log
    assert "hash chain intact, rules agree" in duel("verify").stdout


def test_C_DICE_3_dice_typed_for_a_misspelled_name_are_refused_with_did_you_mean(duel: Fudge) -> None:
    before = duel.written()
    error = duel.fails("exchange", "snorri", "brynhild", "--dice", "snori=+ 0 0 0", "--dice", "brynhild=- 0 0 0")
    assert error == ("error: dice typed for snori, but no one of that name is in duel: did you mean Snorri? "
                     "rolling here: Snorri, Brynhild")
    assert duel.written() == before


def test_C_DICE_3_dice_typed_for_a_fighter_outside_the_command_are_refused(duel: Fudge) -> None:
    """Snorri's roll would have been generated while Brynhild's dice were typed: a mistake, not a surplus."""
    before = duel.written()
    error = duel.fails("roll", "snorri", "Sword", "--dice", "brynhild=0 0 0 0")
    assert error == ("error: dice typed for Brynhild, who takes no part in this command (rolling here: Snorri): "
                     "check the name")
    assert duel.written() == before


def test_C_DICE_3_unused_dice_of_a_roller_and_without_a_name(fights: Fights) -> None:
    """Service level: each roller's surplus, in the order typed, with what that roller did roll."""
    start(fights, "fight")
    fights.execute("fight", cmd.Join(sheet=sheet("Ann", skills={"Sword": "Good"}, attack="Sword"), source="test"))
    outcome = fights.execute("fight", cmd.RollTrait(combatant="Ann", trait="Sword"),
                             dice("ann=0000", "ann=+000", "ann=-000", "++00"))
    assert [(u.roller, u.faces, u.rolled, u.used) for u in outcome.unused] == [
        ("Ann", ((1, 0, 0, 0), (-1, 0, 0, 0)), ("Sword",), 1), ("(unnamed)", ((1, 1, 0, 0),), (), 0)]


# --- C-ACT-1: trait names --------------------------------------------------------------

KARA = Sheet(name="Kara", skills={"Rapier": "Good", "Hiding": "Fair"}, attributes={"Strength": "Fair"})


@pytest.mark.parametrize(("typed", "meant"), [
    ("Rapeir", ["Rapier"]), ("rapier", []), ("Strenght", ["Strength"]),
    ("Perseption", ["Perception"]),  # an attribute of the ruleset, though not on the sheet
    ("Riding", []),  # a real skill she lacks: another first letter than Hiding
    ("Stealth", []), ("Climbing", [])])
def test_C_ACT_1_a_name_close_to_a_trait_is_a_typo_another_is_a_skill_she_lacks(typed: str, meant: list[str]) -> None:
    _, options = resolve("fudge", None)
    assert likely_typo(KARA, typed, options) == meant


@pytest.fixture
def kara(duel: Fudge, tmp_path: Path) -> Fudge:
    path = tmp_path / "kara.toml"
    path.write_text('name = "Kara"\n[skills]\nRapier = "Good"\n[combat]\nattack = "Rapier"\n')
    duel("join", path)
    return duel


def test_C_ACT_1_a_misspelled_trait_is_refused_with_did_you_mean(kara: Fudge) -> None:
    before = kara.written()
    error = kara.fails("roll", "kara", "Rapeir", "--dice", "0 0 0 0")
    assert error == ("error: Kara has no trait 'Rapeir': did you mean Rapier? "
                     "(to roll a skill Kara lacks at its default, add --unlisted)")
    assert "did you mean Axe?" in kara.fails("roll", "kara", "Rapier", "--opposed", "brynhild", "--opposed-trait",
                                             "Axes", "--dice", "kara=0 0 0 0", "--dice", "brynhild=0 0 0 0")
    assert kara.written() == before


def test_C_ACT_1_a_skill_she_lacks_rolls_at_the_default_and_says_so(kara: Fudge) -> None:
    out = kara("roll", "kara", "Riding", "--dice", "0 0 0 0").stdout
    assert "Kara Riding Poor +0 = Poor vs Fair: fails" in out
    assert "Kara has no Riding skill: rolled at the default Poor (C-ACT-1)" in out
    out = kara("roll", "kara", "Agility", "--dice", "0 0 0 0").stdout  # a Fudge attribute: Fair when missing
    assert "Kara has no Agility attribute: rolled at the default Fair (C-ACT-1)" in out
    out = kara("roll", "kara", "Rapeir", "--unlisted", "--dice", "0 0 0 0").stdout  # the GM insists
    assert "Kara has no Rapeir skill: rolled at the default Poor (C-ACT-1)" in out
    assert "default" not in kara("roll", "kara", "rapier", "--dice", "0 0 0 0").stdout


def test_C_ACT_1_join_refuses_a_combat_trait_that_is_a_typo_and_warns_of_one_the_sheet_lacks(
        fudge: Fudge, tmp_path: Path) -> None:
    fudge("new", "duel", "--rules", "fudge")
    typo, lacking = tmp_path / "typo.toml", tmp_path / "lacking.toml"
    typo.write_text('name = "Kara"\n[skills]\nRapier = "Good"\n[combat]\nattack = "Rapeir"\n')
    lacking.write_text('name = "Kara"\n[skills]\nRapier = "Good"\n[combat]\nattack = "Rapier"\ndefend = "Dodge"\n')
    before = fudge.written()
    assert fudge.fails("join", typo) == (f"error: {typo}: [combat] attack = 'Rapeir' is not on the sheet: "
                                         "did you mean Rapier?")
    assert fudge.written() == before
    out = fudge("join", lacking).stdout
    assert out.splitlines() == ["Kara joins duel (side Kara)",
                                "  warning: Kara's [combat] defend Dodge is not on the sheet: "
                                "it rolls at the default Poor (C-ACT-1)"]


def test_C_ACT_1_an_old_log_with_a_misspelled_trait_still_verifies(fights: Fights) -> None:
    """The typo check is the command line's, not a rule: a fight that rolled `Rapeir` before it still verifies."""
    from fudge_combat.engine.audit import verify

    start(fights, "fight")
    fights.execute("fight", cmd.Join(sheet=sheet("Kara", skills={"Rapier": "Good"}, attack="Rapeir"), source="test"))
    fights.execute("fight", cmd.RollTrait(combatant="Kara", trait="Rapeir"), dice("0000"))
    assert verify(fights.store.read("fight")).ok


def test_C_ACT_1_shoot_skill_and_dodge_names_are_checked_too(duel: Fudge) -> None:
    """F-RNG-1, F-RNG-2: `--skill` and `--dodge` are typed trait names like roll's (no --unlisted there)."""
    assert duel.fails("shoot", "snorri", "brynhild", "--skill", "Swrod") == \
        "error: Snorri has no trait 'Swrod': did you mean Sword?"
    assert duel.fails("shoot", "snorri", "brynhild", "--aware", "--thrown", "--dodge", "Agilty") == \
        "error: Brynhild has no trait 'Agilty': did you mean Agility?"
