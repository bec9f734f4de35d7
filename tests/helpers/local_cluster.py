"""A Ray cluster of several nodes on this one machine, for tests and
benchmarks (docs/distributed.md, "A cluster on one machine").

ray.cluster_utils.Cluster: a head node and worker nodes, each its own
raylet with its own CPUs and object store, all on the loopback address.
Its processes are children of this process, so `shutdown()` stops exactly
them (`ray stop` would stop every Ray on the machine). The environment must
have RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0 before Ray is imported (importing
spacy_adf.distributed imports it): Ray otherwise replaces 127.0.0.1 in
ray.init's address by the machine's outward address, and the driver could
not reach a cluster that listens on loopback only.
"""
import os
from pathlib import Path
from typing import Optional

LOOPBACK = "127.0.0.1"
OBJECT_STORE = 150 * 1024 * 1024
# a removed node is declared dead in about 3 s instead of Ray's default of about 30 s
SYSTEM_CONFIG = {"worker_niceness": 0, "health_check_initial_delay_ms": 1000, "health_check_period_ms": 1000,
                 "health_check_timeout_ms": 1000, "health_check_failure_threshold": 3}


LOOPBACK_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def check_loopback() -> None:
    """A RuntimeError unless Ray was imported with LOOPBACK_ENV=0."""
    from ray._private import ray_constants

    if ray_constants.ENABLE_RAY_CLUSTER:
        raise RuntimeError(f"set {LOOPBACK_ENV}=0 in the environment before Ray is imported (e.g. "
                           f"{LOOPBACK_ENV}=0 python ...): Ray would otherwise connect to this cluster "
                           "through the machine's outward address instead of 127.0.0.1")


class LocalCluster:
    """A head node and `n_workers` worker nodes with `cpus` CPUs and a
    150 MB object store each; worker processes import `code` (this checkout)
    first."""

    def __init__(self, n_workers: int = 2, cpus: int = 1, code: Optional[Path] = None) -> None:
        check_loopback()
        from ray.cluster_utils import Cluster

        if code is not None:  # the nodes' workers inherit this environment
            paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
            os.environ["PYTHONPATH"] = os.pathsep.join([str(code)] + paths)
        self.cpus = cpus
        self.cluster = Cluster(initialize_head=True, head_node_args={
            "num_cpus": cpus, "object_store_memory": OBJECT_STORE, "include_dashboard": False,
            "node_ip_address": LOOPBACK, "_system_config": SYSTEM_CONFIG})
        try:
            for _ in range(n_workers):
                self.add_node()
            self.cluster.wait_for_nodes()
        except BaseException:
            self.cluster.shutdown()
            raise

    @property
    def address(self) -> str:
        """HOST:PORT for ray.init(address=...) and the CLI's --address."""
        return self.cluster.address

    def add_node(self):
        return self.cluster.add_node(num_cpus=self.cpus, object_store_memory=OBJECT_STORE,
                                     node_ip_address=LOOPBACK)

    def n_worker_nodes(self) -> int:
        return len(self.cluster.worker_nodes)

    def worker_node(self, node_id: str):
        """The worker node (not the head) with this Ray node id, or None."""
        for node in self.cluster.worker_nodes:
            if node.node_id == node_id:
                return node
        return None

    def kill_node(self, node) -> None:
        """The node disappears at once (raylet, object store and workers
        killed), as when a machine is lost."""
        self.cluster.remove_node(node, allow_graceful=False)

    def shutdown(self) -> None:
        self.cluster.shutdown()
