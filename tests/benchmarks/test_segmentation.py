"""The segmentation benchmark's pure parts: log parsing, per-pass times,
comparison and the Markdown table (the full run takes ~45 minutes)."""
import json

from benchmarks import segmentation as bench

PKUSEG_LOG = """reading training & test data...
iter0  diff=1.00e+100  train-time(sec)=104.06  f-score=92.38%
iter1  diff=1.00e+100  train-time(sec)=110.50  f-score=93.10%
finished.
"""


def test_parse_pkuseg_log():
    its = bench.parse_pkuseg_log(PKUSEG_LOG)
    assert [i["iter"] for i in its] == [0, 1]
    assert its[1]["train_seconds"] == 110.5 and its[0]["own_f"] == 92.38


def test_pkuseg_result(tmp_path):
    log = tmp_path / "log"
    log.write_text(PKUSEG_LOG, encoding="utf8")
    r = bench.pkuseg_result({"wall_seconds": 300.0, "peak_rss_mb": 99.0}, log)
    assert r["passes"] == 2 and abs(r["mean_seconds_per_pass"] - 107.28) < 1e-9


def test_adf_result_counts_whole_passes(tmp_path):
    # spaCy logs after the first batch (step 0) and then once per pass
    recs = [{"epoch": e, "step": 315 * e, "train_seconds": t, "other_scores": {"token_f": f}}
            for e, (t, f) in enumerate([(0.1, 0.5), (9.1, 0.93), (16.1, 0.94)])]
    (tmp_path / "log.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf8")
    r = bench.adf_result({"wall_seconds": 40.0, "peak_rss_mb": 500.0}, tmp_path, epochs=3)
    assert [round(x, 6) for x in r["seconds_per_pass"]] == [9.0, 7.0]
    assert abs(r["mean_seconds_per_pass"] - 8.0) < 1e-9 and r["passes"] == 3


def test_compare_and_markdown():
    res = {"title": "T",
           "adf": {"f": 95.0, "p": 95, "r": 95, "oov_recall": 70, "chars_per_s_tokenizer": 300000.0,
                   "chars_per_s_component": 50000.0,
                   "train": {"passes": 10, "mean_seconds_per_pass": 7.0, "train_wall_seconds": 100,
                             "peak_rss_mb": 600}},
           "pkuseg": {"f": 94.0, "p": 94, "r": 94, "oov_recall": 60, "chars_per_s": 30000.0,
                      "train": {"passes": 20, "mean_seconds_per_pass": 100.0,
                                "train_wall_seconds": 2500, "peak_rss_mb": 900}}}
    c = bench.compare(res)
    assert abs(c["f_gain"] - 1.0) < 1e-9 and c["seconds_per_pass_ratio"] == 0.07 and c["speed_ratio"] == 10.0
    res["comparison"] = c
    report = {"machine": {"cpu": "X", "cores": 2, "git_commit": "abc", "spacy_pkuseg": "1.0.2"},
              "settings": {"repeats": 2}, "results": {"t": res}}
    md = bench.markdown_section(report)
    assert "| T | adf_segmenter | 95.00 |" in md and "10.0x" in md and "+1.00" in md


def test_gold_words_of_every_format(tmp_path):
    seg = tmp_path / "a.txt"
    seg.write_text("我们 在\u3000 北京\n\n中国\r\n", encoding="utf8")
    assert bench.read_words(seg, "segmented") == [["我们", "在", "北京"], ["中国"]]
    conllu = tmp_path / "a.conllu"
    conllu.write_text("1\t看似\t_\tVERB\tVV\t_\t0\troot\t_\t_\n2\t簡單\t_\tADJ\tJJ\t_\t1\tdep\t_\t_\n\n",
                      encoding="utf8")
    assert bench.read_words(conllu, "conllu") == [["看似", "簡單"]]
