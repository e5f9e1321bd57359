"""The game log of a pulya as it is played: header, one validated hand line per hand, the settlement trailer.

Hand lines are streamed (written and flushed as each hand ends) into a temporary file beside the log, which is
renamed into place when the pulya ends or stops (``fairdeal.files.OutputFile``): a reader never sees half a log,
and a pulya cut short still leaves a valid log of the hands played. A proving deal source's transcript is filed
next to the log (by the source, which knows its bytes) and cited by file and SHA-256.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import Any, get_args

import msgspec

from fairdeal.engine.outcome import HandOutcome
from fairdeal.engine.record import to_record
from fairdeal.engine.scoring import hand_multiplier
from fairdeal.engine.sheet import ScoreLine, Sheet, number
from fairdeal.engine.state import HandState
from fairdeal.engine.system import house_rules
from fairdeal.files import OutputFile
from fairdeal.log import EndRecord, HandRecord, LogWriter, TableRecord, TranscriptRecord
from fairdeal.log.records import FORMAT_NAME, FORMAT_VERSION, Dealing, Record
from fairdeal.rules.convention import Convention

# Evidence keys a deal source may know about the physical deck; copied to the hand line as they are.
_DECK_FACTS = ("order_before", "shuffle")
_DEALINGS: tuple[Dealing, ...] = get_args(Dealing)


def table_record(convention: Convention, players: Sequence[str], dealing: str) -> TableRecord:
    """The header: the system by name, every house rule as an override, so readers rebuild this very convention."""
    overrides = house_rules(convention)
    assert dealing in _DEALINGS, dealing
    return TableRecord(
        format=FORMAT_NAME,
        version=FORMAT_VERSION,
        system=convention.name,
        players=list(players),
        deck=convention.table.deck,
        deal_pattern=convention.table.pattern_name(len(players)),
        dealing=dealing,
        convention=overrides if overrides else msgspec.UNSET,
        pulya=convention.pulya.size,
    )


def hand_fields(
    hand: int,
    state: HandState,
    evidence: Mapping[str, Any],
    lines: Sequence[ScoreLine],
    extras: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The hand line (log vocabulary) without the transcript reference: what the deal source signs off."""
    fields: dict[str, Any] = {"type": "hand", "hand": hand}
    fields.update({key: evidence[key] for key in _DECK_FACTS if key in evidence})
    fields.update(to_record(state))
    if extras:
        fields["extras"] = dict(fields["extras"], **extras)
    fields["score"] = [line.to_record() for line in lines]
    return fields


def sheet_extras(before: Sheet, after: Sheet, outcome: HandOutcome, convention: Convention) -> dict[str, Any]:
    """What the sheet adds to a hand line: the bomb the declarer played on and the hand's multiplier (Classic),
    and the bombs each seat earned (``{"seat": [levels]}``)."""
    extras: dict[str, Any] = {}
    bomb, multiplier = hand_multiplier(before, outcome, convention)
    if bomb:
        extras["bomb"] = bomb
    if multiplier != 1:
        extras["multiplier"] = multiplier
    earned = {
        str(s): list(a[len(b) :])
        for s, (a, b) in enumerate(zip(after.bombs, before.bombs or ((),) * len(after.bombs)))
        if len(a) > len(b)
    }
    if earned:
        extras["bombs_earned"] = earned
    extras.update(_column_extras(after, convention))
    return extras


def _column_extras(sheet: Sheet, convention: Convention) -> dict[str, Any]:
    """The counted-down columns after the hand and the seats «под шляпой», or the money left in the pot."""
    if convention.scoring.method == "countdown":
        columns = [sheet.column(s, convention.pulya.size) for s in range(sheet.num_seats)]
        extras: dict[str, Any] = {"columns": [number(c) for c in columns]}
        hat = [s for s, c in enumerate(columns) if c < 0]
        if hat:
            extras["hat"] = hat
        return extras
    if convention.scoring.method == "pot":
        return {"pot": number(sum(sheet.gora, Fraction(0)) - sum(sheet.pulya, Fraction(0)))}
    return {}


def end_record(players: Sequence[str], amounts: Sequence[Fraction], penalty: Sequence[ScoreLine] = ()) -> EndRecord:
    settlement = {name: number(a) for name, a in zip(players, amounts)}
    if not penalty:
        return EndRecord(settlement=settlement)
    return msgspec.convert(
        {"type": "end", "penalty": [line.to_record() for line in penalty], "settlement": settlement}, EndRecord
    )


# Writes a proof document to a path and returns the SHA-256 of the bytes written (a ``ProvingSource``'s method).
TranscriptWriter = Callable[[Mapping[str, Any], Path], str]


class MatchLog:
    """A game log being written: ``path`` gets the lines, ``path``'s sibling folder the transcripts (filed by
    ``write_transcript`` when the deal source proves its deals)."""

    def __init__(
        self,
        path: str | Path | OutputFile,
        convention: Convention,
        players: Sequence[str],
        write_transcript: TranscriptWriter | None = None,
        dealing: str = "server-rng",
    ):
        # A bare path is replaced; the CLI passes an ``OutputFile`` that has checked --force and holds the lock.
        self._out = path if isinstance(path, OutputFile) else OutputFile(path, force=True)
        self.path = self._out.path
        self._write_document = write_transcript
        self._dealing = dealing  # for a header written before any hand (an evening stopped at once)
        self.convention = convention
        self.players = list(players)
        self.transcripts = self.path.with_name(self.path.name + ".transcripts")
        self._stream = self._out.stream
        self._writer = LogWriter(self._stream, validate=True)
        self._header_written = False

    def write_hand(self, fields: dict[str, Any], dealing: str, document: Mapping[str, Any] | None) -> None:
        """Write the header (before the first hand, when the dealing is known) and this hand's line."""
        self._ensure_header(dealing)
        if document is not None and self._write_document is not None:
            fields = dict(fields, transcript=self._write_transcript(fields["hand"], document))
        self._write(msgspec.convert(fields, HandRecord))

    def close(
        self,
        amounts: Sequence[Fraction] | None,
        closing: Mapping[str, Any] | None = None,
        penalty: Sequence[ScoreLine] = (),
    ) -> None:
        """Finish the log: the trailer with the settlement (``None``: no trailer), then close the file;
        ``closing`` (the deal source's signed settlement, or the one a seat refused) is filed beside the
        transcripts; ``penalty`` is what the dealing protocol charged the party whose fault ended the evening (in
        the settlement already)."""
        try:
            self._ensure_header(self._dealing)
            if closing is not None and self._write_document is not None:
                self.transcripts.mkdir(parents=True, exist_ok=True)
                self._write_document(closing, self.transcripts / "settlement.json")
            if amounts is not None:
                self._write(end_record(self.players, amounts, penalty))
        finally:
            # Also a pulya cut short: the hands played so far are a valid log.
            self._out.commit()

    def _ensure_header(self, dealing: str) -> None:
        if not self._header_written:
            self._write(table_record(self.convention, self.players, dealing))
            self._header_written = True

    def _write(self, record: Record) -> None:
        self._writer.write(record)
        self._stream.flush()

    def _write_transcript(self, hand: int, document: Mapping[str, Any]) -> dict[str, Any]:
        self.transcripts.mkdir(parents=True, exist_ok=True)
        path = self.transcripts / f"hand-{hand:04d}.json"
        assert self._write_document is not None
        digest = self._write_document(document, path)
        reference = TranscriptRecord(file=f"{self.transcripts.name}/{path.name}", sha256=digest)
        fields: dict[str, Any] = msgspec.to_builtins(reference)
        return fields
