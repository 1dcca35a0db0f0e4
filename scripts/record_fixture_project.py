"""Record the cassettes of the invented GraphRAG project fixtures/projects/graphrag-detective.

The project is imported as a user would import theirs (`harness import graphrag`, into a scratch
harness project), the team's hand-written answers in fixtures/responses/graphrag-detective/ are
served from the local test server and recorded with the harness's own recording path
(scripts/record_handwritten.py), and the cassettes replace fixtures/cassettes/graphrag-detective/.

    .venv/bin/python scripts/record_fixture_project.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO_ROOT))  # the test server and the import helper live in tests/support/

from harness.errors import HarnessError  # noqa: E402
from harness.suites import load_suite  # noqa: E402
from scripts.record_handwritten import record  # noqa: E402
from tests.support.fixture_project import CASSETTES, import_fixture_project  # noqa: E402


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        try:
            suite = load_suite(import_fixture_project(root, cassettes=False, responses=True))
            record(suite)
        except (HarnessError, RuntimeError) as exc:
            print(f"record_fixture_project: {getattr(exc, 'message', exc)}", file=sys.stderr)
            return getattr(exc, "exit_code", 2)
        target = REPO_ROOT / CASSETTES
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(root / CASSETTES, target)
        print(f"wrote {target.relative_to(REPO_ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
