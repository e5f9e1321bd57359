"""A hand played on a true deal while the service and every seat follow it from what the rules open to each of
them (``fairdeal.engine.public_hand``): shared by its tests and ``benchmarks/bench_public_hand.py``."""

from __future__ import annotations

import random
import time

import numpy as np

from fairdeal.engine.actions import Action, Discard, Follow, Phase
from fairdeal.engine.bots import HeuristicBot, RandomBot
from fairdeal.engine.driver import random_deal
from fairdeal.engine.hand import apply, legal_actions, new_hand, seats_of_deal, start_hand, to_move
from fairdeal.engine.public_hand import PublicHand
from fairdeal.engine.state import HandState
from fairdeal.engine.system import conventions, get_convention
from fairdeal.engine.view import actor_view
from fairdeal.errors import IllegalAction

TABLES = [(name, players) for name, convention in sorted(conventions().items()) for players in convention.players]
PUBLIC = ("phase", "auction", "declarer", "contract", "kind", "defence", "open_seats", "won", "current", "talon_shown")


def guess(true: HandState, seat: int | None, rng: random.Random) -> HandState:
    """The hand begun on a deal of the same shape: ``seat``'s hand as dealt, every other card shuffled."""
    holders = seats_of_deal(true.convention, true.num_seats, true.dealer)
    hands = [list(true.dealt_hands[s]) if s is not None else list(true.aside) for s in holders]
    talons = [list(t) for t in true.dealt_talons]
    rows = [h for h, s in zip(hands, holders) if seat is None or s != seat] + talons
    pool = [c for row in rows for c in row]
    rng.shuffle(pool)
    for row in rows:
        row[:] = [pool.pop() for _ in row]
    return start_hand(
        true.convention,
        true.num_seats,
        true.dealer,
        tuple(map(tuple, hands)),
        tuple(map(tuple, talons)),
        true.raspasy_streak,
        true.opening_round,
        true.refe_seats,
    )


class PublicTable:
    """The true hand, played by bots (random-legal for odd seeds, heuristic for even), and the parties who see
    only what the rules open to them; ``seconds`` and ``slowest`` time the parties alone (CPU)."""

    def __init__(self, system: str, players: int, seed: int):
        rng = np.random.default_rng(seed)
        self.convention = get_convention(system)
        dealer = int(rng.integers(players))
        self.start = self.true = new_hand(self.convention, players, dealer, random_deal(rng, self.convention, players))
        shuffle = random.Random(seed)
        seats = list(self.true.players)
        self.parties = {None: PublicHand(guess(self.true, None, shuffle))}
        self.parties.update({s: PublicHand(guess(self.true, s, shuffle), s) for s in seats})
        self.bots = {s: (RandomBot(np.random.default_rng([seed, s])) if seed % 2 else HeuristicBot()) for s in seats}
        self.actions: list[Action] = []
        self.opened: set[int] = set()
        self.played_for: set[tuple[int, int]] = set()
        self.stopped = False  # a Nachgehen take: refused, as mental poker refuses it
        self.seconds = self.slowest = 0.0
        self._tell()

    def step(self) -> None:
        before = self.true
        seat = to_move(before)
        action = self.bots[seat].act(actor_view(before, seat))
        if isinstance(action, Follow) and action.take:
            self._refused(action)
            return
        started = time.process_time()
        for party, hand in self.parties.items():
            if isinstance(action, Discard) and party != action.seat:
                hand.put_away(action.seat)
            else:
                hand.act(action)
        self._timed(started)
        self.true = apply(before, action)
        self.actions.append(action)
        started = time.process_time()
        self._talons_moved(before)
        self._tell()
        self._timed(started)

    def assert_agrees(self) -> None:
        """Every party sees the true hand's public fields, whose turn it is, its own cards and its choices; a party
        may not know whose turn it is only where the declarer's aces decide it (and he knows them)."""
        true = self.true
        for party, hand in self.parties.items():
            if hand.undecided:
                assert party != true.declarer
                continue
            seen = hand.state
            for name in PUBLIC:
                assert getattr(seen, name) == getattr(true, name), (party, name)
            assert [t.plays for t in seen.tricks] == [t.plays for t in true.tricks]
            assert to_move(seen) == to_move(true), party
            if party is not None:
                assert seen.hands[party] == true.hands[party], party
                if to_move(true) == party:
                    assert legal_actions(seen) == legal_actions(true), party

    def _refused(self, action: Action) -> None:
        for hand in self.parties.values():
            try:
                hand.act(action)
            except IllegalAction as exc:
                assert "Nachgehen follower" in str(exc)
            else:
                raise AssertionError(f"{action} was followed from public information")
        self.stopped = True

    def _timed(self, started: float) -> None:
        took = time.process_time() - started
        self.seconds += took
        self.slowest = max(self.slowest, took)

    def _talons_moved(self, before: HandState) -> None:
        """A talon taken: opened to all when the rules show it, else to its taker alone."""
        moved = [c for c in before.talon if c not in self.true.talon]
        if not moved:
            return
        index = next(i for i, t in enumerate(self.true.dealt_talons) if t[0] in moved)
        taker = next(s for s in range(len(self.true.hands)) if len(self.true.hands[s]) > len(before.hands[s]))
        cards = self.true.dealt_talons[index][: len(moved)]
        shown = self.true.talon_shown and not before.talon_shown
        for party, hand in self.parties.items():
            if shown or party == taker:
                hand.show_talon(index, cards)

    def _tell(self) -> None:
        """What the rules open now: a raspasy talon card turned, hands laid open, a dummy to the one who plays it."""
        true = self.true
        card = true.current_talon_card if true.phase is Phase.PLAY else None
        if card is not None and not true.current:
            for hand in self.parties.values():
                if len(hand.turned) == len(true.tricks):
                    hand.show_turned(card)
        for seat in sorted(true.open_seats - self.opened):
            self.opened.add(seat)
            for hand in self.parties.values():
                hand.lay_open(seat, true.hands[seat])
        actor = to_move(true) if true.phase is Phase.PLAY else None
        if actor is not None and actor != true.turn and (actor, true.turn) not in self.played_for:
            self.played_for.add((actor, true.turn))  # Gusarik: the dummy's cards are seen by the one who plays them
            self.parties[actor].lay_open(true.turn, true.hands[true.turn])
