"""benchmarks/gpu_training.py: it refuses politely without a GPU, and its scaled-down shape runs
the same SFT and GRPO code on the CPU (timings are the benchmark's business, not asserted)."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.filterwarnings("ignore:.*is deprecated.*activation_checkpointing:FutureWarning")


def test_training_benchmark_refuses_politely_without_a_gpu(monkeypatch, capsys):
    # In-process, as the captioning benchmark's refusal is tested: a fresh interpreter would
    # only add a torch import (the refusal asks torch for a GPU, as a process without one would).
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))
    import gpu_training

    assert gpu_training.main([]) == 4
    out, err = capsys.readouterr()
    assert err.startswith("refused:") and "--shape small" in err
    assert "Traceback" not in err and out == ""


@pytest.mark.slow
def test_training_benchmark_scaled_down_shape_runs_on_the_cpu(capsys, small_clip):
    import torch

    sys.path.insert(0, str(ROOT / "benchmarks"))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        import gpu_training

        assert gpu_training.main(["--shape", "tiny", "--tokens-per-frame", "16", "--new-tokens",
                                  "2", "--clip", str(small_clip)]) == 0
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
        torch.set_num_threads(threads)
    table = [ln for ln in capsys.readouterr().out.splitlines() if ln.startswith("| ")][1:]
    rows = [[c.strip() for c in ln.strip("|").split("|")] for ln in table]
    assert [r[0] for r in rows] == ["SFT step (LoRA, batch 1)",
                                    "GRPO step (LoRA, G = 8, 2 new tokens)"]
    assert [int(r[1]) for r in rows] == [1, 8]  # samples per step
    assert all(int(r[2]) == 4 and int(r[3]) > 0 for r in rows)  # the clip's frames, as video tokens
    assert all(float(r[5]) > 0 and r[7] == "n/a" for r in rows)  # seconds; no GPU memory on a CPU
    assert rows[0][8] == "1.00"
