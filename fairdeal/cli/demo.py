"""`fairdeal demo [TRICK]` (the cardsharp's catalogue, one technique step by step and then caught) and
`fairdeal casebook --out audit/` (the casebook regenerated)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import click
import numpy as np
from rich.console import Console
from rich.markup import escape
from rich.table import Table

from fairdeal.tricks.casebook import COMMAND, write_casebook
from fairdeal.tricks.catalogue import TRICKS, get_trick
from fairdeal.tricks.power import ALPHA, PLAYERS, Measurement, measure, steps_for
from fairdeal.tricks.render import show_plan
from fairdeal.tricks.table import right_neighbour
from fairdeal.tricks.weak_server import WeakServer

DEMO_DEALER = 1
DEMO_PARTNER = 0
DEMO_SERVER_BITS = 24  # the demo searches a 24-bit window (16.8 million seeds) around the deal time


@click.command("demo", short_help="List the cardsharp's tricks, or show one step by step and catch it.")
@click.argument("trick", required=False)
@click.option(
    "--seed", type=click.IntRange(min=0), default=4, show_default=True, help="Seed of the deal and the evenings."
)
@click.option(
    "--evenings",
    type=click.IntRange(1, 100),
    default=4,
    show_default=True,
    help="Simulated evenings with the cheat (and as many honest ones for false alarms).",
)
@click.option(
    "--rate",
    type=click.FloatRange(0.01, 1.0),
    default=0.5,
    show_default=True,
    help="Share of his deals the cheat uses the trick in.",
)
@click.option(
    "--plot",
    "plot_path",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Where to save the plot (default: demo-TRICK.png).",
)
@click.option("--no-evenings", is_flag=True, help="Only show the trick step by step.")
def demo_command(
    trick: str | None, seed: int, evenings: int, rate: float, plot_path: Path | None, no_evenings: bool
) -> None:
    """Without TRICK: list the cardsharp's tricks. With TRICK: show it step by step, then catch it."""
    console = Console(highlight=False)
    if trick is None:
        _list(console)
        return
    technique = get_trick(trick)
    if isinstance(technique, WeakServer):
        technique = replace(technique, window_bits=DEMO_SERVER_BITS)
    rng = np.random.default_rng(seed)
    gathered = rng.permutation(32).astype(np.uint8)
    goal = technique.table_goal(DEMO_DEALER, len(PLAYERS), right_neighbour(DEMO_DEALER, len(PLAYERS)), DEMO_PARTNER)
    plan = technique.plan(gathered, goal, rng)
    show_plan(console, technique, goal, plan, PLAYERS, DEMO_DEALER)
    if no_evenings:
        return
    console.print(
        f"\nsimulating {evenings} evening(s) where {PLAYERS[DEMO_DEALER]} cheats in {rate:.0%} of his deals, "
        f"auditing growing prefixes ({', '.join(map(str, steps_for(technique)))} hands) with fairdeal audit at level "
        f"{ALPHA:g} ..."
    )
    m = measure(
        technique,
        replicates=evenings,
        rate=rate,
        seed=seed,
        honest_evenings=evenings,
        progress=lambda line: console.print(f"  {escape(line)}", style="dim"),
    )
    _show_measurement(console, m)
    path = plot_path or Path(f"demo-{technique.name}.png")
    plot_power(m, path)
    console.print(f"plot saved: {path}")


def _list(console: Console) -> None:
    table = Table(title="the cardsharp's catalogue (fairdeal demo TRICK; the casebook in audit/ has the details)")
    for column in ("trick", "what", "caught by"):
        table.add_column(column, overflow="fold")
    for name, trick in TRICKS.items():
        table.add_row(name, trick.title, trick.detector)
    console.print(table)


def _show_measurement(console: Console, m: Measurement) -> None:
    table = Table(title=f"{m.trick}: fairdeal audit, named first by «{m.detector}»")
    for column in ("evening", "named after (hands)", "evidence"):
        table.add_column(column, overflow="fold")
    for number, catch in enumerate(m.catches, start=1):
        table.add_row(str(number), "not named" if catch.hands is None else str(catch.hands), escape(catch.evidence))
    console.print(table)
    median = "not within the longest evening" if m.median_hands is None else f"{m.median_hands:g} hands (median)"
    console.print(
        f"hands the auditor needed: {median}; named in {m.caught_share:.0%} of the evenings; "
        f"false alarms on honest evenings: {m.false_alarms} of {m.honest_evenings}; "
        f"the cheat reached his goal in {m.achieved:.0%} of {m.attempts} attempts "
        f"({m.hit_share:.0%} of the aimed cards landed where meant)"
    )


def plot_power(m: Measurement, path: Path) -> None:
    """The share of evenings in which the cheat was named by N hands, against N, with the false-alarm rate."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = list(m.steps)
    caught = [sum(c.hands is not None and c.hands <= s for c in m.catches) / len(m.catches) for s in steps]
    figure, axes = plt.subplots(figsize=(6, 3.6))
    axes.step(steps, caught, where="post", label="cheat named")
    axes.axhline(m.false_alarm_rate, color="grey", linestyle="--", label="honest evenings flagged")
    axes.set_xscale("log", base=2)
    axes.set_xticks(steps, [str(s) for s in steps])
    axes.set_ylim(-0.02, 1.02)
    axes.set_xlabel("hands audited")
    axes.set_ylabel("share of evenings")
    axes.set_title(f"{m.trick}: {m.detector} at level {ALPHA:g}")
    axes.legend(loc="lower right")
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=100)
    plt.close(figure)


@click.command("casebook")
@click.option(
    "--out",
    "out",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("audit"),
    show_default=True,
    help="The casebook folder.",
)
@click.option(
    "--replicates", type=click.IntRange(1, 200), default=8, show_default=True, help="Cheating evenings per technique."
)
@click.option(
    "--honest",
    "honest_evenings",
    type=click.IntRange(1, 500),
    default=30,
    show_default=True,
    help="Honest evenings per detector (false alarms).",
)
@click.option(
    "--rate",
    type=click.FloatRange(0.01, 1.0),
    default=0.5,
    show_default=True,
    help="Share of his deals the cheat uses the trick in.",
)
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True)
@click.option("--only", "only", multiple=True, type=click.Choice(list(TRICKS)), help="Measure only these tricks.")
def casebook_command(
    out: Path, replicates: int, honest_evenings: int, rate: float, seed: int, only: tuple[str, ...]
) -> None:
    """Regenerate the casebook: one page per technique with measured power and false-alarm rate."""
    written = write_casebook(
        out, replicates, rate, seed, honest_evenings, only or None, progress=lambda line: click.echo(line, err=True)
    )
    click.echo(f"{len(written)} pages written to {out} ({COMMAND})")


COMMANDS = [demo_command, casebook_command]
