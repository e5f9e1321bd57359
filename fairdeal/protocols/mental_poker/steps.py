"""The steps of a mentally dealt hand, by name (the ``step`` of a message, the ``kind`` of its v4 envelope)."""

from __future__ import annotations

OPENING = ("keys", "shuffle", "deal")
ROUNDS = ("talon", "take", "turn", "dummy", "reveal")  # steps every listed player sends, one after another
SINGLE = ("play", "discard", "open", "discard-open")  # steps one player sends when the game calls for them
DECIDE = "decide"  # v4: a seat's signed game decision, between the deal and the reveal where no step is fixed
ABANDON = "abandon"  # a seat's signed word that another did not send the step the hand waited for
STEPS = OPENING + ROUNDS + SINGLE + (ABANDON, DECIDE)
# What the game, not the protocol, may leave due after the deal: an abandon there names whom the game awaits.
GAME_CALLED = ("talon", "take", "turn", "dummy", "reveal", "play", "discard", "open", DECIDE)
