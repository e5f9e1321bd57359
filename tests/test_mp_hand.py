"""A whole mentally dealt hand after the deal: talon, discard commitment, proven plays, reveal, abandonment.

Hostile players are subclasses of ``Player`` that deviate in one step; each is rejected with its name and step.
"""

import copy
import random
from operator import methodcaller
from pathlib import Path

import pytest

from fairdeal.deal import get_pattern
from fairdeal.errors import MentalPokerError
from fairdeal.protocols.mental_poker.fiat_shamir import HandContext
from fairdeal.protocols.mental_poker.group import BASE, Point
from fairdeal.protocols.mental_poker.messages import abandon_message, single_share_message
from fairdeal.protocols.mental_poker.player import HandAbandoned, Player, Table, Unresponsive, play_hand
from fairdeal.protocols.mental_poker.protocol import (
    Checkpoints,
    TableSetup,
    discard_commitment,
    message_hash,
    verify_hand,
)
from fairdeal.protocols.mental_poker.tamper import random_mutations

PLAYERS = ("north", "east", "west")
SETUP = TableSetup(HandContext("club-7/evening", 3), get_pattern("russian"), PLAYERS)


def scripted_hand(setup=SETUP, players=None, talon="shown"):
    """A hand with the protocol's every step: north takes the talon (shown or unseen), discards his two lowest
    positions, everybody plays out in turn, then the reveal and the discard opening. No game rules here."""
    table = Table(players or [Player(setup, name) for name in setup.players])
    table.deal()
    north = table.by_name("north")
    if talon == "shown":
        table.round("talon", methodcaller("open_talon"))
    else:
        table.round("take", lambda p: p.take("north"), skip="north")
    holdings = [north.card_at(p) for p in setup.hand_positions("north") + setup.talon_positions]
    discard = holdings[:2]
    table.say(north, "discard", lambda p: p.discard(discard))
    kept = {"north": holdings[2:]}
    for player in table.players[1:]:
        kept[player.name] = list(player.hand())
    for trick in range(10):
        for player in table.players:
            table.say(player, "play", lambda p, card=kept[player.name][trick]: p.play(card))
    table.round("reveal", methodcaller("reveal"))
    table.say(north, "discard-open", methodcaller("open_discard"))
    return table, discard


@pytest.fixture(scope="module")
def honest():
    return scripted_hand()


def rejected(messages, player, step, setup=SETUP):
    with pytest.raises(MentalPokerError) as caught:
        verify_hand(setup, messages)
    assert (caught.value.player, caught.value.step) == (player, step), str(caught.value)
    return caught.value


def test_honest_hand_verifies_and_opens_exactly_what_was_dealt_and_played(honest):
    table, discard = honest
    verified = verify_hand(SETUP, table.messages)
    _north, east, _west = table.players
    pattern = SETUP.pattern
    for player in table.players:
        assert [verified.order[p] for p in SETUP.hand_positions(player.name)] == list(player.hand())
    assert verified.talon == tuple(verified.order[p] for p in pattern.talon_positions[0])
    assert sorted(verified.discards["north"]) == sorted(discard)
    assert len(verified.plays) == 30 and sorted(verified.order) == list(range(32))
    assert {card for name, _, card in verified.plays if name == "east"} == set(east.hand())
    assert verified.state.finished and verified.abandoned is None


def test_talon_taken_unseen_opens_only_to_the_declarer_until_the_reveal():
    table, _ = scripted_hand(talon="unseen")
    first_play = next(i for i, m in enumerate(table.messages) if m["step"] == "play")
    # east and west sent their talon shares to north; north's own share stays with north until he plays a talon
    # card or the reveal, so before play nobody else can open the talon.
    observer = verify_hand(SETUP, table.messages[:first_play]).state
    for position in SETUP.talon_positions:
        assert set(observer.shares[position]) == {"east", "west"}
        with pytest.raises(MentalPokerError):
            observer.open_position(position)
    assert verify_hand(SETUP, table.messages).talon is None  # never opened publicly, only revealed at the end


def test_message_chain_names_the_sender_whose_link_is_broken(honest):
    table, _ = honest
    messages = list(table.messages)
    messages[12] = dict(messages[12], prev="00" * 32)
    rejected(messages, messages[12]["player"], "chain")
    assert message_hash(messages[0]) == table.messages[1]["prev"]


class ForeignCardPlayer(Player):
    """Plays a card from another player's hand (it can decrypt nothing, but tries the position)."""

    def play(self, card):
        position = next(p for p in self.setup.hand_positions("east") if p not in {q for _, q, _ in self.state.plays})
        return self._send(single_share_message("play", self._make_shares((position,))))


def hostile_table(name, cls, talon="shown"):
    players = [cls(SETUP, n) if n == name else Player(SETUP, n) for n in PLAYERS]
    with pytest.raises(MentalPokerError) as caught:
        scripted_hand(players=players, talon=talon)
    return caught.value


def test_a_card_not_dealt_to_the_player_is_rejected_by_every_listener():
    error = hostile_table("west", ForeignCardPlayer)
    assert (error.player, error.step) == ("west", "play")
    assert "not dealt to this player" in str(error)


class WrongShareInPlay(Player):
    """Sends a decryption share that is not its key times the ciphertext's first component."""

    def _send(self, message):
        if message.get("step") == "play":
            message = dict(message, share=(Point(bytes.fromhex(message["share"])) + BASE).hex())
        return Player._send(self, message)


def test_a_wrong_decryption_share_in_a_play_is_rejected():
    error = hostile_table("east", WrongShareInPlay)
    assert (error.player, error.step) == ("east", "play")


def test_a_replayed_proof_from_another_position_is_rejected(honest):
    table, _ = honest
    messages = copy.deepcopy(table.messages)
    plays = [i for i, m in enumerate(messages) if m["step"] == "play" and m["player"] == "east"]
    first, second = messages[plays[0]], messages[plays[1]]
    for field in ("share", "proof"):
        second[field] = first[field]
    rejected(messages, "east", "play")


def test_a_card_played_twice_is_rejected(honest):
    table, _ = honest
    messages = copy.deepcopy(table.messages)
    plays = [i for i, m in enumerate(messages) if m["step"] == "play" and m["player"] == "west"]
    messages[plays[1]] = dict(messages[plays[0]], prev=messages[plays[1]]["prev"])
    error = rejected(messages, "west", "play")
    assert "already played" in str(error)


class OpensAnotherDiscard(Player):
    def open_discard(self):
        positions, nonce = self._discard
        other = next(p for p in self.setup.hand_positions(self.name) if p not in positions)
        self._discard = ((positions[0], other), nonce)
        return Player.open_discard(self)


def test_a_discard_that_does_not_match_its_commitment_is_rejected():
    error = hostile_table("north", OpensAnotherDiscard)
    assert (error.player, error.step) == ("north", "discard-open")
    assert "do not open the discard commitment" in str(error)


class PlaysHisDiscard(Player):
    """Commits to a discard, then plays one of the discarded cards anyway."""

    def play(self, card):
        if self._discard is not None and not any(n == self.name for n, _, _ in self.state.plays):
            hidden = self._discard
            self._discard = None
            discarded_card = self.card_at(hidden[0][0])
            try:
                return Player.play(self, discarded_card)
            finally:
                self._discard = hidden
        return Player.play(self, card)


def test_a_discarded_card_played_is_caught_when_the_discard_opens():
    players = [PlaysHisDiscard(SETUP, "north"), Player(SETUP, "east"), Player(SETUP, "west")]
    with pytest.raises(MentalPokerError) as caught:
        scripted_hand(players=players)
    assert (caught.value.player, caught.value.step) == ("north", "discard-open")
    assert "not two unplayed cards of his" in str(caught.value)


class SilentAt(Player):
    step = "shuffle"

    def shuffle(self):
        if self.step == "shuffle":
            raise Unresponsive()
        return Player.shuffle(self)

    def play(self, card):
        if self.step == "play":
            raise Unresponsive()
        return Player.play(self, card)


@pytest.mark.parametrize("step", ["shuffle", "play"])
def test_a_player_who_stops_answering_is_named_and_nothing_more_is_revealed(step):
    silent = type("Silent", (SilentAt,), {"step": step})
    players = [Player(SETUP, "north"), silent(SETUP, "east"), Player(SETUP, "west")]
    with pytest.raises(HandAbandoned) as caught:
        scripted_hand(players=players)
    assert (caught.value.player, caught.value.step) == ("east", step)
    messages = caught.value.messages
    assert messages[-1]["step"] == "abandon"
    verified = verify_hand(SETUP, messages)
    assert verified.abandoned == ("east", step) and verified.order is None
    steps = {m["step"] for m in messages}
    assert not steps & {"reveal", "discard-open"}
    if step == "shuffle":
        assert "deal" not in steps
    with pytest.raises(MentalPokerError, match="over"):
        verify_hand(SETUP, messages + [dict(messages[-1], prev=message_hash(messages[-1]))])


def test_an_abandon_naming_the_wrong_player_or_step_is_rejected(honest):
    table, _ = honest
    head = table.messages[3]["prev"]
    wrong = dict(abandon_message("west", "shuffle"), prev=head)
    rejected(table.messages[:3] + [wrong], "west", "abandon")


def test_steps_out_of_place_are_rejected(honest):
    table, _ = honest
    messages = table.messages
    deal_end = len(SETUP.schedule())
    early_play = next(m for m in messages if m["step"] == "play")
    rejected(messages[:6] + [dict(early_play, prev=messages[6]["prev"])], "north", "play")
    second_talon = messages[deal_end : deal_end + 3]
    trailing = verify_hand(SETUP, messages[: deal_end + 3]).state.head
    rejected(messages[: deal_end + 3] + [dict(second_talon[0], prev=trailing)], "north", "talon")
    extra = dict(messages[-1], prev=message_hash(messages[-1]))
    rejected(messages + [extra], "north", "discard-open")


def test_checkpoints_resume_after_the_verified_prefix_and_still_catch_changes(honest):
    table, _ = honest
    checkpoints = Checkpoints()
    verify_hand(SETUP, table.messages, checkpoints)
    changed = copy.deepcopy(table.messages)
    north_reveal = changed[-4]["shares"]  # north's shares of his two discarded cards
    north_reveal[0]["share"] = north_reveal[1]["share"]
    with pytest.raises(MentalPokerError) as caught:
        verify_hand(SETUP, changed, checkpoints)
    assert (caught.value.player, caught.value.step) == ("north", "decrypt")
    _state, start = checkpoints.resume(SETUP, changed)
    assert start == len(changed) - 4
    assert verify_hand(SETUP, table.messages, checkpoints).state.finished


def test_300_random_single_field_mutations_are_all_rejected(honest):
    table, _ = honest
    checkpoints = Checkpoints()
    verify_hand(SETUP, table.messages, checkpoints)
    accepted = []
    for index, path, changed in random_mutations(table.messages, 300, random.Random(6)):
        try:
            verify_hand(SETUP, changed, checkpoints)
            accepted.append((index, path))
        except MentalPokerError:
            pass
    assert accepted == []


def test_a_field_a_step_does_not_define_is_rejected_naming_the_sender(honest):
    table, _ = honest
    messages = list(table.messages)
    messages[10] = dict(messages[10], note="hello")
    rejected(messages, messages[10]["player"], messages[10]["step"])


def test_a_shuffle_from_another_hand_relinked_into_the_chain_names_its_shuffler(honest):
    """A forger who also fixes ``prev`` breaks the next link; the deferred proofs are checked first, so the
    verifier names the shuffler, not the next sender."""
    table, _ = honest
    other = TableSetup(HandContext("club-7/evening", 4), SETUP.pattern, PLAYERS)
    foreign = play_hand(other, open_talon=False)[1][4]
    messages = list(table.messages)
    messages[4] = dict(foreign, prev=messages[4]["prev"])
    rejected(messages, "east", "shuffle")


def test_hand_level_vectors_of_the_spec():
    """protocols/mental-poker.md §10: the chain genesis and a discard commitment for fixed inputs."""
    spec = (Path(__file__).resolve().parent.parent / "protocols" / "mental-poker.md").read_text(encoding="utf-8")
    genesis, commitment = (
        line.rsplit("`", 2)[1]
        for line in spec.splitlines()
        if line.startswith(("| chain genesis", "| discard commitment"))
    )
    context = HandContext("vectors/night", 1)
    assert TableSetup(context, get_pattern("russian"), PLAYERS).genesis() == genesis
    assert discard_commitment(context, "north", (12, 7), bytes(range(32))).hex() == commitment
