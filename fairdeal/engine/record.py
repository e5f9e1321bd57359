"""A hand as the game log's hand-line fields, and the replay of such a record through the state machine.

The replay *is* the engine: every recorded action goes through ``apply``, so an illegal record fails with the
rule that forbids it, and the fields the log states but the engine derives (trick winners, talon shown, result)
are checked against the replay.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

from fairdeal.cards import codes_from_ascii, to_ascii_list
from fairdeal.deal import get_pattern, seats_of_hands
from fairdeal.engine.actions import (
    Action,
    Announce,
    Bid,
    ChooseOpen,
    Concede,
    Declare,
    Defend,
    Discard,
    Follow,
    Invite,
    Kontra,
    Phase,
    Play,
    TakeTalon,
)
from fairdeal.engine.hand import apply, start_hand, to_move
from fairdeal.engine.outcome import DefenceCall, HandKind
from fairdeal.engine.state import HandState, Trick
from fairdeal.errors import CardError, FairdealError, IllegalAction, one_line

if TYPE_CHECKING:
    from fairdeal.rules.convention import Convention


def to_record(state: HandState) -> dict[str, Any]:
    """The hand-line fields (log vocabulary) of everything that has happened in ``state`` so far."""
    aside = [to_ascii_list(state.aside)] if state.aside else []
    record: dict[str, Any] = {
        "dealer": state.dealer,
        "deal": {
            "hands": [to_ascii_list(h) for h in state.dealt_hands] + aside,
            "talons": [to_ascii_list(t) for t in state.dealt_talons],
        },
        "auction": [{"seat": s, "bid": t} for s, t in state.auction],
        "talon_shown": state.talon_shown,
    }
    if state.discard:  # raspasy and no-talon games put nothing away; the log's discard is exactly two cards
        record["discard"] = to_ascii_list(state.extra.logged_discard(state.discard))
    if state.declarer is not None and (state.contract is not None or state.conceded):
        bid = state.contract if state.contract is not None else state.final_bid
        assert bid is not None  # a conceded hand's auction ended on a final bid
        record["contract"] = {"declarer": state.declarer, "bid": bid.token}
    record["defence"] = [{"seat": s, "call": c.value} for s, c in state.defence]
    record["defence_open"] = state.defence_open
    record["tricks"] = [_trick_record(t) for t in state.tricks]
    if state.phase is Phase.DONE:
        assert state.kind is not None  # a finished hand has its kind
        record["result"] = {"kind": state.kind.value, "tricks": list(state.won)}
    record["extras"] = _extras(state)
    return record


def _trick_record(trick: Trick) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "lead": trick.lead,
        "cards": to_ascii_list([c for _, c in trick.plays]),
        "winner": trick.winner,
    }
    if trick.talon_card is not None:
        entry["talon_card"] = to_ascii_list([trick.talon_card])[0]
    return entry


def _extras(state: HandState) -> dict[str, Any]:
    extras: dict[str, Any] = {"raspasy_streak": state.raspasy_streak}
    if state.conceded:
        extras["conceded"] = True
    if state.talon_won:
        extras["talon_tricks"] = state.talon_won
    if state.opening_round:
        extras["opening_round"] = state.opening_round
    if state.talon_bought is not None:
        extras["talon_bought"] = state.talon_bought
    if state.refe_seats:
        extras["refe"] = sorted(state.refe_seats)
    extras.update(state.extra.record_fields(_invitation_asked(state)))  # a Russian hand has no refe: order kept
    return extras


def _invitation_asked(state: HandState) -> bool:
    whists = [s for s, c in state.defence if c is DefenceCall.WHIST]
    return state.convention.defence.lone_whister_invites and len(whists) == 1 and len(state.defence) > 1


def replay_record(
    record: Mapping[str, Any], convention: Convention, num_seats: int, trail: list[Action] | None = None
) -> HandState:
    """Rebuild a hand from its record's deal and actions; raises ``IllegalAction`` naming hand, trick and field.
    ``trail``, when given, receives every action applied, in order.

    A record may come from a transcript no schema has checked: a value of any type or size ends as one short
    ``IllegalAction``, never as another exception."""
    try:
        return _replay(record, convention, num_seats, [] if trail is None else trail)
    except IllegalAction as exc:
        raise IllegalAction(one_line(str(exc), _MESSAGE_CHARS)) from None
    except (KeyError, TypeError, ValueError, OverflowError, AttributeError, IndexError) as exc:
        where = f"hand {record.get('hand', '?')}"
        raise IllegalAction(one_line(f"{where}: malformed record ({exc!r})", _MESSAGE_CHARS)) from None


_MESSAGE_CHARS = 300


def _replay(record: Mapping[str, Any], convention: Convention, num_seats: int, trail: list[Action]) -> HandState:
    where = f"hand {record.get('hand', '?')}"
    state: HandState = _guard(where, "deal", lambda: _initial_state(record, convention, num_seats))
    # The lambdas bind the loop variables by default arguments, which mypy cannot type (hence the ignores).
    for index, entry in enumerate(_field(record, "auction", where)):
        bid = f"{where}, auction entry {index + 1}"
        state = _step(trail, state, bid, lambda e=entry: Bid(int(e["seat"]), str(e["bid"])))  # type: ignore[misc]
    if state.phase is Phase.TALON:  # the dark six kept: the talon is taken (a switch is an auction entry)
        state = _step(trail, state, f"{where}, field auction", lambda: TakeTalon(_declarer(state)))
    if state.phase is Phase.DISCARD:
        state = _step(
            trail,
            state,
            f"{where}, field discard",
            lambda: Discard(_declarer(state), _cards(record.get("discard", []))),
        )
    for index, entry in enumerate(record.get("extras", {}).get("nachgehen", [])):
        state = _replay_follow(trail, state, entry, f"{where}, extras.nachgehen entry {index + 1}")
    if state.phase is Phase.CONTRACT:
        state = _step(trail, state, f"{where}, field contract", lambda: _contract_action(record, state))
    for index, entry in enumerate(record.get("defence", [])):
        state = _step(
            trail,
            state,
            f"{where}, defence entry {index + 1}",
            lambda e=entry: Defend(int(e["seat"]), DefenceCall(e["call"])),  # type: ignore[misc]
        )
    if state.phase is Phase.DEFENCE_DISCARD:
        state = _step(
            trail,
            state,
            f"{where}, extras.defence_discard",
            lambda: Discard(state.turn, _cards(record["extras"]["defence_discard"])),
        )
    if state.phase is Phase.OPEN_CHOICE:
        state = _step(
            trail, state, f"{where}, field defence_open", lambda: ChooseOpen(state.turn, bool(record["defence_open"]))
        )
    if state.phase is Phase.INVITE:
        state = _step(
            trail, state, f"{where}, extras.invited", lambda: Invite(state.turn, bool(record["extras"]["invited"]))
        )
    for index, entry in enumerate(record.get("extras", {}).get("kontra", [])):
        state = _step(
            trail,
            state,
            f"{where}, extras.kontra entry {index + 1}",
            lambda e=entry: Kontra(int(e["seat"]), str(e["call"]) != "pass"),  # type: ignore[misc]
        )
    if state.phase is Phase.ANNOUNCE:
        state = _step(
            trail, state, f"{where}, extras.no_aces", lambda: Announce(state.turn, bool(record["extras"]["no_aces"]))
        )
    for number, trick in enumerate(record.get("tricks", []), start=1):
        state = _replay_trick(trail, state, trick, f"{where}, trick {number}")
    _check_derived(state, record, where)
    return state


def _declarer(state: HandState) -> int:
    assert state.declarer is not None  # the auction's winner, set before the talon and the discard
    return state.declarer


def _replay_follow(trail: list[Action], state: HandState, entry: Mapping[str, Any], where: str) -> HandState:
    """One Nachgehen step: the follower takes the discard, puts two away and names his contract — or passes."""
    state = _step(trail, state, where, lambda: Follow(int(entry["seat"]), bool(entry["take"])))
    if bool(entry["take"]):
        state = _step(
            trail,
            state,
            f"{where}, discard",
            lambda: Discard(int(entry["seat"]), _cards(entry["discard"])),
        )
        state = _step(trail, state, f"{where}, contract", lambda: Declare(int(entry["seat"]), str(entry["contract"])))
    return state


def _field(record: Mapping[str, Any], name: str, where: str) -> Any:
    if name not in record:
        raise IllegalAction(f"{where}: field {name} is missing")
    return record[name]


def _guard(where: str, field: str, make: Callable[[], Any]) -> Any:
    try:
        return make()
    except IllegalAction as exc:
        raise IllegalAction(f"{where}, field {field}: {exc}") from None
    except KeyError as exc:
        raise IllegalAction(f"{where}, field {field}: {exc.args[0] if exc.args else field} is missing") from None
    except (FairdealError, TypeError, ValueError, OverflowError) as exc:
        raise IllegalAction(f"{where}, field {field}: malformed ({one_line(repr(exc), 200)})") from None


def _step(trail: list[Action], state: HandState, where: str, make: Callable[[], Any]) -> HandState:
    try:
        action = make()
    except (FairdealError, KeyError, TypeError, ValueError, OverflowError) as exc:
        raise IllegalAction(f"{where}: malformed ({one_line(repr(exc), 200)})") from None
    try:
        after = apply(state, action)
    except IllegalAction as exc:
        raise IllegalAction(f"{where}: {exc}") from None
    trail.append(action)
    return after


def _cards(items: Iterable[str]) -> tuple[int, ...]:
    try:
        return codes_from_ascii(items)
    except CardError as exc:
        raise IllegalAction(str(exc)) from None


def _initial_state(record: Mapping[str, Any], convention: Convention, num_seats: int) -> HandState:
    dealer = int(record["dealer"])
    deal = record["deal"]
    seat_hands = deal["hands"]
    pattern = get_pattern(convention.table.pattern_name(num_seats))
    if len(seat_hands) != num_seats + pattern.seat_lists:
        extra = " and the dummy" if pattern.dummy_hand is not None else " and the hand laid aside"
        raise IllegalAction(
            f"the deal lists {len(seat_hands)} hands for a table of {num_seats}" + (extra if pattern.seat_lists else "")
        )
    holders = [num_seats if s is None else s for s in seats_of_hands(pattern, dealer, num_seats)]
    if any(seat_hands[s] for s in range(num_seats) if s not in holders):
        raise IllegalAction(
            f"with seat {dealer} dealing, the seats that sit out at {num_seats} players are dealt no hand"
        )
    hands = tuple(_cards(seat_hands[s]) for s in holders)
    talons = tuple(_cards(t) for t in deal["talons"])
    extras = record.get("extras", {})
    streak = int(extras.get("raspasy_streak", 0))
    return start_hand(
        convention,
        num_seats,
        dealer,
        hands,
        talons,
        streak,
        int(extras.get("opening_round", 0)),
        frozenset(int(s) for s in extras.get("refe", ())),
    )


def _contract_action(record: Mapping[str, Any], state: HandState) -> Action:
    contract = record["contract"]
    if int(contract["declarer"]) != state.declarer:
        raise IllegalAction(f"the auction's winner is seat {state.declarer}, not {contract['declarer']}")
    if record.get("extras", {}).get("conceded"):
        return Concede(state.declarer)
    return Declare(state.declarer, str(contract["bid"]))


def _replay_trick(trail: list[Action], state: HandState, trick: Mapping[str, Any], where: str) -> HandState:
    if state.phase is not Phase.PLAY:
        raise IllegalAction(f"{where}: no trick play in this hand at this point (phase {state.phase.value})")
    if int(trick.get("lead", -1)) != state.turn:
        raise IllegalAction(f"{where}, field lead: seat {state.turn} leads, not {trick.get('lead')}")
    cards = _guard(where, "cards", lambda: _cards(trick["cards"]))
    for position, card in enumerate(cards, start=1):  # default arguments bind the loop variables (mypy: ignore)
        seat = state.turn
        at = f"{where}, card {position}"
        state = _step(trail, state, at, lambda s=seat, c=card, now=state: Play(s, c, to_move(now)))  # type: ignore[misc]
    if state.current:
        raise IllegalAction(f"{where}, field cards: the trick holds {len(cards)} cards, not {len(state.active)}")
    last = state.tricks[-1]
    if int(trick.get("winner", -1)) != last.winner:
        raise IllegalAction(f"{where}, field winner: the trick goes to seat {last.winner}, not {trick.get('winner')}")
    recorded_talon = trick.get("talon_card")
    actual_talon = None if last.talon_card is None else to_ascii_list([last.talon_card])[0]
    if recorded_talon != actual_talon:
        raise IllegalAction(f"{where}, field talon_card: the talon card is {actual_talon}, not {recorded_talon}")
    return state


def _check_derived(state: HandState, record: Mapping[str, Any], where: str) -> None:
    if bool(record.get("talon_shown", False)) != state.talon_shown:
        raise IllegalAction(f"{where}, field talon_shown: the talon was {'' if state.talon_shown else 'not '}shown")
    if (
        state.kind is not HandKind.RASPASY
        and "defence_open" in record
        and state.phase is Phase.DONE
        and bool(record["defence_open"]) != state.defence_open
    ):
        raise IllegalAction(f"{where}, field defence_open: the replay gives {state.defence_open}")
    if "result" not in record:
        return
    if state.phase is not Phase.DONE:
        raise IllegalAction(
            f"{where}, field result: the recorded actions do not finish the hand (phase {state.phase.value})"
        )
    assert state.kind is not None  # a finished hand has its kind
    result = record["result"]
    if result.get("kind") != state.kind.value or list(result.get("tricks", [])) != list(state.won):
        raise IllegalAction(
            f"{where}, field result: the replay gives {state.kind.value} with tricks "
            f"{list(state.won)}, the record says {result.get('kind')} {result.get('tricks')}"
        )
