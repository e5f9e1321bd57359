"""What the calls say about the hands a bot cannot see, for the samplers to deal hands that fit them.

A seat that bid a game holds about the tricks the bid needs, less what the talon may bring; a seat whose first
call was a pass holds no opening hand; a misère bidder holds few takers; the declarer who named a contract after
his discard holds nearly its tricks. Each claim prices a hand by how far it falls short (``shortfall``), and the
samplers keep the first of a few random deals that contradicts no claim, else the one that contradicts least: a
soft filter, since the bidders' own counts are rough.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from fairdeal.engine import evaluate
from fairdeal.engine.bids import DARK_PREFIX, MINE, PASS, BidError, parse_bid
from fairdeal.engine.numbers import number_of_word
from fairdeal.engine.view import PlayerView

TALON_HELP = 2.0  # tricks a bidder may hope the talon (and the count's optimism) adds to his hand
NAMED_HELP = 1.0  # the declarer who named the contract after his discard holds nearly its tricks
PASS_MAX = 5.0  # counted tricks above which a first-call pass is unlikely
MISERE_MAX = 2.0  # the most misère danger a misère bidder is likely to hold
TRIES = 12  # random deals tried for one consistent with the calls


@dataclass(frozen=True)
class Claim:
    """One seat's call read as a bound on its hand: ``games`` are (level, strain) options of which the hand
    should make one (with ``help`` tricks to come); ``misere`` a misère bid; neither: a first-call pass."""

    seat: int
    games: tuple[tuple[int, int], ...] = ()
    help: float = TALON_HELP
    misere: bool = False

    def shortfall(self, hand: Sequence[int]) -> float:
        if self.misere:
            return max(0.0, evaluate.misere_risk(hand) - MISERE_MAX)
        if not self.games:
            return max(0.0, evaluate.best_strain(hand)[1] - PASS_MAX)
        return min(max(0.0, level - self.help - evaluate.strain_tricks(hand, strain)) for level, strain in self.games)


def _contracts(view: PlayerView, token: str) -> tuple[tuple[int, int], ...] | None:
    """The (level, strain) game contracts a bid stands for; ``()`` for a misère; ``None`` when it names none."""
    token = token[len(DARK_PREFIX) :] if token.startswith(DARK_PREFIX) else token
    number = number_of_word(token)
    tokens: Sequence[str] = (token,)
    if number is not None:
        rules = view.convention.bidding
        if not rules.first_number <= number <= rules.last_number:
            return None
        tokens = rules.number_tokens(number, False)
    out = []
    for text in tokens:
        try:
            bid = parse_bid(text)
        except BidError:
            continue
        if bid.misere:
            return ()
        if bid.level is not None and bid.strain is not None:
            out.append((bid.level, bid.strain))
    return tuple(out) or None


def claims(view: PlayerView) -> tuple[Claim, ...]:
    """The claims of the other seats' calls: each seat's highest readable bid, or its first-call pass."""
    first: dict[int, str] = {}
    highest: dict[int, Claim] = {}
    for seat, token in view.auction:
        if seat == view.seat:
            continue
        first.setdefault(seat, token)
        if token in (PASS, MINE):
            continue
        games = _contracts(view, token)
        if games == ():
            highest[seat] = Claim(seat, misere=True)
        elif games:
            highest[seat] = Claim(seat, games)
    passes = [Claim(s) for s, t in first.items() if t == PASS and s not in highest]
    return tuple(highest.values()) + tuple(passes)


def declarer_claim(view: PlayerView) -> Claim | None:
    """The named game contract read as a claim on the declarer's kept hand."""
    contract = view.contract
    if contract is None or contract.level is None or contract.strain is None or view.declarer is None:
        return None
    return Claim(view.declarer, ((contract.level, contract.strain),), NAMED_HELP)


def shortfall(claims: Sequence[Claim], hands: dict[int, tuple[int, ...]]) -> float:
    """How far the dealt hands fall short of the claims about them (seats not dealt are not judged)."""
    return sum(c.shortfall(hands[c.seat]) for c in claims if c.seat in hands)
