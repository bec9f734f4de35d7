"""Texts of a file, one per line, for the packaging checks (tests/packaging, scripts/check_package_seg.py)."""
from typing import List

from spacy_adf.serialization.text_lines import check_file, read_lines


def read_texts(path, segmented: bool = False, limit: int = 0) -> List[str]:
    """The non-empty lines of `path` (UTF-8); with `segmented`, a segmented
    corpus line with its spaces removed (the raw text); at most `limit`."""
    texts = []
    for _, line in read_lines(check_file(path, "text", hint="")):
        if segmented:
            line = line.replace(" ", "")
        if not line:
            continue
        texts.append(line)
        if limit and len(texts) >= limit:
            break
    return texts
