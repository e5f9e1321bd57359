"""The game-log format v1 (protocols/game-log.md): typed records, streaming reader and writer, validation."""

from fairdeal.log.reader import LogItem, check_line, decode_line, read_log, records
from fairdeal.log.records import (
    FORMAT_NAME,
    FORMAT_VERSION,
    UNSET,
    BidRecord,
    ContractRecord,
    DealRecord,
    DefenceRecord,
    EndRecord,
    HandRecord,
    Record,
    ResultRecord,
    ScoreRecord,
    TableRecord,
    TranscriptRecord,
    TrickRecord,
)
from fairdeal.log.validate import LogContext, LogValidator
from fairdeal.log.writer import LogWriter, encode_record, write_log

__all__ = [
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "UNSET",
    "BidRecord",
    "ContractRecord",
    "DealRecord",
    "DefenceRecord",
    "EndRecord",
    "HandRecord",
    "LogContext",
    "LogItem",
    "LogValidator",
    "LogWriter",
    "Record",
    "ResultRecord",
    "ScoreRecord",
    "TableRecord",
    "TranscriptRecord",
    "TrickRecord",
    "check_line",
    "decode_line",
    "encode_record",
    "read_log",
    "records",
    "write_log",
]
