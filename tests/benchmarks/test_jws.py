"""The JWS benchmark end to end on the small KNP corpus of the dependency
tests (the real run takes ~40 minutes on KWDLC)."""
import pytest

from benchmarks import jws


@pytest.mark.slow  # ~10-25 s: two libsvm and one primal training, every form timed
def test_run_on_a_small_corpus(dep_corpus, tmp_path):
    data = tmp_path / "data"
    (data / "kwdlc").mkdir(parents=True)
    for name in ("train", "test"):
        src = dep_corpus / ("train.knp" if name == "train" else "dev.knp")
        (data / "kwdlc" / f"{name}.knp").write_text(src.read_text(encoding="utf8"), encoding="utf8")
    models = tmp_path / "models"
    r = jws.run(data, models, libsvm_sizes=(30, 60, 10_000), libsvm_limit=60, repeats=1)
    lib = r["libsvm"]
    assert [t["sentences"] for t in lib["timings"]] == [30, 60] and lib["size"] == 60
    t1 = lib["table1"]
    assert t1["n_sv"] == t1["n_pos_sv"] + t1["n_neg_sv"] > 0 and t1["B"] > 0
    kinds = [row["kind"] for row in lib["table3"]]
    assert kinds == ["pkb", "pki", "pke", "pke", "pke", "pke"]
    assert lib["table3"][1]["boundary_acc"] == lib["table3"][0]["boundary_acc"]  # PKI is exact
    assert [row["xi"] for row in lib["table5"]] == [1, 2, 3]
    primal = r["primal"]
    assert primal["train_seconds"] > 0 and primal["segmentation"]["chars_per_s"] > 0
    assert 0 < primal["segmentation"]["boundary_acc"] <= 100 and "classifier" in primal["model_bytes"]
    # the tokenizer form of the same model gives the same Docs
    assert primal["segmentation"]["tokenizer_form"]["identical_docs"] is True
    # a second run reuses the saved models, the primal weights included
    again = jws.run(data, models, libsvm_sizes=(30,), repeats=1)
    assert again["primal"]["table3"][0]["omega"] == primal["table3"][0]["omega"]
    assert again["libsvm"]["table1"]["n_sv"] == lib["timings"][0]["n_sv"]
