"""The strategies a duel plays by name: ``greedy``, ``field``, ``safe``, a learned
opponent model (``MODEL.npz``, played as its opponents would), ``mc``, ``mc:SAMPLES``,
``cmd:PROGRAM``. ``mc`` assumes the opponents a duel names (``opponents``, field by
default)."""

from __future__ import annotations

import numpy as np

from solver.apps.duel.base import DuelError, SetHands, Strategy
from solver.apps.duel.program import command
from solver.engine.compiled import CompiledRules
from solver.engine.options import SolveOptions

__all__ = ["resolve"]


def _policy(name: str) -> SetHands:
    """A style (``greedy``, ``field``, ``safe``) or a model file, set the way
    ``solver.strategy.opposition.opponents`` sets the opponents at a Monte Carlo table."""

    def set_hands(hands: np.ndarray, cr: CompiledRules, seed: int) -> np.ndarray:
        from solver.strategy.field_model.policy import set_sorted_hands, settings_of
        from solver.strategy.field_model.train import ensure_field
        from solver.strategy.opposition.opponents import resolve_opponents

        (model,) = resolve_opponents(name, cr, 1)
        srt = np.sort(hands, axis=1)
        tables = model.tables if model.tables is not None else ensure_field(cr)
        return settings_of(srt, set_sorted_hands(srt, cr, model.policy, tables)[0])

    return set_hands


def _hand_seed(seed: int, hand: np.ndarray) -> int:
    """A seed from the duel's seed and the hand's cards (the same hand, the same seed)."""
    return int(np.random.SeedSequence([seed, *hand.tolist()]).generate_state(1)[0])


def _mc(options: SolveOptions) -> SetHands:
    """``solver.solve`` hand by hand, with ``options`` (players, samples, opponents; each
    hand's seed from the duel's and its cards). The duel scores settings only, so it
    solves under the ruleset without naturals: the answer is then always the best
    setting to *play* (a declared natural would show the natural's split instead).
    Opponents' naturals are worth the same whatever this hand's setting, so the choice
    is otherwise unchanged."""
    options = options.check()

    def set_hands(hands: np.ndarray, cr: CompiledRules, seed: int) -> np.ndarray:
        from dataclasses import replace

        from solver.engine.settlement import parse_setting
        from solver.strategy.solving.solve import solve

        rules = cr.rules
        play = replace(rules, naturals=()) if rules.naturals else rules
        out = np.empty((len(hands), 13), np.uint8)
        for i, hand in enumerate(hands):
            sol = solve(hand, play, options.evolve(seed=_hand_seed(seed, hand)))
            # the rows' text read on the deck (faces: a copy held twice written twice)
            out[i] = parse_setting(sol.setting, "mc", rules.deck_code)
        return out

    return set_hands


def resolve(
    spec: str | Strategy,
    players: int = 2,
    timeout: float | None = None,
    mc: SolveOptions | None = None,
) -> Strategy:
    """A strategy from its name: ``greedy``, ``field``, ``safe``, ``MODEL.npz``, ``mc``,
    ``mc:SAMPLES``, ``cmd:PROGRAM``; ``mc`` solves with the options ``mc`` (the opponents
    it assumes; None: the field), at ``players`` and ``SAMPLES``. A :class:`Strategy`
    passes through."""
    if isinstance(spec, Strategy):
        return spec
    text = spec.strip()
    if text in ("greedy", "field", "safe") or text.endswith(".npz"):
        return Strategy(text, _policy(text))
    if text == "mc" or text.startswith("mc:"):
        samples = None
        if text != "mc":
            raw = text[3:]
            try:
                samples = int(raw)
            except ValueError:
                raise DuelError(f"mc:SAMPLES needs a whole number, got {raw!r}") from None
            if samples < 1:
                raise DuelError(f"mc:SAMPLES must be at least 1, got {samples}")
        opts = (mc or SolveOptions()).evolve(players=players, samples=samples, top=0)
        name = text if opts.opponents is None else f"{text} --opponents {opts.opponents}"
        return Strategy(name, _mc(opts), chunk=8)
    if text.startswith("cmd:"):
        return command(text[4:].strip(), timeout, players)
    raise DuelError(
        f"unknown strategy {spec!r}: use mc, mc:SAMPLES, field, greedy, safe, MODEL.npz or "
        "cmd:PROGRAM"
    )
