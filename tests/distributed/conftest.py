"""Ray for the tests (skipped without Ray): an embedded local Ray with 2 CPUs
(`ray_local`), a Ray cluster of 3 nodes on this machine (`ray_cluster`),
and the small pipelines the tests annotate with.

The cluster is what docs/distributed.md ("A cluster on one machine") starts
(tests.helpers.local_cluster.LocalCluster): a head node and two
worker nodes of one CPU and a 150 MB object store each, every node its own
raylet and object store, on loopback; the tests join it with its address
(the CLI's --address). Its processes are this test process's children, so
it is stopped exactly (never `ray stop`, which would stop every Ray on the
machine). One process can be connected to one Ray at a time: each fixture
disconnects the other's."""
import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "assets" / "sample_chunking"
# Every Ray address on loopback, in this process and the CLI subprocesses
# (before anything imports Ray): see tests.helpers.local_cluster.
os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"

_embedded = {"up": False}


def _ray():
    return pytest.importorskip("ray", reason='Ray is not installed (pip install "spacy-adf[ray]")')


@pytest.fixture(scope="session", autouse=True)
def _ray_down_at_the_end():
    yield
    import sys

    ray = sys.modules.get("ray")
    if ray is not None and ray.is_initialized():
        ray.shutdown()


@pytest.fixture(scope="module")
def ray_local():
    """This process connected to an embedded 2-CPU Ray (started once and
    kept for the session, unless a cluster test disconnected it)."""
    ray = _ray()
    if ray.is_initialized() and not _embedded["up"]:
        ray.shutdown()
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False,
                 _system_config={"worker_niceness": 0})
        _embedded["up"] = True
    yield ray


@pytest.fixture(scope="module")
def ray_cluster():
    """A 3-node Ray cluster (head + 2 workers, 1 CPU each), this process
    connected to it; after a test that killed a node, `ensure_three` adds
    one back."""
    ray = _ray()
    if ray.is_initialized():
        ray.shutdown()
    _embedded["up"] = False
    from tests.helpers.local_cluster import LocalCluster

    cluster = LocalCluster(n_workers=2, code=REPO)
    try:
        ray.init(address=cluster.address, log_to_driver=False)
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture
def three_nodes(ray_cluster):
    """The cluster with 3 live nodes before the test (a node killed by an
    earlier test is replaced)."""
    while ray_cluster.n_worker_nodes() < 2:
        ray_cluster.add_node()
    ray_cluster.cluster.wait_for_nodes()
    return ray_cluster


@pytest.fixture(scope="session")
def blank_pipeline(tmp_path_factory):
    """A tokenizer-only English pipeline on disk (annotates raw text)."""
    import spacy

    path = tmp_path_factory.mktemp("blank") / "nlp"
    nlp = spacy.blank("en")
    nlp.add_pipe("sentencizer")
    nlp.to_disk(path)
    return path


def pytest_collection_modifyitems(session, config, items):
    """The cluster tests first: Ray cannot connect a process to a cluster
    after an embedded Ray ran in it and was shut down (the cluster's GCS
    takes the new driver for failed and cancels its actors; seen with Ray
    2.60), while an embedded Ray after a cluster works."""
    items.sort(key=lambda item: 0 if item.path.name == "test_cluster.py" else 1)
