"""spacy-adf: ADF-trained CRF components and kernel-expanded SVMs for spaCy.

Importing the package registers nothing by side effect beyond what the entry
points in setup.cfg already make resolvable; import the submodules you need.
"""
from .about import __version__  # noqa: F401
