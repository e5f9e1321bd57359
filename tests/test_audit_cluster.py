"""The statistical pass on dask.distributed workers: the same verdict (JSON equal) in-process, in worker
processes and on LocalClusters of one and two workers, over a store of many row groups."""

import json
from dataclasses import replace

import numpy as np
import pytest
from click.testing import CliRunner
from distributed import Client, LocalCluster
from test_store import comparable

from fairdeal.audit.cluster import ClusterSpec, dask_runner
from fairdeal.audit.run import RunOptions
from fairdeal.audit.simulate import Evening, fast_evening_lines
from fairdeal.audit.stored import run_stored_audit
from fairdeal.cli import cli
from fairdeal.errors import AuditError
from fairdeal.log.sources import expand
from fairdeal.log.store import Store
from fairdeal.resources import sample

OPTIONS = RunOptions(workers=1, legality=False, tells=True, targeting=True, draw_hands=True)


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    folder = tmp_path_factory.mktemp("cluster")
    log = folder / "evening.jsonl"
    log.write_bytes(b"".join(fast_evening_lines(np.random.default_rng(5), Evening(cheater=1, rate=0.25), 2400)))
    store = Store(folder / "store", create=True)
    store.append(expand([str(log)])[0], row_group=300)
    return store


@pytest.fixture(scope="module")
def in_process(store):
    (table,) = store.tables()
    return comparable(run_stored_audit(store.root, table, OPTIONS))


@pytest.mark.parametrize("workers", [1, 2])
def test_local_clusters_give_the_in_process_verdict(store, in_process, workers):
    (table,) = store.tables()
    with (
        LocalCluster(n_workers=workers, threads_per_worker=1, processes=False, dashboard_address=None) as cluster,
        Client(cluster) as client,
    ):
        report = comparable(run_stored_audit(store.root, table, OPTIONS, runner=dask_runner(client)))
    assert report == in_process
    assert in_process["suspects"][0]["dealer"] == "Boris" and in_process["summary"]["hands"] == 2400


def test_worker_processes_give_the_same_verdict(store, in_process):
    (table,) = store.tables()
    assert comparable(run_stored_audit(store.root, table, replace(OPTIONS, workers=2))) == in_process


def test_the_command_runs_on_a_local_cluster(store, in_process):
    result = CliRunner().invoke(
        cli, ["audit", str(store.root), "--cluster", "local:1", "--json", "--no-legality", "--tells", "--targeting"]
    )
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    report["summary"].pop("seconds")
    report["summary"].pop("hands_per_second")
    assert report == in_process


def test_cluster_specs_are_checked():
    assert ClusterSpec.parse("local:3") == ClusterSpec(None, 3)
    assert ClusterSpec.parse("tcp://10.0.0.1:8786").address == "tcp://10.0.0.1:8786"
    for bad in ("local:0", "local:x", "mesos://a", "tcp://host"):
        with pytest.raises(AuditError, match="--cluster"):
            ClusterSpec.parse(bad)
    result = CliRunner().invoke(cli, ["audit", str(sample("sochi-3p-honest.jsonl")), "--cluster", "local:"])
    assert result.exit_code == 2 and "local:N" in result.output
