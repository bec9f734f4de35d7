"""Texts of a file, one per line, for the packaging checks."""
from typing import List


def read_texts(path, segmented: bool = False, limit: int = 0) -> List[str]:
    """The non-empty lines of `path` (UTF-8); with `segmented`, a segmented
    corpus line with its spaces removed (the raw text); at most `limit`."""
    texts = []
    with open(path, encoding="utf8") as f:
        for line in f:
            line = line.rstrip("\r\n")
            if segmented:
                line = line.replace(" ", "")
            if not line:
                continue
            texts.append(line)
            if limit and len(texts) >= limit:
                break
    return texts
