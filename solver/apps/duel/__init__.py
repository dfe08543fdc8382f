"""Duplicate duels between two hand-setting strategies.

``duel(a, b, deals, rules, players, seed)`` deals ``deals`` random deals of ``players``
hands and plays each one ``players`` times, once with strategy A in each seat and
strategy B in every other seat, so the luck of the cards cancels.

Duplicate rotation. A strategy sets a hand from its own cards only, so over the ``k``
games of a deal (A in seat ``g`` = 0..k-1, B in the others), A holds every hand once, B
holds every hand ``k - 1`` times, and every ordered pair of hands (A holds ``H_i``, B
holds ``H_j``, ``i != j``) meets exactly once. For two players this is the usual swap:
the deal is played again with the hands exchanged. Each strategy sets each hand once per
duel.

A deal's value is A's units per game against the whole table (the ``k - 1`` B players),
averaged over the ``k`` games: ``x = (1/k) * sum_g table_g[g]``, where ``table_g`` is the
settlement of game g's whole table (``solver.engine.settlement.settle_tables``), so a
home run counts (docs/rules.md#home-run). With the home run off a table is the sum of
its pairs and ``x = (1/k) * sum_{i != j} settle(A(H_i), B(H_j))``. When A and B are the
same (deterministic) strategy, ``x`` is exactly 0 for every deal (a table sums to 0).
The result is the mean of ``x`` over the deals with a 95% confidence interval
(Student's t, the deals as independent units), the share of hands the two strategies
set differently, and how many settings each fouled.

Hands are played as set: nobody declares a natural or surrenders, so the duel measures
setting skill alone. (A natural's payout does not depend on the other player's setting,
so two strategies that both declare would cancel in duplicate play.) The ``mc``
strategy solves under the ruleset without naturals, so its answer is always the best
setting to play.

Strategies (``resolve``): ``greedy``, ``field``, ``mc``, ``mc:SAMPLES``, or
``cmd:PROGRAM`` (a command line, split like a shell does). Each resolves to a
:class:`Strategy`, whose ``set_hands(hands uint8[n, 13], cr, seed)`` (``cr`` the compiled
ruleset) returns settings
``uint8[n, 13]`` laid out front 3 + middle 5 + back 5. A returned row that is not a
setting of its hand (the external bot's bad or missing answers come back as ``255``s)
counts as a bad answer and is scored as a fouled setting.

The external program protocol: the program is started once per duel and reads one hand
per line on stdin (``2c 7d Th ...``, 13 cards, sorted low to high); it writes one setting
per line on stdout, in the same order: ``front | middle | back``, cards separated by
spaces (any spelling ``evaluator.parse_cards`` accepts). With jokers in the deck a
hand may hold them, written ``X`` (after every other card), and so may its rows; a card
of an added suit held twice is written twice. Environment: ``CAPSA_RULES`` (ruleset
name), ``CAPSA_PLAYERS``, ``CAPSA_JOKERS`` (0, 1 or 2), ``CAPSA_SEED``. The program gets
``timeout`` seconds for the whole stream; it is killed when they run out, and the
answers it did not give are scored as fouls. Unparseable lines, wrong row sizes and
cards that are not the hand's are fouls too; the duel never fails because of the
program's answers.

The program runs in a process group (a session) of its own, and the whole group is
killed when the time runs out, when the duel is interrupted, and when the program is
done, so no child it starts outlives its turn. capsa reads only what the hands need:
the first ``n`` lines of its output, each cut at ``LINE_MAX`` bytes, and the last
``STDERR_TAIL`` bytes of its standard error; it never waits for the pipes to close (a
child holding them open cannot stall the duel). A program still running
``EXIT_GRACE`` seconds after its last answer is killed; its answers count. POSIX only
(the process-group handling); elsewhere the program runs without it.
"""

from __future__ import annotations

from solver.apps.duel.base import BAD, DuelError, Strategy, check_timeout
from solver.apps.duel.play import DuelResult, duel, score_duplicate
from solver.apps.duel.program import parse_setting
from solver.apps.duel.stats import confidence_interval, t_quantile
from solver.apps.duel.strategies import resolve

__all__ = [
    "BAD",
    "DuelError",
    "DuelResult",
    "Strategy",
    "check_timeout",
    "confidence_interval",
    "duel",
    "parse_setting",
    "resolve",
    "score_duplicate",
    "t_quantile",
]
