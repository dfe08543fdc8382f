"""The one check of an integer option (``solver.engine.inputs.whole``), and the places
that check integers all going through it (solve, training, the pool's size, the web's
seed), so their words are the same."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from solver.engine.errors import InputError
from solver.engine.inputs import whole

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "value, low, high, message",
    [
        (True, 0, None, "n must be a whole number, got True"),
        (1.5, 0, None, "n must be a whole number, got 1.5"),
        ("7", 0, None, "n must be a whole number, got '7'"),
        (-1, 0, None, "n must be at least 0, got -1"),
        (0, 1, 1_000_000, "n must be from 1 to 1,000,000, got 0"),
        (2_000_000, 1, 1_000_000, "n must be from 1 to 1,000,000, got 2,000,000"),
        (-(10**500), 0, None, "n must be at least 0, got a number of about 501 digits"),
    ],
)
def test_whole_refuses_in_one_line(value, low, high, message):
    with pytest.raises(InputError) as exc:
        whole(value, "n", low, high)
    assert str(exc.value) == message


def test_whole_gives_an_int():
    got = whole(np.int64(5), "n", 0, 9)
    assert got == 5 and type(got) is int
    assert whole(10**30, "n", 0) == 10**30


def test_the_integer_checks_are_one_check():
    """No module but inputs.py tests ``isinstance(x, bool) or not isinstance(x, Integral)``
    to say ``must be a whole number`` in the places that check options."""
    places = ["solver/engine/options.py", "solver/strategy/field_model/train.py",
              "solver/strategy/opposition/pool.py", "solver/apps/web/api.py"]  # fmt: skip
    for place in places:
        text = (ROOT / place).read_text()
        assert "whole(" in text, place
        assert not re.search(r"must be a whole number, got", text), place


def test_training_and_pool_use_the_same_words():
    from solver.engine.compiled import compile_rules
    from solver.engine.rules import load_rules
    from solver.strategy.field_model.train import check_train_options
    from solver.strategy.opposition.pool import build_pool

    with pytest.raises(InputError, match=r"^--hands must be at least 100, got 99$"):
        check_train_options(1, 99, 0, 0.1, 1)
    with pytest.raises(InputError, match=r"^--seed must be from 0 to .*, got -1$"):
        check_train_options(1, 100, -1, 0.1, 1)
    with pytest.raises(InputError, match=r"^pool size must be a whole number, got 1.5$"):
        build_pool(compile_rules(load_rules("chinese-1-6")), 1.5)  # type: ignore[arg-type]
