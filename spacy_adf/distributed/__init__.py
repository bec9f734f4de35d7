"""Past one machine: annotation of large corpora and iterative parameter
mixing (IPM) on Ray. An optional part of spacy-adf (`pip install
"spacy-adf[ray]"`): the rest of the package never imports Ray, and importing
this package without Ray raises an ImportError that says what to install.

    python -m spacy_adf.distributed annotate MODEL INPUT OUTPUT --workers N
    python -m spacy_adf.distributed train CONFIG --workers N --output DIR

On one machine or a cluster (--address): pipeline, input, corpus and weights
reach the workers through Ray, a lost worker or node costs only the work it
held, and a rerun of a stopped command resumes. docs/distributed.md
describes both.
"""
from .raysupport import require_ray

require_ray()
