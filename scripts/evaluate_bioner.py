"""Evaluate a trained Bio-NER pipeline on a tokenised IOB2 file (exact-match
entity P/R/F, overall and per type) and write the scores as JSON.

    python -m scripts.evaluate_bioner MODEL_DIR TEST_FILE --output metrics/x.json
        [--columns words,iob] [--sep TAB] [--train-log LOG.jsonl]

TEST_FILE keeps its own tokens (e.g. JNLPBA's Genia4EReval1.iob2, NCBI-disease
or BC5CDR test.tsv): the pipeline's tokenizer is not used, only the NER
component runs on Docs built from the file's words. Entity matching is exact
(same start, end and type), which is conlleval's and the JNLPBA shared task's
"full match" F-score. With --train-log (the TimingLogger.v1 JSON lines of
the training run), seconds per pass and the number of passes are added.
"""
from pathlib import Path

from spacy.scorer import Scorer

from benchmarks.evaluation import file_parser, predict_file
from benchmarks.harness import read_jsonl, write_json


def _training_summary(log_path: Path):
    """Per logged evaluation: epoch, step, train seconds (evaluation
    excluded) and dev score, from a TimingLogger.v1 log."""
    records = read_jsonl(log_path)
    return [{"epoch": r.get("epoch"), "step": r.get("step"),
             "train_seconds": r.get("train_seconds"), "dev_score": r.get("score")}
            for r in records]


def main(argv=None):
    parser = file_parser(__doc__, "words,iob")
    parser.add_argument("--sep", default="\t")
    parser.add_argument("--train-log", default=None)
    args = parser.parse_args(argv)
    nlp, examples, seconds, n_tokens = predict_file(args, iob_target="ents", input_attrs=(),
                                                    sep=args.sep)
    scores = Scorer.score_spans(examples, "ents")
    result = {
        "model": args.model,
        "data": args.data,
        "sentences": len(examples),
        "tokens": n_tokens,
        "gold_entities": sum(len(eg.reference.ents) for eg in examples),
        "predicted_entities": sum(len(eg.predicted.ents) for eg in examples),
        "tokens_per_second": n_tokens / seconds,
        "ents_p": scores["ents_p"],
        "ents_r": scores["ents_r"],
        "ents_f": scores["ents_f"],
        "ents_per_type": scores["ents_per_type"],
    }
    for name in nlp.pipe_names:
        pipe = nlp.get_pipe(name)
        if hasattr(pipe, "memory_report"):
            rep = pipe.memory_report()
            result.setdefault("components", {})[name] = {
                "n_weights": int(rep["n_weights"]), "n_features": int(rep["n_features"]),
                "model_bytes": int(rep["model_bytes"])}
    if args.train_log:
        result["training_log"] = _training_summary(Path(args.train_log))
    if args.output:
        write_json(args.output, result)
    print(f"{args.data}: {len(examples)} sentences, {result['gold_entities']} gold entities")
    print(f"F {100 * result['ents_f']:.2f}  P {100 * result['ents_p']:.2f}  R {100 * result['ents_r']:.2f}")
    for label, s in sorted(result["ents_per_type"].items()):
        print(f"  {label:10s} F {100 * s['f']:.2f}  P {100 * s['p']:.2f}  R {100 * s['r']:.2f}")
    for name, rep in result.get("components", {}).items():
        print(f"{name}: {rep['n_weights']:,} weights, {rep['n_features']:,} features")
    print(f"{n_tokens / seconds:,.0f} tokens/s")


if __name__ == "__main__":
    main()
