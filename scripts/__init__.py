"""The project's workflow scripts (sample data, demo, evaluation, packaging
checks, the fast segmenter). Run them from the repository root as modules,
e.g. ``python -m scripts.demo --help``; they import only ``spacy_adf`` and
``benchmarks``. This package is not part of the installed distribution."""
