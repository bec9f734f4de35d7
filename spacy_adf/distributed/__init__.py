"""Past one machine: annotation of large corpora and iterative parameter
mixing on Ray (docs/distributed.md). An optional part of spacy-adf (`pip
install "spacy-adf[ray]"`): importing it without Ray raises an ImportError
that says what to install (raysupport imports Ray)."""
from . import raysupport  # noqa: F401
