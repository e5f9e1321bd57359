"""Scoring fed by the real hand state machine: outcomes from bot-played hands score and settle to zero."""

from dataclasses import replace

import numpy as np
import pytest

from fairdeal.engine.bots import HeuristicBot
from fairdeal.engine.driver import play_hand
from fairdeal.engine.hand import result
from fairdeal.engine.scoring import score_hand
from fairdeal.engine.settlement import settle
from fairdeal.engine.sheet import is_finished, new_sheet
from fairdeal.systems import conventions


@pytest.mark.parametrize("name", sorted(conventions()))
def test_bot_pulya_scores_and_settles_to_zero(name):
    conv = conventions()[name]
    conv = replace(conv, pulya=replace(conv.pulya, size=10))
    rng = np.random.default_rng(7)
    for num_seats in conv.players:
        sheet, dealer = new_sheet(conv, num_seats), 0
        while not is_finished(sheet, conv) and sheet.hands < 150:
            bots = [HeuristicBot() for _ in range(num_seats)]
            state = play_hand(conv, num_seats, dealer, None, bots, sheet.raspasy_streak, rng)
            sheet, _ = score_hand(sheet, result(state), conv)
            dealer = (dealer + 1) % num_seats
        assert is_finished(sheet, conv)
        assert sum(settle(sheet, conv).amounts) == 0
