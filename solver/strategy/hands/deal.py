"""Dealing random hands: the one function every sampler uses (training, Monte Carlo
opponents, duels, strength measurements).

Hands are dealt as **faces** (card ids ``0 .. 51``; docs/architecture.md#the-tables-shape):
a deck with added suits holds some faces twice, and a hand may then hold a face twice,
which is how play (the kernels, the settlement) reads it. A joker's face is
``JOKER_FACE`` (53), after every other, so a hand's jokers sort last.
"""

from __future__ import annotations

import numpy as np

from solver.engine.table_shape import HAND_SIZE, JOKER_FACE, STANDARD_DECK, Deck

_STEP = 32768  # shuffles drawn at a time (memory stays small for millions of deals)


def deck_faces(deck: Deck = STANDARD_DECK, exclude: np.ndarray | None = None) -> np.ndarray:
    """uint8[m]: the faces of ``deck``'s cards, sorted, a face once per copy, less the
    faces of ``exclude`` (a face once per time it appears there; ValueError when it
    appears more often than the deck holds it)."""
    top = JOKER_FACE + 1  # faces 0 .. 51, and the jokers' (docs/rules.md#jokers)
    counts = np.zeros(top, np.int64)
    counts[: deck.faces] = deck.face_copies()
    counts[JOKER_FACE] = deck.jokers
    if exclude is not None:
        ex = np.asarray(exclude, np.int64)
        if len(ex) and (int(ex.max()) >= top or int(ex.min()) < 0):
            raise ValueError(f"the cards to leave out are not cards of a {deck.size}-card deck")
        counts -= np.bincount(ex, minlength=top)
        if counts.min() < 0:
            raise ValueError(f"the cards to leave out are not cards of a {deck.size}-card deck")
    return np.repeat(np.arange(top, dtype=np.uint8), counts)


def deal_hands(
    rng: np.random.Generator,
    deals: int,
    players: int,
    exclude: np.ndarray | None = None,
    deck: Deck = STANDARD_DECK,
) -> np.ndarray:
    """uint8[deals, players, 13]: each deal the first 13 * players cards of a shuffle of
    ``deck`` (less the faces ``exclude``), every hand's faces sorted low to high.

    The same generator state gives the same deals however they are chunked.
    """
    cards = deck_faces(deck, exclude)
    if HAND_SIZE * players > len(cards):
        raise ValueError(f"cannot deal {players} hands from {len(cards)} cards")
    out = np.empty((deals, players, HAND_SIZE), np.uint8)
    for lo in range(0, deals, _STEP):
        m = min(_STEP, deals - lo)
        shuffled = rng.permuted(np.tile(cards, (m, 1)), axis=1)[:, : HAND_SIZE * players]
        out[lo : lo + m] = np.sort(shuffled.reshape(m, players, HAND_SIZE), axis=2)
    return out


def random_hands(rng: np.random.Generator, n: int, deck: Deck = STANDARD_DECK) -> np.ndarray:
    """uint8[n, 13]: n uniformly random hands of ``deck``, as many to a shuffle as it
    deals (four of the 52-card deck), each's faces sorted."""
    most = deck.most_players()
    return deal_hands(rng, -(-n // most), most, deck=deck).reshape(-1, HAND_SIZE)[:n]
