"""python -m spacy_adf COMMAND ...: the project's commands for users, run
from any folder. `python -m spacy_adf COMMAND --help` tells a command's
options.
"""
import importlib
import sys

# name: (module, function, what it does)
COMMANDS = {
    "convert": ("spacy_adf.corpora.convert", "main",
                "a CoNLL, segmented, KNP, CaboCha or CoNLL-U corpus as a .spacy DocBin (for spacy evaluate)"),
    "assemble": ("spacy_adf.packaging.assemble", "main",
                 "one raw-text pipeline from the components of trained pipelines"),
    "segmenter-tokenizer": ("spacy_adf.packaging.assemble", "segmenter_tokenizer_main",
                            "a pipeline whose tokenizer is a trained adf_segmenter"),
    "shrink": ("spacy_adf.packaging.shrink", "main",
               "prune the CRF weights of a trained pipeline as far as its dev score allows"),
    "clusters": ("spacy_adf.features.clusters", "main",
                 "word clusters induced from a large text file, as a table a config's clusters setting reads"),
    "vector-clusters": ("spacy_adf.features.vector_clusters", "main",
                        "word clusters of word vectors (a word2vec/fastText text file, a spaCy vectors folder)"),
    "vector-words": ("spacy_adf.features.vector_clusters", "words_main",
                     "the words of a word-vector table, most frequent first: a lexicon for a segmenter"),
    "vectors": ("spacy_adf.features.word2vec", "main",
                "a word2vec text file as a blank pipeline with vectors, for [initialize] vectors"),
    "jackknife": ("spacy_adf.corpora.jackknifed", "main",
                  "k-fold jack-knifed upstream annotation of a training corpus"),
    "self-train-corpus": ("spacy_adf.training.self_training", "main",
                          "gold lines plus raw lines segmented by a trained segmenter"),
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [__doc__, "Commands:"]
    lines += [f"  {name:{width}}  {what}" for name, (_, _, what) in COMMANDS.items()]
    return "\n".join(lines)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(usage())
        return 0
    if argv[0] not in COMMANDS:
        print(f"unknown command {argv[0]!r}\n\n{usage()}", file=sys.stderr)
        return 2
    module, function, _ = COMMANDS[argv[0]]
    return getattr(importlib.import_module(module), function)(argv[1:]) or 0


if __name__ == "__main__":
    sys.exit(main())
