"""The project's benchmarks and the tooling they share with scripts/.

Run from the repository root, e.g. ``python -m benchmarks.chunking --help``.
``benchmarks.harness`` holds what every benchmark uses (machine record, child
processes with wall time and peak RSS, number formatting, the Markdown
section and JSON writers); it imports only the standard library, so a
benchmark's measured child processes do not carry spaCy because of it.
This package is not part of the installed ``spacy_adf`` distribution.
"""
