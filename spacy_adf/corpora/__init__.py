"""Corpus readers for spacy-adf (tag schemes live in ``spacy_adf.tags``). Each
module registers its readers when imported; the package entry points
(setup.cfg) load them for spaCy."""
