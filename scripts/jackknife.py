"""k-fold jack-knifed input annotation for a downstream component's training
corpus (see spacy_adf.training.jackknife).

    python -m scripts.jackknife OUTPUT_DIR --upstream CONFIG [--upstream CONFIG2 ...]
        [--n-folds 10] [--seed 0] [--corpus corpora.train] [--jobs 1] [--keep-models]
        [--paths.train FILE --corpora.train.part all ...]

Extra ``--section.key value`` arguments are config overrides, applied to
every upstream config that has the key (``{fold_dir}`` in a value: the
fold's folder). Each fold writes OUTPUT_DIR/foldK/annotations.spacy (a rerun
skips folds that have one); when all have, OUTPUT_DIR/annotations.spacy and
OUTPUT_DIR/jackknife.json.
"""
import argparse
import sys

from spacy.cli._util import parse_config_overrides

from spacy_adf.training.jackknife import JackknifeSettings, run_jackknife


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("output")
    parser.add_argument("--upstream", action="append", required=True,
                        help="an upstream config; repeat for a chain, in pipeline order")
    parser.add_argument("--n-folds", type=int, default=10)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--corpus", default="corpora.train",
                        help="the reader section to split, in each upstream config")
    parser.add_argument("--folds", type=int, nargs="*", default=None,
                        help="run only these folds (0-based; e.g. one per process); the DocBin of all is "
                             "written once every fold is done")
    parser.add_argument("--jobs", type=int, default=1,
                        help="folds trained at the same time, each in its own process (default 1)")
    parser.add_argument("--keep-models", action="store_true", help="keep the fold models (deleted by default)")
    args, extra = parser.parse_known_args(sys.argv[1:] if argv is None else argv)
    overrides = parse_config_overrides(extra)
    settings = JackknifeSettings(upstream=args.upstream, output=args.output, n_folds=args.n_folds,
                                 seed=args.seed, corpus=args.corpus, overrides=overrides,
                                 keep_models=args.keep_models, folds=args.folds,
                                 jobs=args.jobs)
    run_jackknife(settings)


if __name__ == "__main__":
    main()
