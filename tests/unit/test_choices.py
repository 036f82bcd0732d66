"""VectorizationChoices parsing: the seed's `;`-separated syntax with `no` prefixes."""

import pytest

from vectorizer import choices as choices_module
from vectorizer.choices import CHOICES, ChoiceError, choices_from_environment, parse_choices


def test_parse_enables_and_disables() -> None:
    c = parse_choices("LinearizeBOSCC;DivisionExceptions")
    assert "LinearizeBOSCC" in c and "DivisionExceptions" in c
    c = parse_choices("noLinearizeBOSCC", c)
    assert "LinearizeBOSCC" not in c and "DivisionExceptions" in c


def test_parse_is_case_insensitive_and_ignores_empty_items() -> None:
    c = parse_choices(";;linearizeboscc; ")
    assert c.enabled == frozenset({"LinearizeBOSCC"})


def test_unknown_choice_names_the_valid_ones() -> None:
    with pytest.raises(ChoiceError) as err:
        parse_choices("Bogus")
    assert "Bogus" in str(err.value) and "VectorPredication" in str(err.value)


def test_all_eight_vecz_choices_are_known() -> None:
    assert len(CHOICES) == 8
    assert parse_choices(";".join(CHOICES)).enabled == frozenset(CHOICES)


def test_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VECZ_CHOICES", "PacketizeUniform")
    assert "PacketizeUniform" in choices_from_environment()


def test_unimplemented_choices_are_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    c = parse_choices("LinearizeBOSCC;VectorPredication")
    assert c.unimplemented == []  # every documented choice is implemented now
    monkeypatch.setattr(choices_module, "IMPLEMENTED", choices_module.IMPLEMENTED - {"LinearizeBOSCC"})
    assert c.unimplemented == ["LinearizeBOSCC"]
