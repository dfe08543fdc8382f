"""The kinds of mistake a played hand falls in, and the one rule that picks it.

Every played hand falls in exactly one of ``CATEGORIES``, the first that applies, in
this order (docs/report.md says why these):

* ``perfect``: the loss is 0: the best setting, or one worth as much;
* ``natural_not_declared``: the advice was to declare a natural, and the player played;
* ``surrender_missed``: the advice was to surrender, and the player played;
* ``fouled``: the played setting fouls (scooped by every opponent);
* ``wrong_back``: the back row holds other cards than the best setting's;
* ``front_too_strong``: the same back, and the played front wins more often than the
  best's (strength kept in the front at the middle's cost);
* ``front_too_weak``: the same back, the played front wins less often and the middle
  more often (the middle kept strength the front needed);
* ``weaker_rows``: the same back, and neither the front nor the middle wins more often
  than the best's while one wins less (e.g. a straight broken into a pair);
* ``other_split``: the same back and rows that win as often (kickers moved between the
  middle and the front), or a record that does not say how the rows changed.

"Wins more often" compares the rows' win rates in the record (``played.rows``), which
grow with a row's strength whatever the policy; so the front and middle categories say
which way strength was moved between the two rows.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["CATEGORIES", "INDEX", "Category", "categorize"]


@dataclass(frozen=True)
class Category:
    """A kind of mistake: its key (JSON), label (tables), what it means, and its colour
    in the page's plots and tables."""

    key: str
    label: str
    why: str
    color: str


CATEGORIES: tuple[Category, ...] = (
    Category(
        "perfect",
        "played perfectly",
        "the played setting is worth as much as the advice (loss 0): the best setting, or "
        "one of equal value",
        "#4c9a5b",
    ),
    Category(
        "natural_not_declared",
        "natural not declared",
        "the hand held a natural worth more declared than any setting, and it was played",
        "#8e5ab5",
    ),
    Category(
        "surrender_missed",
        "surrender missed",
        "surrendering was worth more than the best setting, and the hand was played",
        "#7f7f7f",
    ),
    Category(
        "fouled",
        "fouled",
        "the played rows are out of order: scooped by every opponent",
        "#c8403a",
    ),
    Category(
        "wrong_back",
        "wrong back",
        "the back holds other cards than the best setting's: the hand was built around "
        "another five",
        "#e08a2c",
    ),
    Category(
        "front_too_strong",
        "front too strong",
        "the right back, but the front wins more often than the best's: strength kept in "
        "the front at the middle's cost",
        "#3a78c2",
    ),
    Category(
        "front_too_weak",
        "front too weak",
        "the right back, but the front wins less often than the best's and the middle more: "
        "the middle kept strength the front needed",
        "#41a6a6",
    ),
    Category(
        "weaker_rows",
        "weaker middle and front",
        "the right back, but neither the front nor the middle wins more often than the "
        "best's and one wins less: the eight cards split worse in both rows",
        "#9c6b4a",
    ),
    Category(
        "other_split",
        "other middle/front split",
        "the right back, and rows that win as often as the best's: kickers moved between "
        "the middle and the front",
        "#b5a33a",
    ),
)
#: A category's index in ``CATEGORIES`` by its key.
INDEX = {c.key: i for i, c in enumerate(CATEGORIES)}


def categorize(
    action: str,
    loss: float,
    fouled: bool,
    back_differs: bool,
    front_win_change: float | None,
    middle_win_change: float | None,
) -> str:
    """The one category (a ``CATEGORIES`` key) of a played hand; see the module docstring.

    ``loss`` is the record's ``played.loss``; the win changes are the played rows' win
    rates minus the best setting's (``played.rows.front/middle.win_change``).
    """
    if loss <= 0:
        return "perfect"
    if action == "declare":
        return "natural_not_declared"
    if action == "surrender":
        return "surrender_missed"
    if fouled:
        return "fouled"
    if back_differs:
        return "wrong_back"
    f, m = front_win_change, middle_win_change
    if f is None or m is None:
        return "other_split"
    if f > 0:
        return "front_too_strong"
    if f < 0 and m > 0:
        return "front_too_weak"
    if m <= 0 and (f < 0 or m < 0):
        return "weaker_rows"
    return "other_split"
