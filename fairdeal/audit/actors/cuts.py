"""Who cut: the rule (000: «Снимать колоду должен сосед с правой стороны»; the registry's ``table.cutter``) checked
on every shuffle, whatever its notation.

The last cut of a shuffle is the cut (съём): it must be made by the cutter. A cut the dealer makes earlier, inside
his own shuffle, is part of the shuffle; a cut by any other seat is not his to make. A cut that names no actor
was, by the notation, made by the dealer (``protocols/shuffle-notation.md``), so the last cut without an actor
is a dealer cutting himself; it is reported as ``unattributed-cut`` and the verdict keeps it only when the log
names an actor somewhere (``Sums.actor_actions``): a log that never records actors says nothing about who cut.
"""

from __future__ import annotations

from fairdeal.audit.replay import Finding
from fairdeal.shuffle.ops import Cut, ShuffleSequence

WRONG = "wrong-cutter"
UNATTRIBUTED = "unattributed-cut"


def cutter_seat(dealer: int, seats: int, offset: int) -> int:
    """The seat that cuts: ``offset`` seats to the dealer's right (play passes to the left, clockwise)."""
    return (dealer - offset) % seats


def wrong_cut(action: str, actor: int, dealer: int, cutter: int) -> Finding:
    who = "the dealer himself" if actor == dealer else f"seat {actor}"
    return Finding(WRONG, f"{action}: {who} cut, but the cut belongs to seat {cutter}, the dealer's cutter")


def unattributed_cut(action: str, cutter: int) -> Finding:
    return Finding(
        UNATTRIBUTED,
        f"{action}: the cut names no actor, so by the notation the dealer cut himself; the cut belongs to "
        f"seat {cutter}, and this log names the actors of other actions",
    )


def cutter_findings(sequence: ShuffleSequence, dealer: int, cutter: int) -> tuple[Finding, ...]:
    """The cuts of one shuffle made by someone the rules do not let cut."""
    cuts = [k for k, action in enumerate(sequence.actions) if isinstance(action.op, Cut)]
    found = []
    for k in cuts:
        action = sequence.actions[k]
        text = f"action {k + 1} ({action.notation()})"
        actor = action.actor
        if k == cuts[-1] and actor is None:
            found.append(unattributed_cut(text, cutter))
        elif isinstance(actor, int) and actor != cutter and (k == cuts[-1] or actor != dealer):
            found.append(wrong_cut(text, actor, dealer, cutter))
    return tuple(found)


def named_actions(sequence: ShuffleSequence) -> int:
    """How many actions name their actor."""
    return sum(action.actor is not None for action in sequence.actions)
