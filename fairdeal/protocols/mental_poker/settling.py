"""What an honest mental-poker player checks before it signs the session's settlement (``protocols/mental-poker.md``,
section 0.5): the hand count and last transcript; after an evening's end, the end the stopped hand proves (the
verifier's own ``proved_end``, run on the stopped hand the player took part in); and the amounts its own sheet
settles to — the records it signed, replayed, with that end's charge. Anything else gets a signed refusal.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from fairdeal.protocols.mental_poker.verify import proved_end
from fairdeal.protocols.record_check import amounts_objection
from fairdeal.protocols.transcript import transcript_hash
from fairdeal.rules.convention import Convention


def settlement_objection(
    convention: Convention,
    players: Sequence[str],
    complete: Sequence[Mapping[str, Any]],
    stopped: Mapping[str, Any] | None,
    proposal: Mapping[str, Any],
) -> str | None:
    """Why the settlement ``proposal`` is not the one the ``complete`` hands (whose records the player signed) and
    the ``stopped`` hand (the one an end voided, or ``None``) give; ``None`` when it is."""
    last = stopped if stopped is not None else (complete[-1] if complete else None)
    if proposal.get("hands") != len(complete) or proposal.get("last") != (transcript_hash(last) if last else ""):
        return f"the settlement closes {proposal.get('hands')} hand(s) elsewhere; I signed {len(complete)}"
    proved = None if stopped is None else proved_end(f"hand {stopped['hand']}", stopped)
    if stopped is not None and proved is None:
        return "the hand that ended the evening does not verify: it proves no one at fault"
    if proposal.get("end") != proved:
        return f"the end is {proposal.get('end')}; the stopped hand proves {proved}"
    charged = [] if proved is None else list(proved["charged"])
    return amounts_objection(convention, players, complete, charged, proposal.get("settlement"))
