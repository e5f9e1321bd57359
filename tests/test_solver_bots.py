"""The sampling bot: legal in every system, deterministic with a seed, and blind to cards its view lacks."""

from __future__ import annotations

import json

import numpy as np
import pytest

from fairdeal.cards import parse_card
from fairdeal.engine.actions import Phase, Play
from fairdeal.engine.driver import play_hand, random_deal
from fairdeal.engine.hand import apply, is_over, new_hand, to_move
from fairdeal.engine.match import play_match, seeded_source
from fairdeal.engine.record import replay_record
from fairdeal.engine.state import evolve
from fairdeal.engine.view import view_for
from fairdeal.solver.bots import SamplingBot, read_table, sample_layout
from fairdeal.systems import conventions, get_convention

TABLES = [(conv, seats) for conv in conventions().values() for seats in conv.players]


@pytest.mark.parametrize("conv,seats", TABLES, ids=[f"{c.name}-{s}" for c, s in TABLES])
def test_plays_a_legal_hand_in_every_system(conv, seats):
    bots = [SamplingBot("medium", seed=s, samples=2) for s in range(seats)]
    for seed in range(2):
        state = play_hand(conv, seats, seed % seats, None, bots, rng=np.random.default_rng([seed, seats]))
        assert is_over(state)


def _mid_play(conv, seats, seed):
    """A hand played by heuristic-level sampling bots to the middle of the play, or None."""
    rng = np.random.default_rng(seed)
    bots = [SamplingBot("easy") for _ in range(seats)]
    state = new_hand(conv, seats, seed % seats, random_deal(rng, conv))
    while not is_over(state) and not (state.phase is Phase.PLAY and len(state.tricks) >= 3 and state.current):
        seat = to_move(state)
        state = apply(state, bots[seat].act(view_for(state, seat)))
    return None if is_over(state) else state


def _swap_hidden(state, seat):
    """The same public record and the same hand for ``seat``, other cards exchanged between the two hands it
    cannot see (cards of one suit, so every void the play has shown still holds)."""
    view = view_for(state, seat)
    hidden = [s for s in state.trick_seats if view.hand_of(s) is None]
    if len(hidden) < 2:
        return None
    a, b = hidden[:2]
    for x in state.hands[a]:
        for y in state.hands[b]:
            if x // 8 == y // 8:
                hands = list(state.hands)
                hands[a] = tuple(sorted(c for c in hands[a] if c != x) + [y])
                hands[b] = tuple(sorted(c for c in hands[b] if c != y) + [x])
                hands[a], hands[b] = tuple(sorted(hands[a])), tuple(sorted(hands[b]))
                return evolve(state, hands=tuple(hands))
    return None


@pytest.mark.parametrize("name", ["sochi", "leningrad", "rostov", "austrian", "croatian"])
def test_never_peeks_at_hidden_cards(name):
    conv = get_convention(name)
    seats = conv.players[0]
    checked = 0
    for seed in range(40):
        state = _mid_play(conv, seats, seed)
        if state is None:
            continue
        seat = to_move(state)
        other = _swap_hidden(state, seat)
        if other is None:
            continue
        assert other.hands != state.hands and view_for(other, seat) == view_for(state, seat)
        bot = SamplingBot("medium", seed=5)
        assert bot.act(view_for(other, seat)) == bot.act(view_for(state, seat))
        checked += 1
    assert checked >= 3


REBUILT = [("sochi", 3), ("croatian", 3), ("austrian", 4), ("hussar", 2), ("gusarik-sochi", 2), ("preferans-1800s", 2)]


@pytest.mark.parametrize("name,seats", REBUILT)
def test_a_view_rebuilt_from_the_log_alone_gives_the_same_cards(tmp_path, name, seats):
    """Play an evening with the sampling bots, then rebuild each decision's view from the log and ask again."""
    conv = get_convention(name)
    log = tmp_path / "evening.jsonl"
    bots = [SamplingBot("medium", seed=s) for s in range(seats)]
    players = ["A", "B", "C", "D", "E"][:seats]
    play_match(conv, players, bots, source=seeded_source(11, conv), max_hands=4, log=log)
    asked = 0
    for line in log.read_text().splitlines():
        record = json.loads(line)
        if record.get("type") != "hand" or not record.get("tricks"):
            continue
        fields = {k: v for k, v in record.items() if k not in ("tricks", "result")}
        state = replay_record(fields, conv, seats)
        for trick in record["tricks"]:
            at = state.trick_seats.index(trick["lead"])
            for k, card in enumerate(trick["cards"]):
                seat = state.trick_seats[(at + k) % len(state.trick_seats)]
                actor = to_move(state)  # the open lone whister plays his passing partner's cards too
                action = bots[actor].act(view_for(state, actor))
                assert isinstance(action, Play) and (action.seat, action.card) == (seat, parse_card(card).code)
                state = apply(state, action)
                asked += 1
    assert asked >= 10


def test_sampled_layouts_respect_what_the_view_has_seen():
    conv = get_convention("sochi")
    for seed in range(30):
        state = _mid_play(conv, 3, seed)
        if state is None:
            continue
        seat = to_move(state)
        view = view_for(state, seat)
        table = read_table(view)
        hands, _ = sample_layout(table, np.random.default_rng(seed))
        for s, hand in zip(table.seats, hands):
            if s == seat:
                assert hand == view.hand
            for hidden_seat, _, voids in table.hidden:
                if hidden_seat == s:
                    assert not any(voids >> (c // 8) & 1 for c in hand)
                    assert len(hand) == len(state.hands[s])
        seen = set(view.played) | set(view.hand)
        assert not seen & {c for s, h in zip(table.seats, hands) if s != seat for c in h}


def test_deterministic_with_a_seed_and_unknown_levels_refused():
    conv = get_convention("leningrad")
    state = _mid_play(conv, 3, 4) or _mid_play(conv, 3, 5)
    seat = to_move(state)
    view = view_for(state, seat)
    assert SamplingBot("hard", seed=9).act(view) == SamplingBot("hard", seed=9).act(view)
    with pytest.raises(ValueError, match="unknown bot level"):
        SamplingBot("grandmaster")


def test_the_whist_simulation_sees_only_the_view():
    """At the whist decision, exchanging cards between the declarer's and the partner's hands (which the
    defender cannot see) leaves the hard bot's call unchanged."""
    conv = get_convention("sochi")
    asked = 0
    for seed in range(60):
        rng = np.random.default_rng(seed)
        state = new_hand(conv, 3, seed % 3, random_deal(rng, conv))
        easy = SamplingBot("easy")
        while not is_over(state) and state.phase not in (Phase.DEFENCE, Phase.PLAY):
            state = apply(state, easy.act(view_for(state, to_move(state))))
        if state.phase is not Phase.DEFENCE:
            continue
        seat = to_move(state)
        other = next(s for s in state.active if s not in (seat, state.declarer))
        hands = list(state.hands)
        hands[other], hands[state.declarer] = hands[state.declarer], hands[other]
        swapped = evolve(state, hands=tuple(hands))
        assert view_for(swapped, seat) == view_for(state, seat)
        bot = SamplingBot("hard", seed=1)
        assert bot.act(view_for(swapped, seat)) == bot.act(view_for(state, seat))
        asked += 1
    assert asked >= 5
