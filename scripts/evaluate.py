"""Evaluate a trained pipeline on a CoNLL column file and write the scores.

    python -m scripts.evaluate MODEL_DIR CONLL_FILE [--output metrics/x.json]
        [--columns words,tag,iob] [--iob-target spans:chunks] [--keep-labels NP]

Gold POS tags (the `tag` column) are input features, as in CoNLL-2000.
"""
from benchmarks.evaluation import file_parser, predict_file
from benchmarks.harness import write_json


def main(argv=None):
    parser = file_parser(__doc__, "words,tag,iob")
    parser.add_argument("--iob-target", default="spans:chunks")
    parser.add_argument("--keep-labels", default=None)
    args = parser.parse_args(argv)
    keep = args.keep_labels.split(",") if args.keep_labels else None
    nlp, examples, seconds, n_tokens = predict_file(args, iob_target=args.iob_target,
                                                    keep_labels=keep)
    scores = {}
    for name in nlp.pipe_names:
        scores.update(nlp.get_pipe(name).score(examples))
    result = {
        "model": args.model,
        "data": args.data,
        "sentences": len(examples),
        "tokens": n_tokens,
        "tokens_per_second": n_tokens / seconds,
        "scores": {k: v for k, v in scores.items() if isinstance(v, (int, float))},
    }
    if args.output:
        write_json(args.output, result)
    for k, v in result["scores"].items():
        print(f"{k}: {100 * v:.2f}")
    print(f"{n_tokens / seconds:,.0f} tokens/s")


if __name__ == "__main__":
    main()
