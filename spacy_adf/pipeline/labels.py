"""Label lists in a component's cfg (adf_tagger, adf_textcat)."""
from typing import Iterable, List, Optional, Tuple


def check_label(label) -> None:
    if not isinstance(label, str) or not label:
        raise ValueError(f"labels must be non-empty strings, got {label!r}")


def initial_labels(current: List[str], labels: Optional[List[str]], found: Iterable[str]) -> List[str]:
    """cfg["labels"] at initialize(): `labels` without repeats, else the labels added so far and
    those `found`, sorted (initialize() rebuilds the weights, so this may replace labels)."""
    if labels is not None:
        for label in labels:
            check_label(label)
        return list(dict.fromkeys(labels))
    return sorted(set(current).union(found))


class LabelsInCfg:
    """labels, label_data and add_label() of a component whose labels live in cfg["labels"]."""

    @property
    def labels(self) -> Tuple[str, ...]:
        return tuple(self.cfg["labels"])

    @property
    def label_data(self) -> List[str]:
        return list(self.cfg["labels"])

    def add_label(self, label: str) -> int:
        """Append `label` to the labels (1) unless it is there (0)."""
        check_label(label)
        if self.trainer.model.is_built:
            raise ValueError(
                f"[{self.name}] cannot add label {label!r} after initialization: the "
                "weights are laid out per label. Add labels before nlp.initialize()."
            )
        if label in self.cfg["labels"]:
            return 0
        self.cfg["labels"].append(label)
        return 1
