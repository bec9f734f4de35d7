"""benchmarks.dependency_speed on the synthetic corpus: both paths timed,
their trees compared, the Markdown section written."""
import spacy

from benchmarks import dependency_speed as bench
from spacy_adf.corpora.bunsetsu import bunsetsu_docs

from tests.helpers.dep_data import corpus_examples


def test_bench_rows_and_markdown(dep_corpus):
    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pki"})
    train = corpus_examples(nlp, dep_corpus / "train.knp")
    nlp.initialize(lambda: train)
    refs = list(bunsetsu_docs(dep_corpus / "dev.knp", nlp.vocab))
    pke = bench.bench(nlp, refs, "pke", repeats=1, batch_size=16, sigma=0.0, xi=1)
    pkb = bench.bench(nlp, refs[:10], "pkb", repeats=1, batch_size=16, sigma=0.0, xi=1)
    for row in (pke, pkb):
        assert row["identical_trees"]
        assert row["python_sent_per_s"] > 0 and row["cython_sent_per_s"] > 0
        assert 0 < row["classifier_calls"] <= row["questions"]
        assert set(row["cython_us_per_sent"]) == {"read", "cascade", "tree", "rest"}
    pipe = nlp.get_pipe("pke_dependency")
    assert "predict" not in vars(pipe) and "parse_docs" not in vars(pipe.plain_model)  # the paths restored
    report = {"command": "python -m benchmarks.dependency_speed", "degree": 2, "n_train": len(train),
              "n_sv": 1, "sigma": 0.0, "xi": 1, "repeats": 1, "batch_size": 16, "pke": pke, "pkb": pkb,
              "machine": {"git_commit": "x", "cores": 2, "cpu": "cpu", "load_average_at_start": [1.0, 1.0, 1.0]},
              "load_average_at_end": [1.0, 1.0, 1.0],
              "ratios": {"pke_cython_vs_python": 1.0, "pke_cython_vs_pkb_python": 2.0,
                         "pke_cython_vs_pkb_cython": 3.0, "pkb_cython_vs_python": 1.0}}
    md = bench.markdown(report)
    assert "| PKE | cython |" in md and "| PKB | python |" in md and "NO" not in md


def test_threads_bench_runs_and_gives_the_same_trees(dep_corpus):
    """benchmarks.dependency_threads (bench-dep-threads) on the synthetic corpus."""
    from benchmarks import dependency_threads

    nlp = spacy.blank("xx")
    nlp.add_pipe("pke_dependency", config={"degree": 2, "classifier": "pke", "algorithm": "tournament"})
    nlp.initialize(lambda: corpus_examples(nlp, dep_corpus / "train.knp"))
    refs = list(bunsetsu_docs(dep_corpus / "dev.knp", nlp.vocab))
    row = dependency_threads.bench(nlp, refs, repeats=1, batch_size=16)
    assert row["identical_trees"] and row["sentences"] == len(refs)
    assert row["threads_1_sent_per_s"] > 0 and row["threads_2_sent_per_s"] > 0
