"""srsly's msgpack encoders and decoders, looked up once instead of on every
msgpack call (the `spacy_adf.cached_msgpack_hooks.v1` callback; why:
docs/pipelines.md, "Multiprocessing"). The cache is rebuilt when a function is
registered in catalogue or a cached hook is replaced."""
from typing import Any, Callable, Dict, List, Tuple

import catalogue
from spacy.util import registry
from srsly import msgpack

REGISTERED_NAME = "spacy_adf.cached_msgpack_hooks.v1"


class _CachedHooks:
    """A replacement of one registry's get_all: its last answer, kept while
    catalogue's table has the same size and still holds the same hooks."""

    def __init__(self, registry: catalogue.Registry) -> None:
        self.registry = registry
        self.lookup = type(registry).get_all.__get__(registry)  # the uncached lookup
        self.size = -1
        self.hooks: Dict[str, Any] = {}
        self.keyed: List[Tuple[Tuple[str, ...], Any]] = []  # (catalogue key, hook) of each hook

    def _current(self) -> bool:
        if len(catalogue.REGISTRY) != self.size:
            return False
        get = catalogue.REGISTRY.get
        # an entry-point hook has no catalogue key: get() gives the default back
        return all(get(key, hook) is hook for key, hook in self.keyed)

    def __call__(self) -> Dict[str, Any]:
        if not self._current():
            self.hooks = self.lookup()
            self.size = len(catalogue.REGISTRY)
            namespace = tuple(self.registry.namespace)
            self.keyed = [(namespace + (name,), hook) for name, hook in self.hooks.items()]
        return dict(self.hooks)


def cache_msgpack_hooks() -> None:
    """Make srsly's msgpack encoder and decoder registries answer from a cache
    (see the module doc); calling it again changes nothing."""
    for registry in (msgpack.msgpack_encoders, msgpack.msgpack_decoders):
        if not isinstance(vars(registry).get("get_all"), _CachedHooks):
            registry.get_all = _CachedHooks(registry)


@registry.callbacks(REGISTERED_NAME)
def make_cached_msgpack_hooks() -> Callable:
    """`spacy_adf.cached_msgpack_hooks.v1`, an [nlp] after_pipeline_creation callback."""

    def after_pipeline_creation(nlp):
        cache_msgpack_hooks()
        return nlp

    return after_pipeline_creation
