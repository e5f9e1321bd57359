"""Hostile mental-poker parties shared by the Python and the JavaScript seats' tests."""

from __future__ import annotations

from typing import Any

from fairdeal.protocols import signed
from fairdeal.protocols.mental_poker.player import Player


class SwappedShares(Player):
    """Sends a deal whose shares are swapped, signed by himself: the equal-logarithms proof no longer holds."""

    def deal(self) -> dict[str, Any]:
        message = super().deal()
        body = message["body"]
        body["shares"][0]["share"], body["shares"][1]["share"] = body["shares"][1]["share"], body["shares"][0]["share"]
        assert self.seating is not None and self._identity is not None
        ctx = self.seating.context(self.setup.context.hand)
        return signed.seal(self._identity, ctx, message["sender"], "deal", body, message["prev"]).to_json()
