"""Mining on two cores (kb.mining.two_cores) finds what mining on one does; a child that fails
or dies is an error, not names missing. tests/test_mining_real.py compares the two on the real
corpus."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable, Iterator
from operator import attrgetter

import pytest
from mining_samples import OTHER, SCRY, counter_samples, sample

from kb.mining.mine import mine
from kb.mining.samples import Sample
from kb.mining.two_cores import ROWS_PER_MESSAGE, mine_on_two_cores

pytestmark = pytest.mark.skipif(
    (os.cpu_count() or 1) < 2, reason="one core: mining runs in one process (nothing to fork)"
)
by_locale = attrgetter("locale")


def as_samples(rows: Iterable[Sample]) -> Iterable[Sample]:
    return rows


def scry_samples() -> list[Sample]:
    """Three cards with Scry, three without, in German then Japanese card by card: German comes
    first, so the child mines it. S0's German printing says "scry" inside a sentence and its
    Japanese one (another printing) starts with it: which one counts decides whether Scry is
    an action."""
    samples = []
    for kind, keywords, rows in (("S", ("Scry",), SCRY), ("O", (), OTHER)):
        for index, (english, german, japanese) in enumerate(rows):
            card = f"{kind}{index}"
            samples.append(sample(card, keywords, english, german, locale="de"))
            in_japanese = "Scry 2." if card == "S0" else english  # another printing
            samples.append(sample(card, keywords, in_japanese, japanese, locale="ja"))
    return samples


def test_two_cores_find_what_one_finds() -> None:
    samples = scry_samples()
    one = mine(samples, minimum=3)
    assert one.actions == {"Scry"}  # S0 counts by its German sample, the first
    assert {(n.mechanic, n.locale): n.name for n in one.mechanics} == {
        ("Scry", "de"): "Hellsicht",
        ("Scry", "ja"): "占術",
    }
    assert mine_on_two_cores(samples, as_samples, by_locale, minimum=3) == one


def test_two_cores_take_the_actions_they_are_told() -> None:
    samples = counter_samples() + [s._replace(locale="fr") for s in counter_samples()]
    also = frozenset({"Counter"})
    one = mine(samples, minimum=3, also_actions=also)
    assert one.actions == also
    assert mine_on_two_cores(samples, as_samples, by_locale, 3, also) == one


def test_a_childs_error_is_raised_in_the_parent() -> None:
    parent = os.getpid()

    def failing(rows: Iterable[Sample]) -> Iterator[Sample]:
        for row in rows:
            if os.getpid() != parent:
                raise ValueError(f"no sample of {row.card} in {row.locale}")
            yield row

    with pytest.raises(ValueError, match=r"^no sample of S0 in de$"):
        mine_on_two_cores(scry_samples(), failing, by_locale)


def test_a_child_killed_while_rows_are_sent_is_an_error() -> None:
    """More rows than a pipe holds: the parent finds the child gone while it sends them."""
    parent = os.getpid()

    def killed(rows: Iterable[Sample]) -> Iterator[Sample]:
        for row in rows:
            if os.getpid() != parent:
                os.kill(os.getpid(), signal.SIGKILL)
            yield row

    many = [
        row._replace(card=f"{row.card}-{copy}")
        for copy in range(ROWS_PER_MESSAGE * 5 // 12)
        for row in scry_samples()
    ]
    with pytest.raises(ChildProcessError) as raised:
        mine_on_two_cores(many, killed, by_locale)
    assert str(raised.value) == ("the mining process ended before it finished (killed by SIGKILL)")
