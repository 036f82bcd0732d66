"""veczc's -k kernel specification grammar (the seed's BNF)."""

import pytest

from vectorizer.cli import UsageError, parse_kernel_spec


def test_plain_name() -> None:
    [s] = parse_kernel_spec("foo")
    assert (s.kernel, s.width, s.dim, s.auto) == ("foo", None, None, False)


def test_multiple_widths() -> None:
    assert [s.width for s in parse_kernel_spec("foo:4,8,16")] == [4, 8, 16]


def test_dimension_simd_scalable_and_auto() -> None:
    [s] = parse_kernel_spec("foo:8.2@16s")
    assert (s.width, s.dim, s.simd_width, s.scalable) == (8, 1, 16, True)
    [a] = parse_kernel_spec("foo:a")
    assert a.auto and a.width is None


@pytest.mark.parametrize("bad", ["foo:", "foo:x", "foo:4.4", "1foo", "foo:4,,8"])
def test_bad_specs(bad: str) -> None:
    with pytest.raises(UsageError):
        parse_kernel_spec(bad)
