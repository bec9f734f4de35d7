"""Dependency parsing algorithms: cascaded chunking over bunsetsu segments."""
from .cascaded import ParseState, cascaded_parse, oracle_parse, oracle_rounds

__all__ = ["ParseState", "cascaded_parse", "oracle_parse", "oracle_rounds"]
