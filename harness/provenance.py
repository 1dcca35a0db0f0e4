"""The source commit a run was started at: `git rev-parse HEAD` in the suite's project, or None
(no git, not a repository, git refusing the folder). Asked once per new run folder and kept in
its provenance.json (harness/runfolder.py), so `harness view` can date each run by commit too.
Kept out of summary.json: a replayed run's summary is reproduced byte for byte at any commit."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_SHA = re.compile(r"[0-9a-f]{40}([0-9a-f]{24})?")  # SHA-1, or SHA-256 repositories


def source_commit(folder: Path) -> str | None:
    try:
        done = subprocess.run(["git", "-C", str(folder), "rev-parse", "--verify", "--quiet", "HEAD"],
                              capture_output=True, text=True, timeout=10, stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    commit = done.stdout.strip()
    return commit if done.returncode == 0 and _SHA.fullmatch(commit) else None
