"""Dealing random hands: the one function every sampler uses (training, Monte Carlo
opponents, duels, strength measurements)."""

from __future__ import annotations

import numpy as np

from solver.engine.table_shape import HAND_SIZE, MAX_PLAYERS, STANDARD_DECK

_STEP = 32768  # shuffles drawn at a time (memory stays small for millions of deals)


def deal_hands(
    rng: np.random.Generator, deals: int, players: int, exclude: np.ndarray | None = None
) -> np.ndarray:
    """uint8[deals, players, 13]: each deal the first 13 * players cards of a shuffle of
    the deck (``STANDARD_DECK``, less ``exclude``), every hand sorted low to high.

    The same generator state gives the same deals however they are chunked.
    """
    deck = np.arange(STANDARD_DECK.size, dtype=np.uint8)
    if exclude is not None:
        deck = np.setdiff1d(deck, np.asarray(exclude, np.uint8))
    if HAND_SIZE * players > len(deck):
        raise ValueError(f"cannot deal {players} hands from {len(deck)} cards")
    out = np.empty((deals, players, HAND_SIZE), np.uint8)
    for lo in range(0, deals, _STEP):
        m = min(_STEP, deals - lo)
        shuffled = rng.permuted(np.tile(deck, (m, 1)), axis=1)[:, : HAND_SIZE * players]
        out[lo : lo + m] = np.sort(shuffled.reshape(m, players, HAND_SIZE), axis=2)
    return out


def random_hands(rng: np.random.Generator, n: int) -> np.ndarray:
    """uint8[n, 13]: n uniformly random hands, ``MAX_PLAYERS`` (four) to a shuffled deck,
    each sorted."""
    return deal_hands(rng, -(-n // MAX_PLAYERS), MAX_PLAYERS).reshape(-1, HAND_SIZE)[:n]
