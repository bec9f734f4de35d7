"""The one place that imports Ray and starts or joins a Ray cluster."""
from typing import Optional

INSTALL_HINT = 'spacy_adf.distributed needs Ray, which is not installed: pip install "spacy-adf[ray]"'

# actors are spread over the cluster's nodes (one per node first), not packed
# onto the driver's node
SPREAD = "SPREAD"
# a shard whose actor is lost this often (in one epoch of training) fails the run: a shard that kills every worker
MAX_SHARD_RETRIES = 3


class Interrupted(Exception):
    """A run stopped by Ctrl-C; the message says what was saved."""


def run_to_end(run):
    """run.run() (an IPM or an Annotation), its actors killed after; a Ctrl-C
    raises Interrupted with run.interrupted_message()."""
    try:
        return run.run()
    except KeyboardInterrupt:
        raise Interrupted(run.interrupted_message()) from None
    finally:
        run.shutdown()


try:
    import ray
except ImportError:
    raise ImportError(INSTALL_HINT) from None
# the errors of a task whose actor or result is gone (a worker or node died): it can run again elsewhere
LOST = (ray.exceptions.RayActorError, ray.exceptions.ObjectLostError, ray.exceptions.WorkerCrashedError)


def start_ray(workers: int, address: Optional[str] = None):
    """Join the cluster at `address` ("auto": the one `ray start` made here), or start an embedded
    Ray with `workers` CPUs at this process's priority (docs/distributed.md); one already up is reused."""
    if not ray.is_initialized():
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            # "local": a new Ray of our own, never one found through RAY_ADDRESS
            ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False,
                     _system_config={"worker_niceness": 0})
    return ray

