import importlib
import subprocess
import sys

from click.testing import CliRunner

from fairdeal.cli import COMMAND_MODULES, cli


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
