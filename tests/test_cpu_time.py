"""benchmarks/cpu_time.py counts the CPU of processes its command leaves behind (as Chromium
leaves its renderers): a shell that starts a busy process and exits at once."""
from __future__ import annotations

import subprocess
import sys

from tests.conftest import ROOT


def test_an_orphaned_process_is_waited_for_and_counted(tmp_path):
    out = tmp_path / "cpu.txt"
    busy = (f"{sys.executable} -c \"import time; t = time.process_time()\n"
            "while time.process_time() - t < 0.6: pass\"")
    done = subprocess.run([sys.executable, "benchmarks/cpu_time.py", "-o", str(out), "--",
                           "sh", "-c", f"{busy} & exit 3"], cwd=ROOT, timeout=60)
    assert done.returncode == 3  # the command's own exit code
    user, _, system, _, wall, _, _, rc = out.read_text().split()
    assert float(user) + float(system) >= 0.6 and float(wall) >= 0.6 and rc == "3"
