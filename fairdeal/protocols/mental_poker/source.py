"""Mental-poker dealing for the match loop: a ``DealSource`` whose deals come from players who shuffle an
encrypted deck themselves, each holding its own secrets and exchanging only protocol messages.

The engine knows nothing of this. ``deal`` runs keys, shuffles and the private deal; ``finish`` replays the hand's
game record as protocol steps, in the order the game produced them: the talon opened (or passed unseen to the
declarer), the discard committed, talon cards turned in raspasy, every card played with its proof from its owner's
player object, then every remaining share and the discard opened. The document it returns is the transcript.

One simulation shortcut, stated plainly: the match loop runs every seat's engine in one process and needs the
whole deal when the hand starts, so the source (the engine host) assembles it from each player's private view of
its own hand plus the players' raw talon shares. The transcript still opens the talon only where the rules say.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from operator import methodcaller
from pathlib import Path
from typing import Any

import numpy as np

from fairdeal.cards import parse_card
from fairdeal.deal import seats_of_hands
from fairdeal.engine.deal_source import DealEvidence, Plays
from fairdeal.engine.match import StopMatch, Unsettled
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.sheet import ScoreLine
from fairdeal.errors import MentalPokerError, ProtocolError, SignedMessageError
from fairdeal.protocols import signed
from fairdeal.protocols.identity import IdentityKey
from fairdeal.protocols.mental_poker.elgamal import decrypt
from fairdeal.protocols.mental_poker.events import discards_of, engine_hand, expected_events, hands_laid_open
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.player import STEP_TIMEOUTS, HandAbandoned, HandRefused, Player, Table
from fairdeal.protocols.mental_poker.protocol import TableSetup
from fairdeal.protocols.mental_poker.signing import PROTOCOL_V4, Seating
from fairdeal.protocols.mental_poker.statements import (
    settlement_document,
    settlement_proposal,
    sign_record,
    sign_settlement,
)
from fairdeal.protocols.record_form import signed_record
from fairdeal.protocols.roster import Roster
from fairdeal.protocols.table import TableSpec
from fairdeal.protocols.transcript import FORMAT, VERSION, seat_deal, transcript_hash, write_transcript

PROTOCOL_V3 = "fairdeal-mental-poker/3"
PROTOCOL = PROTOCOL_V4
COMPLETE, ABANDONED, REFUSED = "complete", "abandoned", "refused"
MAX_ATTEMPTS = 3  # deals of one hand: a player who walks away from the opening gets the hand re-dealt twice


def _at_fault(stopped: MentalPokerError, players: Sequence[str]) -> list[str]:
    """Who a stopped hand proves at fault: the player a witnessed abandon names; for a refusal, the signer of the
    refused message its check names (``SignedMessageError.party``, ``MentalPokerError.player``), else the refuser
    (a refusal that names no faulty signer is without cause); a player of the table only."""
    if isinstance(stopped, HandAbandoned):
        named: str | None = stopped.player
    else:
        error = getattr(stopped, "error", None)
        if isinstance(error, SignedMessageError):
            named = error.party.removeprefix("player ") if error.party.startswith("player ") else None
        else:
            named = getattr(error, "player", None)
        if named not in players:
            named = getattr(stopped, "refuser", None)
    return [named] if named is not None and named in players else []


def dealt_seats(spec: TableSpec, dealer: int) -> tuple[int, ...]:
    """The seats dealt a hand, in the pattern's player-hand order: at four the dealer, at five the dealer and one
    more sit out and hold no key; Gusarik's dummy is nobody's and needs none."""
    holders = seats_of_hands(spec.pattern, dealer, len(spec.players))
    return tuple(seat for seat in holders if seat is not None)


def hand_setup(spec: TableSpec, hand: int, dealer: int, seating: Seating | None = None, attempt: int = 1) -> TableSetup:
    """The protocol's table for one hand: the dealt seats' names in hand order, bound to table/session/hand (v4,
    with the ``seating``: to the roster and the attempt too, as a length-prefixed tuple)."""
    names = tuple(spec.players[s] for s in dealt_seats(spec, dealer))
    if seating is None:
        return TableSetup(HandContext(f"{spec.table}/{spec.session}", hand), spec.pattern, names)
    return TableSetup(seating.hand_context(hand, attempt), spec.pattern, names, version=4)


def signed_roster(
    spec: TableSpec, identities: Mapping[str, IdentityKey], service: IdentityKey, time: str | None = None
) -> Roster:
    """The session's roster, signed by the service and every seated player (``time``: now, by default)."""
    time = time or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    fields = spec.convention_fields()
    header = {"system": fields["system"], "convention": fields["convention"], "pulya": fields["pulya"]}
    seats = [(name, identities[name].public) for name in spec.players]
    roster = Roster.create(PROTOCOL_V4, spec.table, spec.session, time, header, service.public, seats)
    for key in (service, *(identities[name] for name in spec.players)):
        roster = roster.signed_by(key)
    return roster


def transcript_document(
    spec: TableSpec,
    seating: Seating | None,
    hand: int,
    dealer: int,
    messages: Sequence[Mapping[str, Any]],
    record: Mapping[str, Any] | None,
    order: np.ndarray | None,
    previous: str | None,
    v4: Mapping[str, Any],
) -> dict[str, Any]:
    """The transcript of one hand (``order`` is None for an abandoned or refused hand), chained to the one before
    by ``previous``; ``v4`` holds the hand's ``attempt``, ``aborts``, ``statements`` and ``refusal``, and for a
    live hand cut short in play the ``start`` its game is followed from (``LiveHand.start_facts``)."""
    doc: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "protocol": PROTOCOL_V3 if seating is None else PROTOCOL_V4,
        "state": COMPLETE if order is not None else ABANDONED if v4.get("refusal") is None else REFUSED,
        "table": spec.table,
        "session": spec.session,
        **spec.convention_fields(),
        "players": list(spec.players),
        "hand": hand,
        "dealer": dealer,
        "messages": list(messages),
        "previous": previous,
    }
    if order is not None:
        doc["deal"] = seat_deal(order, spec.pattern.name, dealer, len(spec.players))
    if record is not None:
        # v4 files are strict canonical JSON (integers only): a half whist goes in as the exact text "3/2",
        # the form the record statements sign and every canonical encoder (the JavaScript seat's too) accepts.
        doc["record"] = dict(record) if seating is None else signed_record(dict(record))
    if seating is not None:
        doc.update(roster=seating.roster.to_json(), attempt=v4["attempt"], aborts=list(v4["aborts"]))
        if v4.get("statements") is not None:
            doc["statements"] = v4["statements"]
        if v4.get("refusal") is not None:
            doc["refusal"] = dict(v4["refusal"])
        if v4.get("start") is not None:
            doc["start"] = dict(v4["start"])
    return copy.deepcopy(doc)


def play_out(table: Table, events: Sequence[tuple[Any, ...]], discards: Mapping[str, Sequence[int]]) -> None:
    """Run the post-deal events through the players; each message is verified by every other player."""
    for event in events:
        step = event[0]
        if step == "talon":
            table.round(step, methodcaller("open_talon", event[1]))
        elif step == "take":
            table.round(step, methodcaller("take", event[1], event[2]), skip=event[1])
        elif step == "turn":
            table.round(step, methodcaller("turn"))
        elif step == "dummy":
            table.round(step, methodcaller("open_dummy"))
        elif step == "reveal":
            table.round(step, methodcaller("reveal"))
        elif step == "discard":
            table.say(table.by_name(event[1]), step, lambda p: p.discard(discards[p.name]))
        elif step == "play":
            table.say(table.by_name(event[1]), step, methodcaller("play", event[2]))
        elif step == "open":
            table.say(table.by_name(event[1]), step, methodcaller("open_hand"))
        else:
            table.say(table.by_name(event[1]), step, methodcaller("open_discard"))


class AbandonedEnd(HandAbandoned, StopMatch):
    """v4: a hand abandoned for good ends the evening: the hand (filed as the source's last transcript) is void,
    ``penalty`` charges the party at fault and the settlement says so (``close_session``). Still the
    ``HandAbandoned`` it was for a caller that deals by hand; the match loop stops on it as on a ``StopMatch``."""

    def __init__(self, stopped: HandAbandoned, penalty: tuple[ScoreLine, ...]):
        HandAbandoned.__init__(self, stopped.player or "", stopped.step or "", stopped.messages)
        self.penalty = penalty


class RefusedEnd(HandRefused, StopMatch):
    """The same for a refused hand."""

    def __init__(self, stopped: HandRefused, penalty: tuple[ScoreLine, ...]):
        HandRefused.__init__(self, stopped.refuser, stopped.error, stopped.refusal, stopped.messages, stopped.shown)
        self.penalty = penalty


class SettlementRefused(ProtocolError, Unsettled):
    """v4: a seat signed a refusal of the settlement put to it; ``document`` holds every seat's statement."""

    def __init__(self, reason: str, document: Mapping[str, Any]):
        Unsettled.__init__(self, reason, document)


class MentalPokerSource:
    """Deals every hand by mental poker between player objects; ``finish`` returns the hand's transcript."""

    dealing = "mental-poker"

    def __init__(
        self,
        spec: TableSpec,
        make_player: Callable[[TableSetup, str], Player] = Player,
        version: int = 4,
        identities: Mapping[str, IdentityKey] | None = None,
        service: IdentityKey | None = None,
    ):
        """v4 (the default) signs everything with the seats' ``identities`` under a roster the ``service`` and
        every seat sign; without them, fresh keys are made — one program then holds every seat's key, which is
        what a simulation is, and what ``verify`` without pins cannot tell apart from a real table."""
        self.spec = spec
        self._make_player = make_player
        self._hand: tuple[int, int, Table] | None = None
        self._previous: str | None = None
        self._attempt = 1
        self._aborts: list[dict[str, Any]] = []
        self.transcripts: list[dict[str, Any]] = []
        self.end: dict[str, Any] | None = None  # v4: the settlement's ``end`` once a hand ended the evening
        self.refusals: list[str] = []  # v4: the players who refused the settlement put to them
        self.seating: Seating | None = None
        if version >= 4:
            self.identities = dict(identities or {name: IdentityKey.generate(name) for name in spec.players})
            self.seating = Seating(signed_roster(spec, self.identities, service or IdentityKey.generate("service")))

    @property
    def roster(self) -> Roster | None:
        """The session's signed roster (v4), for ``verify --roster``."""
        return self.seating.roster if self.seating is not None else None

    def deal(self, hand: int, dealer: int) -> DealEvidence:
        """Keys, shuffles, private deal. In v4 a seat that walks away from the opening is named by a witnessed
        abandon, charged the convention's ``abort_penalty`` (the hand line's ``penalty``), and the hand is dealt
        again with fresh keys and shuffles (``MAX_ATTEMPTS`` in all), the abandoned openings kept in the
        transcript; otherwise (and after the last attempt) ``HandAbandoned``."""
        self._aborts = []
        penalty: list[ScoreLine] = []
        for attempt in range(1, MAX_ATTEMPTS + 1):
            self._attempt = attempt
            table = self._table(hand, dealer, attempt)
            self._hand = (hand, dealer, table)
            try:
                final = self.seating is None or attempt == MAX_ATTEMPTS
                with self._ending(hand), self._abandoning(final=final), self._refusing():
                    table.deal()
                break
            except HandAbandoned as abandoned:
                if self.seating is None or attempt == MAX_ATTEMPTS:
                    raise
                self._aborts.append({"attempt": attempt, "messages": abandoned.messages})
                penalty += abort_penalty(self.spec.convention, self._seat(abandoned.player), len(self.spec.players))
        order = self._assemble(table)
        evidence = {"dealing": "mental-poker", "hand": hand, "dealer": dealer}
        return DealEvidence(hand, dealer, order, evidence, penalty=tuple(penalty))

    def _seat(self, name: str | None) -> int:
        if name not in self.spec.players:
            raise ProtocolError(f"mental poker: the abandon names {name!r}, who is not at the table")
        return self.spec.players.index(name)

    def _table(self, hand: int, dealer: int, attempt: int) -> Table:
        setup = hand_setup(self.spec, hand, dealer, self.seating, attempt)
        players = [self._make_player(setup, name) for name in setup.players]
        if self.seating is None:
            return Table(players)
        return Table([p.sign_with(self.identities[p.name], self.seating) for p in players], STEP_TIMEOUTS)

    def write_transcript(self, document: Mapping[str, Any], path: Path) -> str:
        return write_transcript(document, path)

    def finish(self, hand: int, record: Mapping[str, Any] | None = None, plays: Plays | None = None) -> dict[str, Any]:
        """Play the record's steps (or, without a record, just reveal) and return the transcript; ``plays`` are
        the engine's seat-tagged cards of each trick (read from the record's replay when not given)."""
        if self._hand is None or self._hand[0] != hand:
            raise ProtocolError(f"mental poker: hand {hand} is not the hand in progress")
        _, dealer, table = self._hand
        replayed = engine_hand(record, self.spec.convention, len(self.spec.players)) if record else None
        if record and plays is None:
            if replayed is None:
                raise ProtocolError(
                    f"mental poker: hand {hand}: the game record does not replay, so its cards have no seats"
                )
            plays = [trick.plays for trick in replayed.tricks]
        dummy = self.spec.pattern.dummy_hand is not None
        laid_open = hands_laid_open(replayed, self.spec.players)
        events = expected_events(record, self.spec.players, plays, dummy, laid_open) if record else [("reveal",)]
        discards = {
            name: [parse_card(c).code for c in cards]
            for name, cards in discards_of(record or {}, self.spec.players).items()
        }
        with self._ending(hand), self._abandoning(record), self._refusing(record):
            play_out(table, events, discards)
        doc = self.document(hand, dealer, table.messages, record, self._assemble(table), self._statements(record))
        self._hand = None
        return doc

    def _statements(self, record: Mapping[str, Any] | None) -> list[dict[str, Any]] | None:
        """v4: every seated player signs the record after the hand; a dealt seat first checks that the record's
        cards are the ones the messages proved, and signs a refusal if they are not."""
        if self.seating is None or record is None or self._hand is None:
            return None
        hand, _, table = self._hand
        head = table.players[0].state.head
        statements = []
        for name in self.spec.players:
            seat = next((p for p in table.players if p.name == name), None)
            refusal = seat.record_refusal(record) if seat is not None else None
            statements.append(sign_record(self.identities[name], self.seating, hand, record, head, refusal))
        return statements

    def close_session(self, amounts: Sequence[Any]) -> dict[str, Any] | None:
        """v4: the settlement put to every seated player (after an end, every player but the charged) when the
        session closes (``None`` in v3). Each checks it against the hands it signed and the end the stopped hand
        proves, and signs it or signs a refusal (``refusals``: the players who did)."""
        # Imported here: the verifier's checks import this module.
        from fairdeal.protocols.mental_poker.settling import settlement_objection

        if self.seating is None:
            return None
        charged = [] if self.end is None else self.end["charged"]
        complete = [doc for doc in self.transcripts if doc["state"] == COMPLETE]
        stopped = self.transcripts[-1] if self.end is not None else None
        proposal = settlement_proposal(self.seating, len(complete), self._previous or "", amounts, self.end)
        statements, self.refusals = [], []
        for name in self.spec.players:
            if name in charged:
                continue
            objection = settlement_objection(self.spec.convention, self.spec.players, complete, stopped, proposal)
            statements.append(sign_settlement(self.identities[name], self.seating, proposal, objection))
            if objection is not None:
                self.refusals.append(name)
        return settlement_document(statements, self.seating)

    def signed_settlement(self, amounts: Sequence[Any]) -> dict[str, Any] | None:
        """The settlement every seat asked signed (``close_session``); ``SettlementRefused`` if one refused it, as
        a commit-reveal seat's refusal stops its source's ``close``: the evening did not settle."""
        doc = self.close_session(amounts)
        if doc is None or not self.refusals:
            return doc
        assert self.seating is not None  # v4: the only version with a settlement
        reasons = [
            f"player {self.seating.names[envelope.sender]} refused the settlement: {envelope.body.get('reason')}"
            for envelope in map(signed.parse, doc["statements"])
            if envelope.body.get("agrees") is False
        ]
        raise SettlementRefused("; ".join(reasons), doc)

    @contextmanager
    def _ending(self, hand: int) -> Iterator[None]:
        """v4: a hand that stops for good (abandoned during play or after the last attempt, or refused) ends the
        evening: the party at fault — the player the witnessed abandon names, or for a refusal the signer of the
        refused message (no one on the sheet when nobody signed it) — is charged the convention's abort
        penalty."""
        try:
            yield
        except (HandAbandoned, HandRefused) as stopped:
            if self.seating is None or self._hand is not None:  # v3, or an opening dealt again
                raise
            charged = _at_fault(stopped, self.spec.players)
            self.end = {"hand": hand, "charged": charged}
            penalty = tuple(
                line
                for name in charged
                for line in abort_penalty(self.spec.convention, self._seat(name), len(self.spec.players))
            )
            if isinstance(stopped, HandAbandoned):
                raise AbandonedEnd(stopped, penalty) from None
            raise RefusedEnd(stopped, penalty) from None

    @contextmanager
    def _abandoning(self, record: Mapping[str, Any] | None = None, final: bool = True) -> Iterator[None]:
        """On a final ``HandAbandoned`` keep the abandoned hand's transcript (``self.transcripts``), then
        re-raise."""
        try:
            yield
        except HandAbandoned as abandoned:
            if final:
                assert self._hand is not None  # set before any step that can be abandoned
                hand, dealer, _ = self._hand
                self.document(hand, dealer, abandoned.messages, record, None)
                self._hand = None
            raise

    @contextmanager
    def _refusing(self, record: Mapping[str, Any] | None = None) -> Iterator[None]:
        """On ``HandRefused`` (v4) file the hand's transcript with the refused message and the honest seat's
        signed refusal (state ``refused``), then re-raise: the hand stops there."""
        try:
            yield
        except HandRefused as refused:
            if self.seating is not None and refused.refusal is not None and self._hand is not None:
                hand, dealer, _ = self._hand
                filed = {"shown": refused.shown, "statement": refused.refusal}
                self.document(hand, dealer, refused.messages, record, None, refusal=filed)
                self._hand = None
            raise

    def document(
        self,
        hand: int,
        dealer: int,
        messages: Sequence[Mapping[str, Any]],
        record: Mapping[str, Any] | None,
        order: np.ndarray | None,
        statements: list[dict[str, Any]] | None = None,
        refusal: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The transcript of one hand (``order`` is None for an abandoned or refused hand); hands are chained by
        ``previous``."""
        doc = transcript_document(
            self.spec,
            self.seating,
            hand,
            dealer,
            messages,
            record,
            order,
            self._previous,
            {"attempt": self._attempt, "aborts": self._aborts, "statements": statements, "refusal": refusal},
        )
        self._previous = transcript_hash(doc)
        self.transcripts.append(doc)
        return doc

    def _assemble(self, table: Table) -> np.ndarray:
        """The deck order for the engine host: every player's own cards, and the talon from the raw shares."""
        setup = table.players[0].setup
        order = np.zeros(setup.size, dtype=np.uint8)
        for player in table.players:
            for position, card in zip(setup.hand_positions(player.name), player.hand()):
                order[position] = card
        shares = [player.hidden_share_points() for player in table.players]
        deck = table.players[0].state.deck
        for position in setup.talon_positions + setup.dummy_positions + setup.aside_positions:
            try:
                order[position] = decrypt(deck[position], [s[position] for s in shares])
            except MentalPokerError as error:
                raise ProtocolError(f"mental poker: the talon or dummy does not decrypt: {error}") from None
        return order
