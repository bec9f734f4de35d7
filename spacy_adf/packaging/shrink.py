"""Shrink a trained pipeline (``python -m spacy_adf shrink``): prune the weights
of its CRFs by magnitude, each as far as its dev score allows, and save the
smaller pipeline (docs/training.md, "Shrinking a trained pipeline")."""
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import spacy
import srsly
from spacy.cli._util import parse_config_overrides
from spacy.language import Language
from thinc.api import Config
from spacy.util import load_config, registry

from ..command_line import command_parser
from ..features.crf_layout import weight_for_fraction
from ..models.char_segmenter import CharSegmenter
from ..models.linear_crf import LinearChainCRF
from ..pipeline.trainable import SparseTrainedPipe
from ..tokenizers.word_tokenizer import SegmentingTokenizer

FRACTIONS = (0.5, 0.3, 0.2, 0.15, 0.1, 0.07, 0.05, 0.035, 0.025, 0.015, 0.01, 0.007, 0.005)


def crf_parts(nlp: Language) -> List[Tuple[str, LinearChainCRF]]:
    """(name, CRF) of every trained CRF of the pipeline: the tokenizer's
    ("tokenizer") and the components', in pipeline order."""
    owners = [(name, pipe) for name, pipe in nlp.pipeline if isinstance(pipe, SparseTrainedPipe)]
    if isinstance(nlp.tokenizer, SegmentingTokenizer):  # it carries a trained component
        owners.insert(0, ("tokenizer", nlp.tokenizer.component))
    found = []
    for name, owner in owners:
        plain = owner.plain_model
        crf = plain.crf if isinstance(plain, CharSegmenter) else plain
        if isinstance(crf, LinearChainCRF) and crf.is_built:
            found.append((name, crf))
    return found


def _require_crfs(nlp: Language) -> List[Tuple[str, LinearChainCRF]]:
    parts = crf_parts(nlp)
    if not parts:
        raise ValueError("shrink: the pipeline has no trained CRF (adf_tagger, adf_segmenter "
                         "or the spacy_adf.Segmenter.v1 tokenizer) to prune")
    return parts


# spaCy's `create_evaluation_callback` gives the same sum, but 0.0 when the evaluation reports none of
# the weighted scores, under which every pruning would pass: this copy refuses that instead
def weighted_score(weights: Dict[str, Optional[float]], scores: Dict[str, object]) -> float:
    """The score spaCy's training picks model-best by: the reported scores of [training.score_weights], weighted."""
    given = {key: value for key, value in scores.items() if isinstance(value, (int, float))}
    used = {key: weight for key, weight in weights.items() if weight is not None and key in given}
    if not any(used.values()):
        raise ValueError(f"shrink: the dev evaluation gives none of the scores of [training.score_weights] "
                         f"({sorted(weights)}): nothing to judge the pruning by")
    return sum(given[key] * weight for key, weight in used.items())


def dev_scorer(nlp: Language, config: Config, overrides: Optional[Dict[str, object]] = None
               ) -> Callable[[], float]:
    """f() -> the pipeline's weighted dev score, reading the dev corpus
    anew each time (an evaluation annotates the Examples it is given).
    `config`: the pipeline's config as saved (its score weights are those
    training used; a loaded pipeline recomputes them from its components)."""
    # overrides as spaCy's command lines apply them: before interpolation
    config = Config().from_str(config.to_str(), overrides=dict(overrides or {})).interpolate()
    dev_name = config["training"]["dev_corpus"]
    node = config
    for part in dev_name.split("."):
        node = node[part]
    # only the dev corpus: the training corpus's path may be unset
    corpus = registry.resolve({"dev": node})["dev"]
    weights = dict(config["training"]["score_weights"])

    def score() -> float:
        return weighted_score(weights, nlp.evaluate(list(corpus(nlp))))

    return score


def shrink(nlp: Language, score: Callable[[], float], tolerance: float,
           fractions: Sequence[float] = FRACTIONS, log=print) -> dict:
    """Prune every CRF of `nlp` in place (see the module doc); returns what
    was done: per CRF the kept fraction, threshold, counts and bytes."""
    parts = _require_crfs(nlp)
    base = score()
    log(f"dev score unpruned: {base * 100:.3f}")
    report = {"base_score": base, "tolerance": tolerance, "parts": {}}
    for name, crf in parts:
        # pruning makes a new table and weights and leaves these as they are
        original = (crf.table, crf.params)
        bytes_before = len(crf.to_bytes())
        block_w = crf.block_weights()
        chosen = None
        for fraction in fractions:
            threshold = weight_for_fraction(block_w, fraction)
            crf.set(*original)
            counts = crf.prune(threshold)
            got = score()
            ok = got >= base - tolerance
            log(f"  {name}: keep {fraction:.3f} (|w| >= {threshold:.4g}): "
                f"{counts['after']['n_weights']:,} weights, {counts['after']['n_features']:,} features, "
                f"dev {got * 100:.3f}{'' if ok else ' (below the tolerance)'}")
            if not ok:
                break
            chosen = (fraction, threshold, counts, got)
        crf.set(*original)
        entry = {"bytes_before": bytes_before}
        if chosen is not None:
            fraction, threshold, counts, got = chosen
            crf.prune(threshold)
            entry.update(fraction=fraction, min_abs=threshold, score=got, **counts)
        entry["bytes_after"] = len(crf.to_bytes())
        log(f"{name}: {entry['bytes_before'] / 1e6:.1f} MB -> {entry['bytes_after'] / 1e6:.1f} MB"
            + ("" if chosen else " (no pruning within the tolerance)"))
        report["parts"][name] = entry
    report["final_score"] = score()
    log(f"dev score pruned: {report['final_score'] * 100:.3f}")
    return report


def shrink_pipeline(model: Path, output: Path, tolerance: float,
                    overrides: Optional[Dict[str, object]] = None,
                    fractions: Sequence[float] = FRACTIONS, log=print) -> dict:
    nlp = spacy.load(model)
    _require_crfs(nlp)
    config = load_config(Path(model) / "config.cfg", interpolate=False)
    report = shrink(nlp, dev_scorer(nlp, config, overrides), tolerance, fractions, log)
    nlp.to_disk(output)
    log(f"saved the shrunk pipeline to {output}")
    return report


def main(argv=None) -> int:
    p = command_parser("shrink", "Prune the CRF weights of a trained pipeline as far as its dev score allows.")
    p.add_argument("model", type=Path, help="a trained pipeline directory")
    p.add_argument("output", type=Path, help="where the smaller pipeline is saved")
    p.add_argument("--tolerance", type=float, default=0.0002,
                   help="largest drop of the weighted dev score (0-1 scale) a pruning may cost")
    p.add_argument("--report", type=Path, default=None, help="write what was pruned as JSON here")
    args, rest = p.parse_known_args(argv)
    overrides = parse_config_overrides(rest)  # e.g. --paths.dev other/dev.txt
    if not args.model.is_dir():
        p.error(f"{args.model} is not a pipeline directory")
    if args.tolerance < 0:
        p.error("--tolerance must be >= 0")
    report = shrink_pipeline(args.model, args.output, args.tolerance, overrides)
    if args.report is not None:
        srsly.write_json(args.report, report)
    return 0
