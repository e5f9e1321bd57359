"""The steps a game record calls for after the deal, and the record's checks against the steps a hand's messages
prove: the events in order, the raspasy talon cards turned, the discards opened, the decisions signed, the abort
penalty, and whose step an abandon during play left due (from the record, or following the chain's facts).
``verify.py`` and the offline page (``web/page_replay.py``, under Pyodide) both call these, so the page and
``fairdeal verify`` word every finding alike; nothing here needs numpy.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from fairdeal.cards import parse_card, to_ascii_list
from fairdeal.engine.actions import Action, Discard, Play, encode_action
from fairdeal.engine.public_hand import imputed_start
from fairdeal.engine.record import replay_record
from fairdeal.engine.rotation import dealer_of
from fairdeal.engine.scoring import abort_penalty
from fairdeal.engine.state import HandState
from fairdeal.errors import FairdealError, IllegalAction, ProtocolError, one_line
from fairdeal.protocols.mental_poker.following import Fact, Follower, PublicGame
from fairdeal.protocols.record_form import played_record
from fairdeal.rules.convention import Convention

if TYPE_CHECKING:
    from fairdeal.engine.deal_source import Plays  # numpy: for the types only

RECORD, TRANSCRIPT = "record", "transcript"
MAX_STREAK = 1000  # raspasy in a row a stated start may claim: more than a session can hold
# What a malformed record raises on its way through the engine's replay and the event list.
MALFORMED = (FairdealError, KeyError, TypeError, ValueError, AttributeError, IndexError)
Event = tuple[Any, ...]
LaidOpen = tuple[tuple[int, int, tuple[int, ...]], ...]  # (seat, cards played before, the cards held then)
Finding = tuple[str, str, str]  # (party, check, detail)


def engine_hand(record: Mapping[str, Any], convention: Convention, num_seats: int) -> HandState | None:
    """The hand as the engine replays the record, or ``None`` when the record does not replay."""
    try:
        return replay_record(record, convention, num_seats)
    except FairdealError:
        return None


def engine_plays(record: Mapping[str, Any], convention: Convention, num_seats: int) -> Plays | None:
    """Each trick's (seat, card) as the engine replays the record, or ``None`` when the record does not replay."""
    state = engine_hand(record, convention, num_seats)
    return None if state is None else [trick.plays for trick in state.tricks]


def hands_laid_open(state: HandState | None, players: Sequence[str]) -> LaidOpen:
    """The players' hands the replay lays face up: (seat, cards played before, the cards held then); Gusarik's
    dummy, nobody's, is opened by its own round."""
    return () if state is None else tuple(entry for entry in state.laid_open if entry[0] < len(players))


def expected_events(
    record: Mapping[str, Any],
    players: Sequence[str],
    plays: Plays | None,
    dummy: bool = False,
    laid_open: LaidOpen = (),
) -> list[Event]:
    """The protocol steps the game record calls for after the deal, in order (rounds as one event).

    ``plays`` are the engine's seat-tagged cards of each trick (a passer who sits out plays none; Gusarik's dummy
    is seat ``len(players)``, played by the declarer's opponent); ``players`` are the table's names by seat.
    Without ``plays`` (a record the engine cannot replay) a play names no player. With a ``dummy`` it is laid
    open before the first card when the defence plays open («вистовать и при этом открыть болвана») or when it
    plays at all (a misère caught from it): nobody chooses a card from a hand face down. Each hand ``laid_open`` (the
    engine's, ``hands_laid_open``) is opened by its holder when it is laid face up: before the first card, or
    after it.
    """
    if any(entry.get("take") for entry in record.get("extras", {}).get("nachgehen", [])):
        raise ProtocolError(
            "mental poker has no step yet for a Nachgehen follower taking the discard "
            "(protocols/mental-poker.md, 'Not covered')"
        )
    declarer = record.get("contract", {}).get("declarer")
    name = _name(players, declarer)
    opponent = next((p for p in players if p != name), None) if name is not None else None
    by_seat = list(players) + [opponent]
    extras = record.get("extras", {})
    bought = extras.get("talon_bought", 0)
    events: list[Event] = []
    if record.get("talon_shown"):
        events.append(("talon", bought))
    elif "discard" in record:
        events.append(("take", name, bought))
    if "discard" in record:
        events.append(("discard", name))
    whister = _whist_talon_taker(record, players)
    if whister is not None:  # «с приглашением своей прикупки»: the whister takes his own talon unseen
        events += [("take", whister, extras["whist_talon"]), ("discard", whister)]
    dummy_plays = plays is not None and any(seat == len(players) for trick in plays for seat, _ in trick)
    if dummy and (record.get("defence_open") or dummy_plays):
        events.append(("dummy",))
    played = 0
    for index, trick in enumerate(record.get("tricks", [])):
        if "talon_card" in trick:
            events.append(("turn",))
        cards = [(None, parse_card(card).code) for card in trick["cards"]] if plays is None else plays[index]
        for seat, card in cards:
            events += [("open", players[s]) for s, before, _ in laid_open if before == played]
            events.append(("play", None if seat is None else by_seat[seat], card))
            played += 1
    events.append(("reveal",))
    if "discard" in record:
        events.append(("discard-open", name))
    if whister is not None:
        events.append(("discard-open", whister))
    return events


def _name(players: Sequence[str], seat: Any) -> str | None:
    return players[seat] if isinstance(seat, int) and 0 <= seat < len(players) else None


def _whist_talon_taker(record: Mapping[str, Any], players: Sequence[str]) -> str | None:
    """The defender who whisted with his own talon and put two cards away (Hussar), if any."""
    if "whist_talon" not in record.get("extras", {}) or "defence_discard" not in record.get("extras", {}):
        return None
    calls = [entry.get("seat") for entry in record.get("defence", []) if entry.get("call") == "whist-talon"]
    return _name(players, calls[0]) if calls else None


def discards_of(record: Mapping[str, Any], players: Sequence[str]) -> dict[str, list[str]]:
    """Who put which two cards away, by the record: the declarer's discard and a talon whister's."""
    found = {}
    declarer = _name(players, record.get("contract", {}).get("declarer"))
    if isinstance(record.get("discard"), list) and declarer is not None:
        found[declarer] = list(record["discard"])
    whister = _whist_talon_taker(record, players)
    if whister is not None:
        found[whister] = list(record["extras"]["defence_discard"])
    return found


def _expected(record: Any, convention: Convention, players: Sequence[str], dummy: bool) -> list[Event] | Finding:
    """The record's events, or the finding that it is malformed."""
    try:
        state = engine_hand(record, convention, len(players))
        plays = None if state is None else [trick.plays for trick in state.tricks]
        return expected_events(record, players, plays, dummy, hands_laid_open(state, players))
    except MALFORMED as exc:
        return RECORD, "events", f"malformed record ({type(exc).__name__}: {exc})"


def record_findings(
    record: Any,
    convention: Convention,
    players: Sequence[str],
    dummy: bool,
    proven: Sequence[Event],
    turned: Sequence[int],
    discards: Mapping[str, Sequence[int]],
) -> list[Finding]:
    """A complete hand's record against its messages: ``proven`` are the post-deal steps the messages hold (each
    round one event, plays with their cards), ``turned`` the raspasy talon cards turned, ``discards`` each
    player's opened discard. The events in order first; only when they agree, the cards turned and put away.
    ``record`` is the transcript's, as signed. (A hand laid open is its holder's unplayed cards less his discard,
    which the protocol holds him to; with the deal, the events and the discard agreed, they are the record's.)"""
    if not isinstance(record, Mapping):
        return [(RECORD, "events", "the record is not a JSON object")]
    record = played_record(record)
    expected = _expected(record, convention, players, dummy)
    if not isinstance(expected, list):
        return [expected]
    for index, (want, got) in enumerate(zip(expected, proven)):
        if want != got and not (want[0] == got[0] == "play" and want[1] is None and want[2] == got[2]):
            detail = (
                f"step {index + 1} after the deal: the record calls for {_say(want)}, the messages prove {_say(got)}"
            )
            return [(RECORD, "events", detail)]
    if len(expected) != len(proven):
        detail = f"the record calls for {len(expected)} steps after the deal, the messages hold {len(proven)}"
        return [(RECORD, "events", detail)]
    found = []
    recorded = [t["talon_card"] for t in record.get("tricks", []) if "talon_card" in t]
    if to_ascii_list(turned) != recorded:
        found.append(
            (RECORD, "talon card", f"the turned talon cards are {to_ascii_list(turned)}, the record says {recorded}")
        )
    recorded_discards = discards_of(record, players)
    for player, cards in discards.items():
        said = recorded_discards.get(player, [])
        if not all(isinstance(card, str) for card in said) or sorted(to_ascii_list(cards)) != sorted(said):
            detail = (
                f"{player}'s opened discard is {to_ascii_list(cards)}, the record says {recorded_discards.get(player)}"
            )
            found.append((RECORD, "discard", detail))
    return found


def decision_findings(
    record: Any, convention: Convention, players: Sequence[str], decided: Sequence[tuple[str, Mapping[str, Any]]]
) -> list[Finding]:
    """v4: the record's decisions are the ones its seats signed, by the same seats, in the same order — every
    action its replay takes but the discards and the cards the messages prove (a card chosen from another's open
    hand is the chooser's decision), the no-aces announcement included; the declarer's word that he holds an ace
    is no action (the opened deal proves it). With the cards proven, that fixes the game. A transcript with no
    signed decision (the simulation's) leaves them to the record statements."""
    if not decided or not isinstance(record, Mapping):
        return []
    trail: list[Action] = []
    try:
        replay_record(played_record(record), convention, len(players), trail)
    except MALFORMED:
        return []  # the record's replay names its own fault
    made = [_decision(action, players) for action in trail if _is_decision(action, len(players))]
    signed = [_signed(player, decision, players) for player, decision in decided if decision != {"announce": None}]
    for index, (want, got) in enumerate(zip(made, signed)):
        if want != got:
            detail = f"decision {index + 1}: the record has {_word(want)}, the seats signed {_word(got)}"
            return [(RECORD, "decisions", detail)]
    if len(made) != len(signed):
        return [(RECORD, "decisions", f"the record has {len(made)} decisions, the seats signed {len(signed)}")]
    return []


def _is_decision(action: Action, seats: int) -> bool:
    """A seat's choice that no protocol message proves: not a discard, not a card its holder plays (nor the
    dummy's, which its player proves)."""
    if isinstance(action, Discard):
        return False
    return not isinstance(action, Play) or (action.by != action.seat and action.seat < seats)


def _decision(action: Action, players: Sequence[str]) -> tuple[str, dict[str, Any]]:
    actor = action.by if isinstance(action, Play) else action.seat
    return _name(players, actor) or str(actor), encode_action(action)


def _signed(player: str, decision: Mapping[str, Any], players: Sequence[str]) -> tuple[str, Any]:
    """A signed decision as the action it names: the announcement word is the declarer's ``Announce``."""
    if "announce" in decision:
        word = decision["announce"]
        seat = players.index(player) if player in players else -1
        return player, {"kind": "announce", "seat": seat, "no_aces": word["no_aces"]}
    return player, decision["action"]


def _word(decision: tuple[str, Any]) -> str:
    return f"{decision[0]}'s {one_line(json.dumps(decision[1], sort_keys=True), 120)}"


def penalty_findings(
    record: Any, convention: Convention, players: Sequence[str], absent: Sequence[str]
) -> list[Finding]:
    """The record's ``penalty`` charges exactly the players the abandoned attempts prove ``absent``."""
    record = played_record(record)
    if not isinstance(record, Mapping):
        return []
    seats = [players.index(name) for name in absent]
    expected = [line.to_record() for seat in seats for line in abort_penalty(convention, seat, len(players))]
    charged = record.get("penalty", [])
    if charged == expected:
        return []
    proved = ", ".join(f"player {name}" for name in absent) or "no one"
    return [(RECORD, "abort penalty", f"the record charges {charged}; the aborts prove {proved} absent: {expected}")]


def abandoned_play_findings(
    record: Any, convention: Convention, players: Sequence[str], dummy: bool, done: int, player: str, witness: str
) -> list[Finding]:
    """A v4 abandon during play must name the player whose card the record's replay awaits after the ``done``
    post-deal steps the messages hold; ``witness`` signed the abandon."""
    record = played_record(record)
    if not isinstance(record, Mapping):
        return [(f"player {witness}", "abandon", "an abandon during play needs the record that says whose card is due")]
    expected = _expected(record, convention, players, dummy)
    if not isinstance(expected, list):
        return [expected]
    due = expected[done] if done < len(expected) else None
    if due is None or due[0] != "play" or due[1] != player:
        awaited = _say(due) if due else "nothing"
        return [(f"player {witness}", "abandon", f"the record awaits {awaited}, not {player}'s card")]
    return []


def live_abandon_findings(
    convention: Convention,
    players: Sequence[str],
    dealt: Sequence[str],
    dealer: int,
    hand: int,
    start: Any,
    facts: Sequence[Fact],
    absent: str,
    at: str,
    witness: str,
) -> list[Finding]:
    """A v4 abandon where the game, not the protocol, said whose step was due, in a hand cut short with no record
    (a live table): the game followed through the chain's ``facts`` from the ``start`` the transcript states (the
    raspasy streak and the seats holding a refe; the opening round follows from the hand's number) must await
    exactly ``absent``'s ``at``. The decisions are signed, so the chain alone fixes the game."""
    begun = _begun(convention, players, dealer, hand, start)
    if isinstance(begun, str):
        return [(TRANSCRIPT, "start", begun)]
    game = PublicGame(Follower(players, dealt, begun))
    for fact in facts:
        try:
            game.take(fact)
        except IllegalAction as exc:  # the host would have refused it: a decision its signer could not take
            return [(f"player {fact.player}", fact.step, str(exc))]
    due = game.due()
    if due is None or (due.player, due.message_step) != (absent, at):
        awaited = "nothing" if due is None else f"{due.player}'s {due.message_step}"
        return [(f"player {witness}", "abandon", f"the game awaits {awaited}, not {absent}'s {at}")]
    return []


def _begun(convention: Convention, players: Sequence[str], dealer: int, hand: int, start: Any) -> HandState | str:
    """The hand begun on a deal nobody has seen, from the stated start; or what is wrong with the start."""
    seats = len(players)
    shape = "start must be {raspasy_streak: a count, refe: the seats holding a refe}"
    if not isinstance(start, Mapping) or set(start) != {"raspasy_streak", "refe"}:
        return shape
    streak, refe = start["raspasy_streak"], start["refe"]
    if not _count(streak) or streak > MAX_STREAK or not isinstance(refe, list):
        return shape
    if not all(_count(seat) and seat < seats for seat in refe) or refe != sorted(set(refe)):
        return f"refe {one_line(json.dumps(refe), 60)} does not list seats of this table, each once, in order"
    _, opening_round = dealer_of(convention, hand - 1, 0, seats)
    try:
        return imputed_start(convention, seats, dealer, None, (), streak, opening_round, frozenset(refe))
    except FairdealError as exc:
        return f"the hand cannot begin so: {exc}"


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _say(event: Event) -> str:
    if event[0] == "play":
        return f"{event[1] or 'a player'} plays {to_ascii_list([event[2]])[0]}"
    return " ".join(str(part) for part in event)
