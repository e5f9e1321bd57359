"""One mentally dealt hand as a public state machine, advanced by one verified message at a time.

Fixed opening: ``keys``, ``shuffle``, ``deal`` from every player in turn. Then the steps the game calls for, in
the order it calls for them: ``talon`` (opened publicly), ``take`` (the talon passed unseen to the declarer),
``turn`` (one raspasy talon card turned), ``discard`` (the declarer's commitment), ``dummy`` (Gusarik's dummy laid
open), ``open`` (a player's hand laid face up: his shares of the cards he holds), ``play`` (a card proven to come
from the sender's holdings), ``reveal`` (every share not yet published), ``discard-open``; or ``abandon``. From
v4 a seat's game decision may be a signed ``decide`` wherever the protocol fixes no sender between the deal and the
reveal: the protocol keeps it in order; what it means is the game's to judge.
Every message carries ``prev``, the hash of the message before it, so a verifier stops at the first change.
``HandState`` checks who may send what when and verifies every proof; each failure names the sender and step.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from fairdeal.deal import DealPattern
from fairdeal.errors import FairdealError, MentalPokerError
from fairdeal.protocols.encoding import canonical_json, frame
from fairdeal.protocols.mental_poker.elgamal import (
    DecryptionShares,
    KeyShare,
    add_decryption_share_equations,
    check_key_share,
    decrypt,
    joint_key,
    open_deck,
    verify_decryption_shares,
)
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import DOMAIN, Combination, Point, blame, point_sum, validate
from fairdeal.protocols.mental_poker.messages import (
    Message,
    check_fields,
    read_abandon,
    read_decision,
    read_discard,
    read_discard_open,
    read_key,
    read_recipient,
    read_shares,
    read_shuffle,
    read_single_share,
    read_talon_index,
    sender,
)
from fairdeal.protocols.mental_poker.shuffle import Deck, ShuffleClaim, add_shuffle_equations, verify_shuffles
from fairdeal.protocols.mental_poker.steps import DECIDE, GAME_CALLED, OPENING, ROUNDS, STEPS


@dataclass(frozen=True)
class TableSetup:
    """Who plays (``players[i]`` receives the pattern's ``player_hands[i]``), how the cards fall, and the hand."""

    context: HandContext
    pattern: DealPattern
    players: tuple[str, ...]
    version: int = 3  # 4: messages are signed and an abandon must name the player the hand waits for

    def __post_init__(self) -> None:
        if len(set(self.players)) != len(self.players):
            raise MentalPokerError(f"player names must be distinct: {self.players}")
        if len(self.players) != len(self.pattern.player_hands):
            raise MentalPokerError(
                f"pattern {self.pattern.name} deals to {len(self.pattern.player_hands)} players, "
                f"got {len(self.players)}"
            )

    def hand_positions(self, player: str) -> tuple[int, ...]:
        """Deck positions of ``player``'s cards, in the order received."""
        hand = self.pattern.player_hands[self.players.index(player)]
        return tuple(int(p) for p in self.pattern.hand_positions[hand])

    def deal_positions(self, player: str) -> tuple[int, ...]:
        """Positions ``player`` opens for the others at the deal: every other player's cards."""
        return tuple(sorted(p for other in self.players if other != player for p in self.hand_positions(other)))

    @property
    def talon_positions(self) -> tuple[int, ...]:
        """Every talon's positions (Hussar's two talons one after the other)."""
        return tuple(int(p) for row in self.pattern.talon_positions for p in row)

    @property
    def talon_rows(self) -> tuple[tuple[int, ...], ...]:
        """The positions of each talon."""
        return tuple(tuple(int(p) for p in row) for row in self.pattern.talon_positions)

    @property
    def dummy_positions(self) -> tuple[int, ...]:
        """Gusarik's dummy: a hand dealt to nobody, hidden from every player until it is laid open."""
        hand = self.pattern.dummy_hand
        return () if hand is None else tuple(int(p) for p in self.pattern.hand_positions[hand])

    @property
    def aside_positions(self) -> tuple[int, ...]:
        """The 19th-century table of two: the third hand laid aside, opened by nobody until the final reveal."""
        hand = self.pattern.aside_hand
        return () if hand is None else tuple(int(p) for p in self.pattern.hand_positions[hand])

    @property
    def size(self) -> int:
        return self.pattern.deck.size

    def schedule(self) -> list[tuple[str, str]]:
        """The fixed opening: (step, player) pairs every hand begins with."""
        return [(step, player) for step in OPENING for player in self.players]

    def genesis(self) -> str:
        """The ``prev`` of the first message: binds the chain to this table, hand, roster and pattern."""
        data = frame(DOMAIN + b"chain", self.context.encode(), canonical_json(list(self.players)), self.pattern.name)
        return hashlib.sha256(data).hexdigest()


def message_hash(message: Message) -> str:
    return hashlib.sha256(canonical_json(message)).hexdigest()


def witness_of(players: Sequence[str], absent: str) -> str:
    """Who signs that ``absent`` stopped answering: the next player of the hand in table order."""
    return players[(players.index(absent) + 1) % len(players)]


def discard_commitment(context: HandContext, player: str, positions: Sequence[int], nonce: bytes) -> bytes:
    """The hiding, binding commitment to the two discarded positions (SHA-512 of framed inputs, first 32 bytes)."""
    encoded = b"".join(p.to_bytes(2, "big") for p in sorted(positions))
    return hashlib.sha512(frame(DOMAIN + b"discard", context.encode(), player, encoded, nonce)).digest()[:32]


class HandState:
    """The public state of one hand; ``apply`` raises ``MentalPokerError`` naming the sender and the step.

    With a ``batch``, proofs are not checked as they arrive but folded into it, and their points are validated
    only when it is evaluated: the observer's mode (``verify_hand``), where nothing is trusted before that."""

    def __init__(self, setup: TableSetup, batch: Combination | None = None):
        self.setup = setup
        self.batch = batch
        self.messages: list[Message] = []
        self.head = setup.genesis()
        self.key_shares: dict[str, KeyShare] = {}
        self.joint_key: Point | None = None
        self.deck: Deck = ()
        self.pending: list[ShuffleClaim] = []  # shuffles received, proofs checked once the round is complete
        self.shares: dict[int, dict[str, Point]] = {}
        self.round: tuple[str, list[str]] | None = None
        self.pending_talon: tuple[int, str | None] | None = None  # the talon (and recipient) of a round
        self.done: list[str] = []  # round steps completed, in order
        self.turned = 0  # talon positions turned one by one (raspasy)
        self.opened: set[int] = set()  # talons opened publicly
        self.taken: dict[int, str] = {}  # talons passed unseen, to whom
        self.holders: dict[int, str] = {}  # talons a player plays from, once he has committed his discard
        self.commitments: dict[str, bytes] = {}  # discard commitments, in the order made
        self.discards: dict[str, tuple[int, ...]] = {}  # discards opened after the reveal
        self.laid_open: dict[str, tuple[int, ...]] = {}  # the positions of each hand laid face up
        self.plays: list[tuple[str, int, int]] = []  # (player, position, card)
        self.decisions: list[tuple[str, dict[str, Any]]] = []  # (player, decision), signed in this order
        self.abandoned: tuple[str, str] | None = None  # (player who stopped answering, step)
        self.awaited_by_game = False  # the abandon named a step the game, not the protocol, left due
        self.cards: dict[tuple[bytes, ...], int] = {}  # decryptions made, by ciphertext and shares

    # ---- whose turn -------------------------------------------------------------------------------------------

    @property
    def expected(self) -> tuple[str, str] | None:
        """The (step, player) that must come next when the protocol fixes it; ``None`` when the game decides."""
        opening = self.setup.schedule()
        if len(self.messages) < len(opening):
            return opening[len(self.messages)]
        if self.round is not None:
            return self.round[0], self.round[1][0]
        if self.revealed:
            unopened = [player for player in self.commitments if player not in self.discards]
            return ("discard-open", unopened[0]) if unopened else None
        return None

    @property
    def dealt(self) -> bool:
        return len(self.messages) >= len(self.setup.schedule())

    @property
    def revealed(self) -> bool:
        return "reveal" in self.done

    @property
    def finished(self) -> bool:
        """Abandoned, or every share out and every committed discard opened."""
        return self.abandoned is not None or (self.revealed and len(self.discards) == len(self.commitments))

    @property
    def talon_public(self) -> bool:
        return bool(self.opened)

    def talon_closed(self, talon: int) -> bool:
        """Neither opened, nor passed to anybody, nor (the first talon) turned card by card."""
        return talon not in self.opened and talon not in self.taken and (talon != 0 or not self.turned)

    def waiting_talons(self, player: str) -> list[int]:
        """Talons ``player`` would hold by committing a discard now: those passed to him, and opened ones nobody
        holds yet."""
        return [
            t
            for t in range(len(self.setup.talon_rows))
            if t not in self.holders and (self.taken.get(t) == player or t in self.opened)
        ]

    @property
    def dummy_open(self) -> bool:
        return "dummy" in self.done

    # ---- apply ------------------------------------------------------------------------------------------------

    def apply(self, message: Message, check_proofs: bool = True, digest: str | None = None) -> None:
        """Verify ``message`` (proofs skipped for one's own) and add it; ``digest`` is what the next message's
        ``prev`` must be (v4: the signed envelope's digest; by default the hash of ``message``)."""
        player, step = sender(message)
        if step not in STEPS:
            raise MentalPokerError(f"unknown step {step!r}", player, step)
        if player not in self.setup.players:
            raise MentalPokerError("is not at this table", player, step)
        if self.finished:
            raise MentalPokerError("the hand is over; no message may follow", player, step)
        check_fields(message)
        if step == "abandon":
            self._apply_abandon(player, message)
        else:
            self._check_turn(player, step, message)
            getattr(self, "_apply_" + step.replace("-", "_"))(player, message, check_proofs)
            self._advance_round()
        if message.get("prev") != self.head:
            # Name a pending shuffle's cheat first: its message may be the one that does not belong here.
            if self.joint_key is not None:  # None only before the shuffles, when none is pending
                verify_shuffles(self.setup.context, self.joint_key, self.pending)
            raise MentalPokerError("'prev' is not the hash of the message before it", player, "chain")
        self.messages.append(message)
        self.head = digest if digest is not None else message_hash(message)

    def _check_turn(self, player: str, step: str, message: Message) -> None:
        expected = self.expected
        if expected is not None:
            if (step, player) != expected:
                raise MentalPokerError(f"message out of turn; expected {expected}", player, step)
            return
        if step in OPENING:
            raise MentalPokerError("the deal is over", player, step)
        if step in ROUNDS:
            self.round = (step, self._round_players(player, step, message))
            if self.round[1][0] != player:
                raise MentalPokerError(f"the {step} round starts with {self.round[1][0]}", player, step)
        elif self.revealed and step != "discard-open":
            raise MentalPokerError("every share is out; only the discard may still be opened", player, step)
        elif step == DECIDE and self.setup.version < 4:
            raise MentalPokerError("decisions are signed messages from version 4 on", player, step)

    def _round_players(self, player: str, step: str, message: Message) -> list[str]:
        players = list(self.setup.players)
        if step == "reveal" and not self.revealed:
            return players
        talon_left = self.turned < len(self.setup.talon_rows[0]) if self.setup.talon_rows else False
        if step == "turn" and 0 not in self.opened and 0 not in self.taken and talon_left:
            return players
        talon = read_talon_index(message, len(self.setup.talon_rows)) if step in ("talon", "take") else 0
        talon_closed = self.talon_closed(talon)
        if step == "talon" and talon_closed and not self.plays:
            self.pending_talon = (talon, None)
            return players
        if step == "dummy" and self.setup.dummy_positions and not self.dummy_open and not self.plays:
            return players
        if step == "take" and talon_closed and not self.plays:
            recipient = read_recipient(message)
            if recipient not in players:
                raise MentalPokerError(f"the talon goes to {recipient!r}, who is not at this table", player, step)
            self.pending_talon = (talon, recipient)
            return [p for p in players if p != recipient]
        raise MentalPokerError("this step is not allowed at this point of the hand", player, step)

    def _advance_round(self) -> None:
        if self.round is None:
            return
        step, left = self.round
        left.pop(0)
        if left:
            return
        self.round = None
        self.done.append(step)
        if step == "turn":
            self.turned += 1
        elif step == "talon":
            assert self.pending_talon is not None  # set when the round began
            self.opened.add(self.pending_talon[0])
        elif step == "take":
            assert self.pending_talon is not None  # set when the round began
            talon, recipient = self.pending_talon
            assert recipient is not None  # a take round names its recipient
            self.taken[talon] = recipient

    # ---- the opening --------------------------------------------------------------------------------------------

    def _apply_keys(self, player: str, message: Message, check_proofs: bool) -> None:
        share = read_key(message)
        if check_proofs:
            check_key_share(self.setup.context, share)
        self.key_shares[player] = share
        if len(self.key_shares) == len(self.setup.players):
            shares = [self.key_shares[p] for p in self.setup.players]
            self.joint_key = (
                joint_key(self.setup.context, shares, checked=True)
                if check_proofs
                else point_sum([s.public for s in shares])
            )
            self.deck = open_deck(self.setup.pattern.deck, self.joint_key)

    def _apply_shuffle(self, player: str, message: Message, check_proofs: bool) -> None:
        """Points are checked at once and the proofs together when the last shuffle is in, before any share is
        sent; an observer's batch takes the proofs and their points instead."""
        deck, proof = read_shuffle(message)
        assert self.joint_key is not None  # the schedule puts every key before the shuffles
        if check_proofs:
            claim = ShuffleClaim(player, self.deck, deck, proof)
            with blame(player, "shuffle"):
                if self.batch is not None:
                    add_shuffle_equations(self.setup.context, claim, self.joint_key, self.batch, validate_points=False)
                else:
                    validate([p for ct in deck for p in (ct.c1, ct.c2)], "output deck point")
                    self.pending.append(claim)
        self.deck = deck
        if len(self.messages) + 1 == 2 * len(self.setup.players):
            verify_shuffles(self.setup.context, self.joint_key, self.pending)
            self.pending = []

    def _apply_deal(self, player: str, message: Message, check_proofs: bool) -> None:
        self._apply_shares(player, message, self.setup.deal_positions(player), check_proofs)

    # ---- the talon ----------------------------------------------------------------------------------------------

    def _round_talon(self, player: str, step: str, message: Message) -> tuple[int, ...]:
        """The positions of the talon this round is about; every message of the round must name the same one."""
        assert self.pending_talon is not None  # set when the round began
        talon, recipient = self.pending_talon
        if read_talon_index(message, len(self.setup.talon_rows)) != talon:
            raise MentalPokerError(f"the round is about talon {talon}", player, step)
        if step == "take" and read_recipient(message) != recipient:
            raise MentalPokerError(f"the talon goes to {recipient}, not {read_recipient(message)}", player, step)
        return self.setup.talon_rows[talon]

    def _apply_talon(self, player: str, message: Message, check_proofs: bool) -> None:
        self._apply_shares(player, message, self._round_talon(player, "talon", message), check_proofs)

    def _apply_take(self, player: str, message: Message, check_proofs: bool) -> None:
        self._apply_shares(player, message, self._round_talon(player, "take", message), check_proofs)

    def _apply_dummy(self, player: str, message: Message, check_proofs: bool) -> None:
        self._apply_shares(player, message, self.setup.dummy_positions, check_proofs)

    def _apply_turn(self, player: str, message: Message, check_proofs: bool) -> None:
        self._apply_shares(player, message, (self.setup.talon_rows[0][self.turned],), check_proofs)

    def _apply_discard(self, player: str, message: Message, check_proofs: bool) -> None:
        if player in self.commitments or self.plays:
            raise MentalPokerError("a discard is committed once, before the first card is played", player, "discard")
        talons = self.waiting_talons(player)
        if not talons:
            raise MentalPokerError("only the player who took the talon discards", player, "discard")
        self.commitments[player] = read_discard(message)
        self.holders.update((talon, player) for talon in talons)

    # ---- play and the end ---------------------------------------------------------------------------------------

    def holdings(self, player: str) -> tuple[int, ...]:
        """Positions ``player`` may play from: his hand, plus the talon once he has taken it and discarded, plus
        the dummy once it lies open (whoever plays it for the table; the game record's replay says who must)."""
        talons = tuple(p for t, row in enumerate(self.setup.talon_rows) if self.holders.get(t) == player for p in row)
        dummy = self.setup.dummy_positions if self.dummy_open else ()
        return self.setup.hand_positions(player) + talons + dummy

    def _apply_play(self, player: str, message: Message, check_proofs: bool) -> None:
        shares = read_single_share(message)
        (position,), (share,) = shares.positions, shares.shares
        if position not in self.holdings(player):
            raise MentalPokerError(f"position {position} was not dealt to this player", player, "play")
        if any(position == p for _, p, _ in self.plays):
            raise MentalPokerError(f"position {position} was already played", player, "play")
        others = [p for p in self.setup.players if p != player]
        if any(other not in self.shares.get(position, {}) for other in others):
            raise MentalPokerError(f"position {position} lacks the other players' shares", player, "play")
        if check_proofs:
            self._check_shares(shares, "play")
        self.shares[position][player] = share
        with blame(player, "play"):
            self.plays.append((player, position, self.open_position(position)))

    def _apply_decide(self, player: str, message: Message, check_proofs: bool) -> None:
        self.decisions.append((player, read_decision(message)))

    def _apply_open(self, player: str, message: Message, check_proofs: bool) -> None:
        """A hand laid face up: its holder's shares of every card he holds now — his hand and the talon he plays
        from, less the cards played and the discard he committed (whose opening must then show none of these)."""
        if player in self.laid_open:
            raise MentalPokerError("has laid his hand open already", player, "open")
        shares = read_shares(message)
        talons = [p for t, row in enumerate(self.setup.talon_rows) if self.holders.get(t) == player for p in row]
        own = set(self.setup.hand_positions(player)) | set(talons)
        played = own & {p for _, p, _ in self.plays}
        count = self.setup.pattern.cards_per_hand - len(played)
        positions = set(shares.positions)
        if len(positions) != len(shares.positions) or not positions <= own - played or len(positions) != count:
            raise MentalPokerError(
                f"shares for positions {sorted(shares.positions)}, not the {count} unplayed cards of his",
                player,
                "open",
            )
        if check_proofs:
            self._check_shares(shares, "decrypt")
        for position, share in zip(shares.positions, shares.shares):
            self.shares.setdefault(position, {})[player] = share
        self.laid_open[player] = tuple(sorted(positions))

    def _apply_reveal(self, player: str, message: Message, check_proofs: bool) -> None:
        missing = [p for p in range(self.setup.size) if player not in self.shares.get(p, {})]
        self._apply_shares(player, message, missing, check_proofs)

    def _apply_discard_open(self, player: str, message: Message, check_proofs: bool) -> None:
        commitment = self.commitments.get(player)
        if commitment is None or player in self.discards or not self.revealed:
            raise MentalPokerError("opens no discard of his, or not after the reveal", player, "discard-open")
        positions, nonce = read_discard_open(message)
        # Two cards, or one where the rules exchange one (the 19th century's little poverty, «при относе одной карты»).
        distinct = len(set(positions)) == len(positions) in (1, 2)
        if not distinct or not all(0 <= p < self.setup.size for p in positions):
            raise MentalPokerError(
                f"a discard is one or two distinct deck positions, not {list(positions)}", player, "discard-open"
            )
        if discard_commitment(self.setup.context, player, positions, nonce) != commitment:
            raise MentalPokerError("the positions and nonce do not open the discard commitment", player, "discard-open")
        played = {p for _, p, _ in self.plays}
        if not set(positions) <= set(self.holdings(player)) or set(positions) & played:
            raise MentalPokerError(
                f"positions {list(positions)} are not two unplayed cards of his", player, "discard-open"
            )
        if set(positions) & set(self.laid_open.get(player, ())):
            raise MentalPokerError(
                f"positions {list(positions)} were laid open as cards he held", player, "discard-open"
            )
        self.discards[player] = tuple(positions)

    def _apply_abandon(self, player: str, message: Message) -> None:
        """``player`` did not send ``at``; a v4 abandon is the ``witness``'s signed statement, so its faults are
        his."""
        at = read_abandon(message)
        witness = message.get("witness", player) if self.setup.version >= 4 else player
        if self.setup.version >= 4 and (witness not in self.setup.players or witness == player):
            raise MentalPokerError("an abandon is signed by another player of the hand", str(witness), "abandon")
        expected = self.expected
        if expected is not None and (at, player) != expected:
            raise MentalPokerError(f"the hand waits for {expected}, not for {player} at {at}", witness, "abandon")
        if at not in STEPS or at == "abandon":
            raise MentalPokerError(f"{at!r} is not a step", witness, "abandon")
        if expected is None and self.setup.version >= 4 and (at not in GAME_CALLED or not self.dealt):
            # Outside the fixed steps only what the game calls for is awaited; whose it is, the game says.
            raise MentalPokerError(f"the hand waits for nobody's {at} here", witness, "abandon")
        self.abandoned, self.awaited_by_game = (player, at), expected is None
        self.round = None

    # ---- shares -------------------------------------------------------------------------------------------------

    def _apply_shares(self, player: str, message: Message, positions: Sequence[int], check_proofs: bool) -> None:
        step = sender(message)[1]
        shares = read_shares(message)
        if sorted(shares.positions) != sorted(positions):
            raise MentalPokerError(
                f"shares for positions {sorted(shares.positions)}, expected {sorted(positions)}", player, step
            )
        if check_proofs:
            self._check_shares(shares, "decrypt")
        for position, share in zip(shares.positions, shares.shares):
            self.shares.setdefault(position, {})[player] = share

    def _check_shares(self, shares: DecryptionShares, step: str) -> None:
        key = self.key_shares[shares.player]
        if self.batch is None:
            verify_decryption_shares(self.setup.context, key, self.deck, shares, step)
        else:
            with blame(shares.player, step):
                add_decryption_share_equations(self.setup.context, key, self.deck, shares, self.batch)

    def open_position(self, position: int, own_share: Point | None = None) -> int:
        """The card at ``position`` from the published shares (plus one's own, for one's own card)."""
        shares = dict(self.shares.get(position, {}))
        if own_share is not None:
            shares["self"] = own_share
        if len(shares) != len(self.setup.players):
            raise MentalPokerError(f"position {position} has {len(shares)} of {len(self.setup.players)} shares")
        # A verifier opens a played card again for the deck's order; keyed by every input, an entry holds in any
        # state, so snapshots share the memo.
        ciphertext = self.deck[position]
        key = (ciphertext.c2.data, *(share.data for share in shares.values()))
        card = self.cards.get(key)
        if card is None:
            card = self.cards[key] = decrypt(ciphertext, list(shares.values()))
        return card

    def talon(self) -> tuple[int, ...]:
        """The cards of the talons opened publicly."""
        return tuple(self.open_position(p) for t in sorted(self.opened) for p in self.setup.talon_rows[t])

    def snapshot(self) -> HandState:
        """An independent copy (messages and points are immutable and shared; the containers are copied)."""
        copy = object.__new__(HandState)
        copy.__dict__.update(self.__dict__)
        copy.messages, copy.done, copy.plays = list(self.messages), list(self.done), list(self.plays)
        copy.pending = list(self.pending)
        copy.key_shares = dict(self.key_shares)
        copy.shares = {position: dict(shares) for position, shares in self.shares.items()}
        copy.round = None if self.round is None else (self.round[0], list(self.round[1]))
        copy.opened, copy.taken, copy.holders = set(self.opened), dict(self.taken), dict(self.holders)
        copy.commitments, copy.discards = dict(self.commitments), dict(self.discards)
        copy.laid_open, copy.decisions = dict(self.laid_open), list(self.decisions)
        return copy

    def order(self) -> tuple[int, ...]:
        """The whole deck, top first, once every share is out."""
        return tuple(self.open_position(p) for p in range(self.setup.size))


@dataclass(frozen=True)
class VerifiedHand:
    """What a verifier without secrets learns: the proven final deck, and the cards opened by the steps."""

    joint_key: Point | None  # None for a hand abandoned before every key was in
    deck: Deck
    talon: tuple[int, ...] | None  # when opened publicly
    order: tuple[int, ...] | None  # the whole deck, when every share is out
    plays: tuple[tuple[str, int, int], ...]  # (player, position, card)
    discards: dict[str, tuple[int, ...]]  # each discarding player's cards, once opened
    abandoned: tuple[str, str] | None
    state: HandState


class Checkpoints:
    """States after each message of transcripts already verified, keyed by the chain head: a variant of a verified
    transcript resumes after its longest verified prefix, so checking many variants costs only their new suffixes.
    Sound because the head after k messages hashes all k messages (and the table, through the genesis)."""

    def __init__(self) -> None:
        self._states: dict[str, HandState] = {}

    def keep(self, state: HandState) -> None:
        self._states[state.head] = state.snapshot()

    def resume(
        self, setup: TableSetup, messages: Sequence[Message], digests: Sequence[str] | None = None
    ) -> tuple[HandState, int]:
        head, best = setup.genesis(), (HandState(setup), 0)
        for index, message in enumerate(messages):
            try:
                if message.get("prev") != head:
                    break
                head = digests[index] if digests is not None else message_hash(message)
            except (AttributeError, FairdealError):
                break
            if head in self._states:
                best = (self._states[head].snapshot(), index + 1)
        return best


def verify_hand(
    setup: TableSetup,
    messages: Sequence[Message],
    checkpoints: Checkpoints | None = None,
    digests: Sequence[str] | None = None,
    partial: bool = False,
) -> VerifiedHand:
    """Check a message list in order, stopping at the first failure (``MentalPokerError`` naming player and step);
    with ``partial`` the list may stop anywhere (a hand an honest seat refused to go on with).

    Without checkpoints, every proof of the hand is folded into one combination evaluated at the end (one
    multi-scalar multiplication, every distinct point decoded and validated once); if anything fails, the
    messages are checked again one at a time, so the error names the first failing message and step exactly as a
    listening player would. ``digests`` (v4) are the signed envelopes' digests the messages chain by."""
    if checkpoints is None:
        try:
            return _verify_from(HandState(setup, batch=Combination()), messages, 0, None, digests, partial)
        except MentalPokerError:
            pass
    state, start = checkpoints.resume(setup, messages, digests) if checkpoints else (HandState(setup), 0)
    return _verify_from(state, messages, start, checkpoints, digests, partial)


def _check_stop(state: HandState) -> None:
    """A hand's messages may stop only where a hand can end: dealt and not inside a round, or abandoned."""
    if not state.dealt and state.abandoned is None:
        raise MentalPokerError(
            f"the hand stops after {len(state.messages)} messages, before the deal is complete",
            step=state.expected[0] if state.expected else None,
        )
    if state.round is not None:
        assert state.expected is not None  # a round in progress names who is next
        raise MentalPokerError(f"the hand stops inside the {state.round[0]} round", *state.expected[::-1])


def _verify_from(
    state: HandState,
    messages: Sequence[Message],
    start: int,
    checkpoints: Checkpoints | None,
    digests: Sequence[str] | None = None,
    partial: bool = False,
) -> VerifiedHand:
    for index in range(start, len(messages)):
        state.apply(messages[index], digest=digests[index] if digests is not None else None)
        if checkpoints is not None:
            checkpoints.keep(state)
    if not partial:
        _check_stop(state)
    if state.batch is not None and not state.batch.is_identity():
        raise MentalPokerError("the proofs of the hand do not verify together")
    complete = state.revealed and state.abandoned is None
    return VerifiedHand(
        joint_key=state.joint_key,
        deck=state.deck,
        talon=state.talon() if state.talon_public else None,
        order=state.order() if complete else None,
        plays=tuple(state.plays),
        discards={
            player: tuple(state.open_position(p) for p in positions) for player, positions in state.discards.items()
        },
        abandoned=state.abandoned,
        state=state,
    )
