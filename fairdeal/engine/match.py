"""A whole pulya: hands dealt by a rotating dealer, written on the sheet, logged as they happen, then settled.

Owned by helper H. The deal passes clockwise (seat ``d`` then ``d + 1``). Each hand's deck order comes from a
``DealSource``; the match does not know whether it is a server RNG, a recorded physical deal or the commit-reveal
protocol. The raspasy streak lives on the sheet and is handed to every new hand. The pulya ends when
``is_finished`` says so, or at a hand cap; a pulya stopped early is settled as it stands (``MatchResult.finished``
tells which).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from fairdeal.cards import DeckKind
from fairdeal.deal import deal_order, get_pattern
from fairdeal.engine.bots import Bot
from fairdeal.engine.deal_source import DealSource, ProvingSource, ShuffledDeckSource
from fairdeal.engine.driver import play_hand
from fairdeal.engine.hand import result
from fairdeal.engine.match_log import MatchLog, hand_fields, sheet_extras
from fairdeal.engine.outcome import HandKind, HandOutcome
from fairdeal.engine.rotation import dealer_of
from fairdeal.engine.scoring import failed_contract
from fairdeal.engine.settlement import Settlement, settle
from fairdeal.engine.sheet import ScoreLine, Sheet, is_finished, new_sheet
from fairdeal.engine.system import system_of
from fairdeal.errors import MatchError
from fairdeal.files import OutputFile
from fairdeal.rules.convention import Convention


class StopMatch(Exception):
    """Raised by a player (a person at the terminal closing the input) to end the pulya after the last full hand;
    a dealing protocol that ends the evening over a party's fault raises it with that party's ``penalty``, written
    on the sheet (and on the log's settlement line) before the evening is settled."""

    def __init__(self, reason: str = "", penalty: tuple[ScoreLine, ...] = ()):
        super().__init__(reason)
        self.penalty = penalty


class Unsettled(Exception):
    """Raised by a source's ``signed_settlement`` when a seat refused to sign the settlement: the evening did not
    settle, so the log gets no settlement line; ``document`` (the refused settlement) is filed beside the
    transcripts as the evidence that tells whose fault it was."""

    def __init__(self, reason: str, document: Mapping[str, Any]):
        super().__init__(reason)
        self.document = document


@dataclass(frozen=True)
class HandSummary:
    """One hand as the match saw it: enough for progress lines and the evening's statistics."""

    number: int
    dealer: int
    kind: HandKind
    declarer: int | None
    contract: str | None
    failed: bool
    lines: tuple[ScoreLine, ...]


@dataclass(frozen=True)
class MatchResult:
    convention: Convention
    players: tuple[str, ...]
    sheet: Sheet
    settlement: Settlement
    hands: tuple[HandSummary, ...]
    finished: bool  # the pulya closed by its own rule (not by the hand cap or a stop)
    stopped: str | None = None  # why it ended early, when it did


def with_pulya_size(convention: Convention, size: int) -> Convention:
    """The convention played to another agreed pulya («величина пульки» is agreed before the game, seed 003)."""
    return replace(convention, pulya=replace(convention.pulya, size=size))


def seeded_source(seed: int | None, convention: Convention | None = None) -> ShuffledDeckSource:
    """The default deal source: a server RNG seeded for reproducible evenings, shuffling the convention's deck."""
    deck = DeckKind.parse(convention.table.deck) if convention is not None else DeckKind.PIQUET32
    return ShuffledDeckSource(deck=deck, rng=np.random.default_rng(seed))


def play_match(
    convention: Convention,
    players: Sequence[str],
    bots: Sequence[Bot],
    *,
    source: DealSource,
    max_hands: int | None = None,
    log: str | Path | OutputFile | None = None,
    on_hand: Callable[[HandSummary, Sheet], None] | None = None,
    first_dealer: int = 0,
) -> MatchResult:
    """Play a pulya; ``bots[seat]`` acts for ``players[seat]``. With ``log`` every hand is written as it ends."""
    players = tuple(players)
    _check_table(convention, players, bots, max_hands, first_dealer)
    if isinstance(source, ProvingSource):
        filer, dealing = source.write_transcript, source.dealing
    else:
        filer, dealing = None, "server-rng"
    writer = MatchLog(log, convention, players, filer, dealing) if log is not None else None
    hands: list[HandSummary] = []
    sheet, stopped = new_sheet(convention, len(players)), None
    penalty: tuple[ScoreLine, ...] = ()
    try:
        while not is_finished(sheet, convention):
            if max_hands is not None and len(hands) >= max_hands:
                stopped = f"stopped at the cap of {max_hands} hands"
                break
            dealer, opening = dealer_of(convention, len(hands), first_dealer, len(players))
            try:
                sheet, summary = _play_one(convention, bots, source, sheet, len(hands) + 1, dealer, writer, opening)
            except StopMatch as stop:
                stopped, penalty = str(stop) or "stopped by a player", stop.penalty
                sheet = sheet.apply(penalty)
                break
            hands.append(summary)
            if on_hand is not None:
                on_hand(summary, sheet)
        settlement = settle(sheet, convention)
    except BaseException:
        if writer is not None:
            writer.close(None)
        raise
    if writer is not None:
        # A source whose sessions close with a signed settlement (mental poker v4) hands it to the log.
        closing = getattr(source, "signed_settlement", None)
        try:
            signed = closing(settlement.amounts) if closing is not None else None
        except Unsettled as refused:
            writer.close(None, refused.document)
            raise
        writer.close(settlement.amounts, signed, penalty)
    return MatchResult(convention, players, sheet, settlement, tuple(hands), stopped is None, stopped)


def _check_table(
    convention: Convention, players: tuple[str, ...], bots: Sequence[Bot], max_hands: int | None, first_dealer: int
) -> None:
    convention.check_players(len(players))
    if len(set(players)) != len(players) or not all(name.strip() for name in players):
        raise MatchError(f"player names must be distinct and non-empty: {list(players)}")
    if len(bots) != len(players):
        raise MatchError(f"one player (bot or person) per seat: {len(players)} seats, {len(bots)} players")
    if max_hands is not None and max_hands < 1:
        raise MatchError(f"the hand cap must be at least 1, got {max_hands}")
    if not 0 <= first_dealer < len(players):
        raise MatchError(f"the first dealer must be a seat 0..{len(players) - 1}, got {first_dealer}")


def _play_one(
    convention: Convention,
    bots: Sequence[Bot],
    source: DealSource,
    sheet: Sheet,
    number: int,
    dealer: int,
    writer: MatchLog | None,
    opening: int = 0,
) -> tuple[Sheet, HandSummary]:
    dealt = source.deal(number, dealer)
    deal = deal_order(dealt.order, get_pattern(convention.table.pattern_name(sheet.num_seats)))
    state = play_hand(
        convention,
        sheet.num_seats,
        dealer,
        deal,
        bots,
        sheet.raspasy_streak,
        opening_round=opening,
        refe_seats=sheet.refe_seats(),
    )
    outcome = result(state)
    before = sheet.apply(dealt.penalty)
    sheet, lines = system_of(convention).score_hand(before, outcome)
    fields = hand_fields(number, state, dealt.evidence, lines, sheet_extras(before, sheet, outcome, convention))
    if dealt.penalty:
        fields["penalty"] = [line.to_record() for line in dealt.penalty]
    document = source.finish(
        number, {k: v for k, v in fields.items() if k != "type"}, plays=[trick.plays for trick in state.tricks]
    )
    if writer is not None:
        writer.write_hand(fields, dealt.kind, document)
    return sheet, summarize(number, outcome, state.contract.token if state.contract else None, lines)


def summarize(number: int, outcome: HandOutcome, contract: str | None, lines: tuple[ScoreLine, ...]) -> HandSummary:
    return HandSummary(number, outcome.dealer, outcome.kind, outcome.declarer, contract, failed(outcome), lines)


def failed(outcome: HandOutcome) -> bool:
    """Whether the declarer went down: undertricks in a game (or conceded), any trick in a misère."""
    return failed_contract(outcome)
