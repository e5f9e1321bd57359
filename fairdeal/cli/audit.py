"""`fairdeal audit LOG`: who dealt suspiciously, who profited, what broke the rules — with calibrated statistics.

The report opens with the verdict in sentences (``--lang en|ru``) and the hands that carry the evidence; the
statisticians' tables follow. Progress bars for each phase go to stderr when it is a terminal (``--quiet``: none).
Exit status (``EXIT_CODES``, shown in ``--help``): 0 nothing flagged; 1 a dealer, player or finding is flagged at
the family-wise alpha (Holm across all tests, or a finding no honest hand shows); 2 the input cannot be audited (no
file, no table header, a bad option).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click
import numpy as np
from rich.console import Console
from rich.padding import Padding
from rich.progress import BarColumn, Progress, TaskID, TaskProgressColumn, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from fairdeal.errors import AuditError, FairdealError, one_line
from fairdeal.files import write_file
from fairdeal.progress import Phases, Step

if TYPE_CHECKING:
    from distributed import Client

    from fairdeal.audit.inputs import AuditUnit
    from fairdeal.audit.run import AuditResult, RunOptions

SHOWN_FINDINGS = 20
SHOWN_TARGETED = 10
EXIT_CODES = """Exit codes:

\b
  0   clean: nothing flagged
  1   a finding: a dealer, player or the deal generator flagged at the
      family-wise alpha, or a finding no honest hand shows (a deal the logged
      shuffle cannot give, a rules breach, a cooked score line)
  2   an input or usage error: a bad option, a file that cannot be read or
      written, a log with no table header
  70  a bug in fairdeal (never for anything the input can cause)"""


@click.command("audit", epilog=EXIT_CODES)
@click.argument("logs", nargs=-1, required=True)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the report as JSON (schema: protocols/audit-report.schema.json; keys: format, version, summary, "
    "verdict, beneficiaries, evidence_hands, suspects, cutters, findings, malformed, tests, sequential, evidence, "
    "log_quality, targeting, quality, play, legality).",
)
@click.option(
    "--lang",
    type=click.Choice(["en", "ru"]),
    default="en",
    show_default=True,
    help="Language of the verdict's sentences and the drawn hands (text, HTML and JSON).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bars on stderr.")
@click.option(
    "--html",
    "html_out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write a self-contained HTML report with plots to this file.",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0.0, 1.0, min_open=True, max_open=True),
    default=0.01,
    show_default=True,
    help="Family-wise false-alarm level (Holm) and FDR level (Benjamini-Hochberg).",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=2,
    show_default=True,
    help="Worker processes for the statistical pass and the legality replay.",
)
@click.option(
    "--legality/--no-legality",
    default=None,
    help="Replay every hand through the engine and recompute score lines "
    "(default: on for logs of at most 50,000 hands).",
)
@click.option(
    "--tells/--no-tells",
    default=None,
    help="Test each dealer's shuffles for their own tells: a shuffle too weak for its riffles, aces "
    "brought together against honest shuffles of the same effort (default: on for files of at "
    "most 32 MB).",
)
@click.option(
    "--targeting/--no-targeting",
    default=None,
    help="Test each deal against honest shuffles of the same effort from its gathered order (a Monte "
    "Carlo a hand; per-hand p-values, Benjamini-Hochberg across hands, Fisher per dealer) and keep "
    "per-hand shuffle-quality rows (default: on for logs of at most 50,000 hands).",
)
@click.option(
    "--play",
    is_flag=True,
    help="Also test the play for collusion: each defender's double-dummy errors and each whister's passes "
    "against one declarer, compared with his play against the others (solves every defender's card).",
)
@click.option(
    "--server-seed-window",
    type=click.IntRange(1, 32),
    default=None,
    metavar="BITS",
    help="Digital logs: search 2^BITS seeds of a clock-seeded 32-bit server generator around the "
    "table's start time for the first hands' deals.",
)
@click.option(
    "--server-time",
    type=click.IntRange(min=0),
    default=None,
    metavar="UNIX",
    help="The Unix time the seed window centres on (default: the header's 'started').",
)
@click.option(
    "--cluster",
    default=None,
    metavar="local:N|tcp://HOST:PORT",
    help="Run the statistical pass on dask.distributed workers over Parquet row groups (a log that is "
    "not a store is stored in a temporary one first): N local worker processes, or a scheduler.",
)
@click.option(
    "--seed",
    type=click.IntRange(min=0),
    default=0,
    show_default=True,
    help="Seed for tie-breaking draws and the CUSUM calibration.",
)
def audit_command(
    logs: tuple[str, ...],
    as_json: bool,
    lang: str,
    quiet: bool,
    html_out: Path | None,
    alpha: float,
    workers: int,
    legality: bool | None,
    tells: bool | None,
    targeting: bool | None,
    play: bool,
    server_seed_window: int | None,
    server_time: int | None,
    cluster: str | None,
    seed: int,
) -> None:
    """Audit game logs (files, directories, globs, '-' for stdin, .gz/.zst, a `fairdeal store` folder): replay
    shuffles and hands, test dealers and players, report in plain words; one report per table."""
    # Imported here: `fairdeal audit --help` need not load the auditor.
    from fairdeal.audit.cluster import ClusterSpec
    from fairdeal.audit.inputs import audit_units
    from fairdeal.audit.run import RunOptions

    out = Console()
    err = Console(stderr=True)
    options = RunOptions(
        alpha=alpha,
        workers=workers,
        legality=legality,
        seed=seed,
        tells=tells,
        targeting=targeting,
        play=play,
        server_seed_window=server_seed_window,
        server_time=server_time,
        draw_hands=True,
    )
    try:
        units = audit_units(logs)
        if html_out is not None and len(units) != 1:
            raise AuditError(f"--html writes the report of one table; the input holds {len(units)}")
        spec = ClusterSpec.parse(cluster) if cluster else None
        client = spec.client() if spec else None
    except FairdealError as exc:
        click.echo(f"Error: {one_line(str(exc))}", err=True)
        raise SystemExit(2) from None
    try:
        reports, codes = _audit_all(units, options, err if not quiet else None, html_out, client, lang)
    finally:
        if client is not None:
            _close(client)
    _report(out, reports, as_json, html_out, many=len(units) > 1, lang=lang)
    raise SystemExit(max(codes))


def _close(client: Client) -> None:
    cluster = client.cluster
    client.close()  # type: ignore[no-untyped-call]  # distributed's Client.close has no annotations
    if cluster is not None:
        cluster.close()


def _audit_all(
    units: list[AuditUnit],
    options: RunOptions,
    err: Console | None,
    html_out: Path | None,
    client: Client | None,
    lang: str,
) -> tuple[list[tuple[AuditUnit, AuditResult]], list[int]]:
    from fairdeal.audit.cluster import dask_runner

    runner = dask_runner(client) if client is not None else None
    reports: list[tuple[AuditUnit, AuditResult]] = []
    codes: list[int] = []
    for unit in units:
        try:
            with _bars(err) as bars:
                result = unit.run(options, bars, runner)
                if html_out is not None:
                    from fairdeal.audit.html import render_html

                    bars.phase("writing the HTML report")
                    write_file(html_out, render_html(result, unit.title, lang).encode("utf-8"), force=True)
        except FairdealError as exc:
            where = f"{unit.name}: " if len(units) > 1 else ""
            click.echo(f"Error: {where}{one_line(str(exc))}", err=True)
            codes.append(2)
            continue
        except OSError as exc:
            click.echo(f"Error: cannot read or write: {one_line(str(exc))}", err=True)
            codes.append(2)
            continue
        codes.append(result.exit_code)
        reports.append((unit, result))
    return reports, codes


def _report(
    out: Console,
    reports: list[tuple[AuditUnit, AuditResult]],
    as_json: bool,
    html_out: Path | None,
    many: bool,
    lang: str,
) -> None:
    if as_json:
        if many:
            payload = {"logs": [{"source": unit.name, **result.to_json(lang)} for unit, result in reports]}
        else:
            payload = reports[0][1].to_json(lang) if reports else {}
        if reports:
            click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
        return
    for unit, result in reports:
        if many:
            out.print(f"[bold]== {unit.name} ==[/bold]", highlight=False)
        _print(out, result, lang)
        if html_out is not None:
            out.print(f"HTML report written to {html_out}", markup=False)


class _Bars(Phases):
    """The audit's phases as rich progress bars on stderr: the reading with its bytes, each later phase as it
    starts (a pulsing bar when its length is not known); nothing when stderr is not a terminal or with --quiet."""

    def __init__(self, progress: Progress) -> None:
        self.progress = progress
        self.task: TaskID | None = None  # the phase running
        self.reading: TaskID | None = None

    def __enter__(self) -> _Bars:
        self.progress.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.__exit__(None, None, None)

    def _start(self, name: str) -> TaskID:
        if self.task is not None:
            self.progress.update(self.task, completed=1, total=1)
        self.task = self.progress.add_task(name, total=None)
        return self.task

    def __call__(self, done: int, total: int) -> None:
        if self.reading is None:
            self.reading = self._start("reading the log")
        self.progress.update(self.reading, completed=done, total=total or None)

    def phase(self, name: str) -> Step:
        task = self._start(name)

        def step(done: int, total: int) -> None:
            self.progress.update(task, completed=done, total=total or None)

        return step


def _bars(err: Console | None) -> _Bars:
    columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
    console = err if err is not None else Console(stderr=True, quiet=True)
    return _Bars(Progress(*columns, console=console, transient=True, disable=err is None or not err.is_terminal))


def _print(out: Console, result: AuditResult, lang: str) -> None:
    v = result.verdict
    out.print(
        f"[bold]Audited {v.hands:,} hands[/bold] of {', '.join(v.players)} (pattern {v.pattern}, "
        f"{v.dealing} dealing) in {result.seconds:.1f} s; {v.malformed_count} malformed line(s); "
        f"{len(v.tests)} tests, Holm family-wise alpha {v.alpha:g}."
        + (f" {v.undealt:,} hand(s) log no deal: nothing to audit there." if v.undealt else ""),
        highlight=False,
    )
    _print_verdict(out, result, lang)
    out.print()
    suspects = Table(title="Suspicious dealers")
    for column in ("dealer", "why (Holm-adjusted p)", "CUSUM alarm", "e-process alarm"):
        suspects.add_column(column)
    alarms = {p.dealer: p for p in v.paths}
    for name in v.suspects():
        why = [f"{t.test}: p={t.pvalue:.2g} (Holm {t.holm:.2g})" for t in v.flagged() if name in (t.dealer, t.actor)]
        kinds = sorted({f.kind for _, _, who, f in v.certain() if who == name})
        path = alarms.get(name)
        suspects.add_row(
            name,
            "\n".join(why + [f"findings: {', '.join(kinds)}"] * bool(kinds)),
            _hand(path.cusum_alarm if path else None),
            _hand(path.eprocess_alarm if path else None),
        )
    out.print(suspects if v.suspects() else "Suspicious dealers: none")
    from fairdeal.audit.report.narrative import beneficiary_pairs

    pairs = [f"{player} (dealt by {dealer})" for dealer, player in beneficiary_pairs(v)]
    out.print("Players whose hands were too strong: " + (", ".join(pairs) or "none"), highlight=False)
    _print_play(out, result)
    out.print("Players named by a rules breach: " + (", ".join(v.rule_breakers()) or "none"), highlight=False)
    cuts = [
        f"{t.subject}: {t.observed:g} points where {t.expected:.0f} are expected (p={t.pvalue:.2g})"
        for t in v.cutter_tests()
        if t.observed is not None and t.expected is not None
    ]
    out.print("Cutters whose chosen depths served someone: " + ("; ".join(cuts) or "none"), highlight=False)
    if v.dealing != "physical":
        out.print("Deal generator: " + ("[red]flagged[/red]" if v.generator_flagged() else "no test flagged it"))
    _print_findings(out, result)
    _print_tests(out, result)
    _print_targeting(out, result)
    _print_quality(out, result)
    if v.malformed:
        out.print(f"[bold]Malformed lines[/bold] ({v.malformed_count}; audited around them):")
        for message in v.malformed[:SHOWN_FINDINGS]:
            out.print(f"  {one_line(message)}", markup=False, highlight=False, soft_wrap=True)  # one line each
    if result.legality is not None and result.legality.hands:
        out.print(
            f"Legality: {result.legality.replayed:,} of {result.legality.hands:,} hands replayed through the "
            f"engine ({result.legality.rate:,.0f} hands/s).",
            highlight=False,
        )
    for note in v.notes:
        out.print(f"note: {note}", markup=False, highlight=False)


def _print_play(out: Console, result: AuditResult) -> None:
    if result.play is None:
        return
    from fairdeal.audit.play.report import play_suspects

    found = play_suspects(result.verdict)
    lines = [
        f"{t.subject}: {actor} helped {beneficiary}: {t.test}, z = {t.statistic:.1f} (Holm {t.holm:.2g})"
        if beneficiary
        else f"{t.subject}: {t.test}, z = {t.statistic:.1f} (Holm {t.holm:.2g})"
        for actor, beneficiary, t in found
    ]
    out.print("Play collusion: " + ("; ".join(lines) if lines else "none flagged"), highlight=False)


def _print_verdict(out: Console, result: AuditResult, lang: str) -> None:
    """The verdict in sentences, then the hands that carry the evidence as card strings."""
    from fairdeal.audit.report.drawing import hand_text
    from fairdeal.audit.report.narrative import narrate

    narrative = narrate(result, lang)
    out.print(narrative.headline, style="bold", markup=False, highlight=False)
    for paragraph in narrative.paragraphs()[1:]:
        out.print(Padding(Text(paragraph), (0, 0, 0, 2)))
    hands = result.evidence.hands if result.evidence is not None else ()
    if hands:
        out.print()
        out.print("The hands that carry the evidence:" if lang == "en" else "Раздачи, несущие улики:", style="bold")
        for hand in hands:
            for line in hand_text(hand, lang):
                out.print(line, markup=False, highlight=False)


def _hand(number: int | None) -> str:
    return "-" if number is None else f"hand {number}"


def _print_findings(out: Console, result: AuditResult) -> None:
    from fairdeal.audit.verdict import WEIGHED_FINDINGS

    v = result.verdict
    certain = v.certain()
    counts = ", ".join(f"{k}: {c}" for k, c in sorted(v.finding_counts.items())) or "none"
    out.print(f"[bold]Findings[/bold] ({counts}; those no honest hand shows are listed):", highlight=False)
    for line, hand, who, f in certain[:SHOWN_FINDINGS]:
        where = f"hand {hand}" + (f" (line {line})" if line else "") + (f", {who}" if who else "")
        text = f"  {where}: [{f.kind}] {f.message}"
        if f.explanations:
            text += f" — explained by: {'; '.join(f.explanations)}"
        out.print(text, markup=False, highlight=False)
    if len(certain) > SHOWN_FINDINGS:
        out.print(f"  ... and {len(certain) - SHOWN_FINDINGS} more (see --json or --html)")
    weighed = [f for f in v.findings if f[3].kind in WEIGHED_FINDINGS]
    if weighed:
        out.print("[bold]Weighed findings[/bold] (each enters its dealer's e-process with its likelihood ratio):")
    for line, hand, who, f in weighed[:SHOWN_FINDINGS]:
        where = f"hand {hand}" + (f" (line {line})" if line else "") + (f", {who}" if who else "")
        out.print(f"  {where}: [{f.kind}] {f.message}", markup=False, highlight=False)
    for q in v.log_quality:
        explained = ", ".join(f"{name} {count}" for name, count in sorted(q.explained.items())) or "none"
        out.print(
            f"Log quality, {q.dealer}: {q.mismatches} deal(s) differ from the logged shuffle; explained by honest "
            f"log errors: {explained}; unexplained: {q.unexplained}",
            markup=False,
            highlight=False,
        )


def _print_tests(out: Console, result: AuditResult) -> None:
    v = result.verdict
    table = Table(title=f"Smallest p-values of {len(v.tests)} tests (null model in --json/--html)")
    for column in ("subject", "test", "n", "p", "Holm", "BH", ""):
        table.add_column(column)
    for t in sorted(v.tests, key=lambda t: t.pvalue)[:12]:
        mark = "FLAG" if t.holm <= v.alpha else ("fdr" if t.bh <= v.alpha else "")
        table.add_row(t.subject, t.test, str(t.count), f"{t.pvalue:.3g}", f"{t.holm:.3g}", f"{t.bh:.3g}", mark)
    out.print(table)


def _print_targeting(out: Console, result: AuditResult) -> None:
    table_rows = result.verdict.targeting
    if table_rows is None:
        return
    v = result.verdict
    c = table_rows.columns
    out.print()  # a blank line: the per-hand and per-dealer detail after the verdict
    table = Table(
        title=f"Hands least likely from their gathered order ({len(table_rows):,} hands tested, all in "
        "--json): p over both nulls, Benjamini-Hochberg q across hands; then honest shuffles of the "
        "same effort and the dealer's other shuffles (cross-match), each with its talon p"
    )
    for column in ("hand", "dealer", "aces", "p", "BH q", "same effort", "talon", "cross-match", "talon"):
        table.add_column(column)
    from fairdeal.audit.verdict import targeting_row

    for i in np.argsort(c["p"], kind="stable")[:SHOWN_TARGETED]:
        table.add_row(*targeting_row(v, int(i)))
    out.print(table)


def _print_quality(out: Console, result: AuditResult) -> None:
    dealers = result.verdict.quality_dealers
    if not dealers:
        return
    honest = dealers[0].honest_guessing_mean()
    out.print()
    table = Table(
        title="Shuffle quality per dealer: the logged actions' randomness, and means over fully logged "
        "shuffles of measures that forgive cuts (a uniform shuffle: preserved 1, reversed 1, "
        f"guessing {honest:.2f})"
    )
    from fairdeal.audit.report.shuffles import bits_words, record_words

    for column in (
        "dealer",
        "shuffles",
        "logged",
        "unlogged chance",
        "preserved",
        "reversed",
        "block",
        "rising",
        "guess",
    ):
        table.add_column(column)
    for q in dealers:
        m = q.means
        table.add_row(
            q.dealer,
            f"{q.read:,}",
            record_words(q, "en"),
            bits_words(q, "en"),
            *(
                f"{m[name]:.1f}" if q.measured else "-"
                for name in (
                    "cyclic_preserved",
                    "cyclic_reversed",
                    "cyclic_longest_block",
                    "cyclic_rising",
                    "cyclic_guessing",
                )
            ),
        )
    out.print(table)


COMMANDS = [audit_command]
