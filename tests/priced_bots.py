"""A sampling bot whose priced decisions are checked as they are made (for the solver's tests)."""

from __future__ import annotations

from fairdeal.engine.actions import Action, Phase
from fairdeal.engine.view import PlayerView
from fairdeal.solver.bots import SamplingBot


class Checked:
    """A sampling bot whose every priced decision is checked as it is made: legal, the argmax of its prices,
    and priced only among legal actions; counts the priced decisions by phase."""

    def __init__(self, bot: SamplingBot):
        self.bot = bot
        self.priced: dict[Phase, int] = {}

    def act(self, view: PlayerView) -> Action:
        action = self.bot.act(view)
        assert action in view.legal
        prices = self.bot.priced
        if prices:
            assert set(prices) <= set(view.legal) and action in prices
            assert prices[action] == max(prices.values())
            self.priced[view.phase] = self.priced.get(view.phase, 0) + 1
        return action
