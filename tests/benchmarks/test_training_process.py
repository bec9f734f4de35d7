"""The training-process benchmark's pure parts on synthetic records: the
process log, the phases, the time to the target, the done-when ratios and
the Markdown section (the full run takes ~35 minutes)."""
import json

import pytest

from benchmarks import training_process as bench

T0 = 1_000_000.0  # the parent's time.time() when it started the child


def _event(event, t, **extra):
    return {"event": event, "time": T0 + t, "process_seconds": t - 0.01, **extra}


def _evaluation(t_update_end, dev_read, evaluate, save, score, epoch, step):
    evaluate_end = t_update_end + dev_read + evaluate
    logged = evaluate_end + save
    return _event("evaluation", logged, epoch=epoch, step=step, score=score,
                  update_end_time=T0 + t_update_end, evaluate_end_time=T0 + evaluate_end,
                  dev_read_seconds=dev_read, eval_seconds=dev_read + evaluate,
                  save_seconds=save)


def synthetic_log():
    return [
        {"event": "process", "process_start_time": T0 + 0.01, "pid": 1, "factory_calls": 2},
        _event("init_start", 2.0), _event("init_end", 7.0), _event("setup", 7.5),
        _event("first_update", 8.5),
        _evaluation(8.6, 0.1, 1.9, 0.5, 0.90, 0, 0),
        _evaluation(20.0, 0.0, 2.0, 1.0, 0.945, 1, 140),
        _evaluation(33.0, 0.0, 2.0, 1.0, 0.95, 2, 280),
        _event("finalize", 40.0), _event("exit", 41.0),
    ]


@pytest.fixture
def log(tmp_path):
    path = tmp_path / "process.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in synthetic_log()), encoding="utf8")
    return bench.read_process_log(path)


def test_read_process_log(log):
    assert len(log["evaluations"]) == 3
    assert log["init_start"]["time"] == T0 + 2.0 and log["exit"]["time"] == T0 + 41.0


def test_phases_add_up_to_the_whole_process(log):
    p = bench.phase_breakdown(log, T0, T0 + 41.5)
    ph = p["phases"]
    assert p["total_seconds"] == pytest.approx(41.5)
    assert ph["startup"] == pytest.approx(2.0)
    assert ph["initialize"] == pytest.approx(6.5)  # init 5.0 + loop set-up 0.5 + reread 1.0
    assert p["detail"]["nlp_initialize"] == pytest.approx(5.0)
    assert p["detail"]["train_corpus_reread"] == pytest.approx(1.0)
    assert ph["evaluation"] == pytest.approx(2.0 + 2.0 + 2.0)
    assert p["detail"]["checkpoint_saves"] == pytest.approx(2.5)
    assert ph["saving"] == pytest.approx(2.5 + 1.0)
    assert ph["exit"] == pytest.approx(0.5)
    assert ph["training"] == pytest.approx(40.0 - 8.5 - 6.0 - 2.5)
    assert sum(ph.values()) == pytest.approx(p["total_seconds"])
    assert sum(p["shares"].values()) == pytest.approx(1.0)
    assert p["child_process_start_offset"] == pytest.approx(0.01)


def test_phases_with_missing_events(log):
    del log["init_start"], log["exit"]
    ph = bench.phase_breakdown(log, T0, T0 + 41.5)["phases"]
    assert ph["startup"] is None and ph["initialize"] is None
    assert ph["exit"] is None and ph["saving"] is None
    assert ph["evaluation"] == pytest.approx(6.0)


def test_time_to_target(log):
    timeline = bench.evaluation_timeline(log, T0)
    assert [e["score"] for e in timeline] == pytest.approx([90.0, 94.5, 95.0])
    hit = bench.time_to_target(timeline, 94.5)
    assert hit["reached"] and hit["evaluation"]["epoch"] == 1
    assert hit["time_to_target"] == pytest.approx(23.0)  # logged, after the checkpoint
    assert hit["time_to_target_scored"] == pytest.approx(22.0)
    assert not bench.time_to_target(timeline, 96.0)["reached"]
    derived = bench.time_to_target(timeline, None)
    assert derived["target_derived"] and derived["target"] == pytest.approx(94.9)
    assert derived["evaluation"]["epoch"] == 2


def _adf(time_to_target, rss, eval_over_pipe):
    return {"target": {"time_to_target": time_to_target}, "peak_rss_mb": rss,
            "speed": {"eval_over_pipe": eval_over_pipe}}


def test_done_when_ratios():
    results = {"np": _adf(20.0, 390.0, 1.5), "all": _adf(None, 500.0, 2.5),
               "weibo": _adf(50.0, 900.0, 3.0)}
    refs = {"crfsuite-np": {"append_seconds": 12.0, "train_seconds": 88.0, "peak_rss_mb": 300.0},
            "crfsuite-all": {"append_seconds": 10.0, "train_seconds": 150.0, "peak_rss_mb": 400.0},
            "pkuseg-weibo": {"peak_rss_mb": 1000.0}}
    dw = bench.done_when_ratios(results, refs)
    assert dw["np_time_to_target_over_crfsuite"]["value"] == pytest.approx(0.2)
    assert dw["np_time_to_target_over_crfsuite"]["met"] is True
    assert dw["all_time_to_target_over_crfsuite"]["value"] is None
    assert dw["all_time_to_target_over_crfsuite"]["met"] is None
    assert dw["np_peak_rss_over_crfsuite"]["value"] == pytest.approx(1.3)
    assert dw["np_peak_rss_over_crfsuite"]["met"] is True
    assert dw["all_peak_rss_over_crfsuite"]["value"] == pytest.approx(1.25)
    assert dw["weibo_peak_rss_over_pkuseg"]["value"] == pytest.approx(0.9)
    assert dw["np_eval_over_pipe"]["met"] is True and dw["all_eval_over_pipe"]["met"] is False
    # without the references only the eval/pipe ratios remain
    assert set(bench.done_when_ratios(results, {})) == {"np_eval_over_pipe", "all_eval_over_pipe"}


def test_markdown_section(log):
    process = bench.phase_breakdown(log, T0, T0 + 41.5)
    timeline = bench.evaluation_timeline(log, T0)
    result = {"config": "configs/chunking_np.cfg", "peak_rss_mb": 390.0, "process": process,
              "evaluations": timeline, "target": bench.time_to_target(timeline, 94.5),
              "speed": {"unit": "tokens", "per_second": 90000.0, "eval_over_pipe": 1.5}}
    crf = {"task_title": "CoNLL-2000 base-NP", "f1": 93.99, "passes": 175, "append_seconds": 12.0,
           "train_seconds": 88.0, "child_wall_seconds": 101.0, "peak_rss_mb": 300.0,
           "tokens_per_second": 22000.0}
    pk = {"f": 90.1, "own_f_last": 90.0, "passes": 2, "seconds_per_pass": [100.0, 102.0],
          "mean_seconds_per_pass": 101.0, "train_wall_seconds": 300.0, "peak_rss_mb": 800.0,
          "chars_per_s": 30000.0, "projected_20_pass_seconds": 2118.0}
    report = {
        "command": "python -m benchmarks.training_process", "started": "2026-12-01 05:40:00 UTC",
        "total_wall_seconds": 1800.0, "repo_changed_during_run": True,
        "machine": {"cores": 2, "cpu": "AMD EPYC", "load_average_at_start": [0.1, 0.2, 0.3],
                    "python": "3.11", "spacy": "3.8", "python_crfsuite": "0.9",
                    "spacy_pkuseg": "1.0", "spacy_adf": "0.1", "git_commit": "abc1234"},
        "settings": {"repeats": 3, "quick": False, "limit": 0},
        "results": {"np": result},
        "references": {"crfsuite-np": crf, "pkuseg-weibo": pk},
    }
    report["done_when"] = bench.done_when_ratios(report["results"], report["references"])
    md = bench.markdown_section(report)
    assert md.startswith("## Training as the user feels it")
    assert "| np: `configs/chunking_np.cfg` | 94.50 | 23.0 (1) | 41.5 | 2.0 (5%) |" in md
    assert "| python-crfsuite L-BFGS | CoNLL-2000 base-NP | F1 93.99 | 175 |" in md
    assert "20 passes would take about 2118 s" in md
    assert "| 0.230 | <= 0.3 | yes |" in md  # 23.0 / (12 + 88)
    assert "Smoke run" not in md and "repository changed" in md


def test_parse_args_defaults_and_quick():
    args = bench.parse_args([])
    assert args.configs[0] == "pos" and "jnlpba" not in args.configs
    assert args.references == ["crfsuite", "pkuseg"] and args.pkuseg_iters == 2
    assert args.out_json == bench.DEFAULT_JSON and args.limit == 0
    quick = bench.parse_args(["--quick"])
    assert quick.configs == ["np", "all", "weibo"] and quick.limit == 300
    assert quick.out_json == bench.QUICK_JSON
    # jnlpba_pos needs the POS tagger: trained first unless --pos-model is given
    assert bench.parse_args(["--configs", "jnlpba_pos"]).configs == ["pos", "jnlpba_pos"]
    assert bench.parse_args(["--configs", "jnlpba_pos", "--pos-model", "x"]).configs == [
        "jnlpba_pos"]
    assert bench.parse_args(["--references", "none"]).references == []
    with pytest.raises(SystemExit):
        bench.parse_args(["--configs", "nope"])


def test_config_groups():
    assert bench.parse_args(["--configs", "all"]).configs == ["all"]  # all phrases
    assert bench.parse_args(["--configs", "every"]).configs[0] == "pos"
    assert "jnlpba" in bench.parse_args(["--configs", "every"]).configs
    assert bench.parse_args(["--configs", "issue17"]).configs == [
        "pos", "np", "all", "weibo", "jnlpba_pos"]
    assert bench.parse_args(["--configs", "np,quick"]).configs == ["np", "all", "weibo"]
