import importlib
import subprocess
import sys

import click
from click.testing import CliRunner

from fairdeal.cli import COMMAND_MODULES, SHORT_HELP, cli


def test_every_command_is_registered_under_the_module_that_defines_it():
    by_module: dict[str, set[str]] = {}
    for name, module in COMMAND_MODULES.items():
        by_module.setdefault(module, set()).add(name)
    for module, names in by_module.items():
        defined = {c.name for c in importlib.import_module(f"fairdeal.cli.{module}").COMMANDS}
        assert defined == names, module


def test_help_lists_every_command():
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for name in COMMAND_MODULES:
        assert name in result.output


def test_an_unknown_command_is_one_line_and_no_traceback():
    run = subprocess.run([sys.executable, "-m", "fairdeal", "deall"], capture_output=True, text=True)
    assert run.returncode == 2
    assert "Traceback" not in run.stderr
    assert "No such command" in run.stderr


def test_a_light_command_does_not_import_the_heavy_pillars():
    code = (
        "import sys; from fairdeal.cli import main; sys.argv = ['fairdeal', 'shuffle', '2', '--json'];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('matplotlib', 'scipy', 'nacl', 'fairdeal.audit') if m in sys.modules))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_the_listed_short_help_is_each_commands_own():
    context = click.Context(cli)
    assert set(SHORT_HELP) == set(COMMAND_MODULES)
    for name, text in SHORT_HELP.items():
        assert cli.get_command(context, name).get_short_help_str(limit=1000) == text, name


def test_help_imports_no_command_module():
    code = (
        "import sys; from fairdeal.cli import main; sys.argv = ['fairdeal', '--help'];\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith('fairdeal.cli.') or m in ('numpy', 'rich')))"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert "audit" in run.stdout
    assert run.stdout.strip().splitlines()[-1] == "[]"


def test_every_command_has_its_help_and_usage_errors_exit_2():
    for name in COMMAND_MODULES:
        result = CliRunner().invoke(cli, [name, "--help"])
        assert result.exit_code == 0 and "Usage:" in result.output, name
        result = CliRunner().invoke(cli, [name, "--no-such-option"])
        assert result.exit_code == 2, name
