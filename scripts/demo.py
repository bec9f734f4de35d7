"""Print a trained chunker's output on a few sentences and its F1 on a file.

    python -m scripts.demo MODEL_DIR CONLL_FILE [--n 5] [--keep-labels NP]
"""
import argparse

import spacy

from spacy_adf.corpora.conll import conll_to_docs


def bracketed(doc, key="chunks"):
    """Words with chunks in brackets: [NP the dog] barked."""
    spans = {s.start: s for s in doc.spans.get(key, [])}
    out, i = [], 0
    while i < len(doc):
        if i in spans:
            span = spans[i]
            out.append(f"[{span.label_} {span.text}]")
            i = span.end
        else:
            out.append(doc[i].text)
            i += 1
    return " ".join(out)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("model")
    parser.add_argument("conll")
    parser.add_argument("--n", type=int, default=5)
    parser.add_argument("--keep-labels", default="NP", help="comma list, or 'all'")
    args = parser.parse_args(argv)
    nlp = spacy.load(args.model)
    keep = None if args.keep_labels == "all" else args.keep_labels.split(",")
    pairs = list(conll_to_docs(nlp.vocab, args.conll, columns=["words", "tag", "iob"],
                               iob_target="spans:chunks", keep_labels=keep))
    docs = list(nlp.pipe([p for p, _ in pairs]))
    for doc in docs[: args.n]:
        print(bracketed(doc))
    from spacy.training import Example

    examples = [Example(doc, ref) for doc, (_, ref) in zip(docs, pairs)]
    scores = nlp.get_pipe(nlp.pipe_names[-1]).score(examples)
    key = [k for k in scores if k.endswith("_f")][0]
    print(f"\n{len(docs)} sentences, {key} = {100 * scores[key]:.2f}")


if __name__ == "__main__":
    main()
