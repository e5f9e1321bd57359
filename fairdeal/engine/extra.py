"""The state a family's own mechanics keep in a hand: one frozen value per family, in ``HandState.extra``.

The common state (``fairdeal.engine.state``) holds what every system's hand has: the deal, the auction, the
contract, the defence and the tricks. What only one family's phases read and write lives here, typed, so that a
family's mechanic adds fields to its own value and no other family's hand carries them. Each value says what of
it the hand's outcome and its log record report (``outcome_facts``, ``record_fields``), so the machine's
``result`` and the log writer never name a family's field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fairdeal.cards import to_ascii_list
from fairdeal.errors import IllegalAction

# Nachgehen: (seat, took the discard, his own discard, the contract he named); "" while not named yet.
FollowStep = tuple[int, bool, tuple[int, ...], str]


@dataclass(frozen=True)
class FamilyState:
    """A family without state of its own (the 19th-century book)."""

    def outcome_facts(self) -> tuple[tuple[str, object], ...]:
        """What scoring needs of this family's state, as ``HandOutcome.extras`` entries."""
        return ()

    def record_fields(self, invitation_asked: bool) -> dict[str, Any]:
        """This family's entries of the log record's ``extras`` (``invitation_asked``: the lone whister was asked
        whether to invite)."""
        return {}

    def whister_invited(self) -> bool:
        """Whether the lone whister brought in help of the kind this family has (a talon, the passer)."""
        return False

    def logged_discard(self, discard: tuple[int, ...]) -> tuple[int, ...]:
        """The discard the log's ``discard`` field names, given the one lying now."""
        return discard


@dataclass(frozen=True)
class RussianState(FamilyState):
    """Classic's and the Codex's calls in the dark (003, 002) and Hussar's whist with one's own talon (001)."""

    dark_passers: frozenset[int] = frozenset()  # seats that passed in the dark
    dark_pass_rounds: int = 0  # dark passes that set or raised the floor (Codex: 7, then 8)
    whist_talon: int | None = None  # the talon the whister took («с приглашением своей прикупки»)
    defence_discard: tuple[int, ...] = ()  # the whister's two cards put away after taking his talon

    def outcome_facts(self) -> tuple[tuple[str, object], ...]:
        if not self.dark_passers:
            return ()
        return (("dark_passers", tuple(sorted(self.dark_passers))), ("dark_pass_rounds", self.dark_pass_rounds))

    def record_fields(self, invitation_asked: bool) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        if self.whist_talon is not None:
            fields["whist_talon"] = self.whist_talon
        if self.defence_discard:
            fields["defence_discard"] = to_ascii_list(self.defence_discard)
        return fields

    def whister_invited(self) -> bool:
        return self.whist_talon is not None


@dataclass(frozen=True)
class CentralState(FamilyState):
    """Austrian and Croatian (003): the invitation, the kontra chain, the no-aces announcement, Nachgehen."""

    invited: bool = False  # the lone whister invited the passer («пригласить второго»)
    kontra: tuple[tuple[int, int], ...] = ()  # (defender, doublings) of the kontra chain
    kontra_calls: tuple[tuple[int, str], ...] = ()  # the chain's calls in order: kontra, rekontra, ..., pass
    kontra_queue: tuple[int, ...] = ()  # seats still to call in this round of the chain
    kontra_round: int = 0  # 1 = defenders may kontra, 2 = declarer may rekontra, ...
    no_aces: bool | None = None  # Austrian: the declarer's announcement (None = not asked)
    follow_queue: tuple[int, ...] = ()  # Nachgehen: bidders still to take the discard or pass
    follow_steps: tuple[FollowStep, ...] = ()
    winner_discard: tuple[int, ...] = ()  # Nachgehen: the auction winner's discard («Ich liege»)

    def outcome_facts(self) -> tuple[tuple[str, object], ...]:
        facts: list[tuple[str, object]] = []
        if self.kontra:
            facts.append(("kontra", self.kontra))
        if self.no_aces:
            facts.append(("no_aces", True))
        return tuple(facts)

    def record_fields(self, invitation_asked: bool) -> dict[str, Any]:
        fields: dict[str, Any] = {}
        if invitation_asked:
            fields["invited"] = self.invited
        if self.kontra_calls:
            fields["kontra"] = [{"seat": s, "call": c} for s, c in self.kontra_calls]
        if self.no_aces is not None:
            fields["no_aces"] = self.no_aces
        if self.follow_steps:
            fields["nachgehen"] = [_follow_record(step) for step in self.follow_steps]
        return fields

    def whister_invited(self) -> bool:
        return self.invited

    def logged_discard(self, discard: tuple[int, ...]) -> tuple[int, ...]:
        return self.winner_discard or discard


NO_FAMILY_STATE = FamilyState()


def _follow_record(step: FollowStep) -> dict[str, Any]:
    seat, took, discard, contract = step
    entry: dict[str, Any] = {"seat": seat, "take": took}
    if took and contract:
        entry.update(discard=to_ascii_list(discard), contract=contract)
    return entry


def russian(extra: FamilyState) -> RussianState:
    """``extra`` as the Russian family's state; a hand of another family has none (a phase table mixing
    families is refused here)."""
    if not isinstance(extra, RussianState):
        raise IllegalAction(f"this phase belongs to the Russian family's mechanics, not to a hand keeping {extra}")
    return extra


def central(extra: FamilyState) -> CentralState:
    """``extra`` as the Central-European family's state."""
    if not isinstance(extra, CentralState):
        raise IllegalAction(f"this phase belongs to the Central-European mechanics, not to a hand keeping {extra}")
    return extra
