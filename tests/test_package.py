"""The package as installed (issue 19): shipped data read through importlib.resources, typing marker, one version.

`make wheel-test` runs the whole suite against an installed wheel with FAIRDEAL_WHEEL_TEST=1; then these tests
also check that fairdeal was imported from that install and not from the checkout."""

import json
import os
import subprocess
import sys
from importlib.metadata import metadata, version
from pathlib import Path

import pytest

import fairdeal
from fairdeal.resources import data, protocol_file, sample

CHECKOUT = Path(__file__).resolve().parent.parent


def test_the_schemas_and_vectors_are_package_data():
    for name in ("game-log.schema.json", "transcript.schema.json", "audit-report.schema.json"):
        schema = json.loads(protocol_file(name).read_text(encoding="utf-8"))
        assert schema["$schema"].startswith("https://json-schema.org/")
    vectors = sorted(protocol_file("vectors", "commit-reveal").glob("*.json"))
    assert len(vectors) >= 4


def test_the_samples_are_package_data_with_their_transcripts():
    assert sample("format-example.jsonl").read_bytes().startswith(b'{"type":"table"')
    assert sorted(sample("commit-reveal-evening.jsonl.transcripts").glob("hand-*.json"))


def test_py_typed_marks_the_package_typed():
    assert (Path(fairdeal.__file__).parent / "py.typed").is_file()


def test_the_version_is_written_once():
    assert version("fairdeal") == fairdeal.__version__
    meta = metadata("fairdeal")
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("Project-URL")


@pytest.mark.skipif(not os.environ.get("FAIRDEAL_WHEEL_TEST"), reason="only under `make wheel-test`")
def test_the_wheel_is_what_runs():
    installed = Path(fairdeal.__file__).resolve()
    assert "site-packages" in installed.parts and CHECKOUT / "fairdeal" not in installed.parents
    assert not data().is_symlink() and not data("samples").is_symlink()


def test_verify_reads_the_installed_sample_from_another_folder(tmp_path):
    log = sample("commit-reveal-evening.jsonl")
    run = subprocess.run(
        [sys.executable, "-m", "fairdeal", "verify", "--log", str(log)], capture_output=True, text=True, cwd=tmp_path
    )
    assert run.returncode == 0, run.stderr
    assert "internal error" not in run.stderr
