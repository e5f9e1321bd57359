"""Shared pieces of the systems' random-play property tests: a hand or an evening played by random or heuristic
bots from one seed, and the card-conservation check every system must pass."""

from __future__ import annotations

import numpy as np

from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.driver import play_hand
from fairdeal.engine.match import play_match, seeded_source

PIQUET = list(range(32))


def random_bots(seed: int, seats: int) -> list[RandomBot]:
    return [RandomBot(np.random.default_rng([seed, s])) for s in range(seats)]


def random_hand(conv, seats: int, seed: int, **options):
    """A hand played to the end by random-legal bots, dealt and seated from ``seed``."""
    rng = np.random.default_rng(seed)
    return play_hand(conv, seats, int(rng.integers(seats)), None, random_bots(seed, seats), rng=rng, **options)


def assert_cards_conserved(state) -> None:
    in_hands = [c for h in state.hands for c in h]
    played = [c for t in state.tricks for _, c in t.plays]
    laid_aside = list(state.aside)  # the 19th-century table of two: the third hand, never opened
    assert sorted(in_hands + played + list(state.talon) + list(state.discard) + laid_aside) == PIQUET


def three_player_evening(conv, seed: int, use_random_bots: bool, max_hands: int):
    """Three players, random or heuristic bots, a seeded source: the match result."""
    bots = random_bots(seed, 3) if use_random_bots else [HeuristicBot() for _ in range(3)]
    return play_match(conv, ["A", "B", "C"], bots, source=seeded_source(seed, conv), max_hands=max_hands)
