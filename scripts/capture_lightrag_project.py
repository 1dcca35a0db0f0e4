"""Run a LightRAG project's own script with a real LightRAG against the local test server; keep
the working folder it made and every request it sent.

Run it with the harness's Python; the project runs in another (a scratch virtualenv holding
`lightrag-hku==X.Y.Z` and `openai`: LightRAG is never a dependency of the harness):

    .venv/bin/python scripts/capture_lightrag_project.py \\
        --python /work/scratch/i27-lrproj-1.4.6/bin/python \\
        --project tests/fixtures/engine_captures/lightrag-1.4.6-project

The project folder holds `index.py` (a user's script: `LightRAG(...)` with `openai_complete`, its
settings as keyword arguments), `.env`, `requirements.txt` and `inputs/`. A copy of it is run as
`python index.py`, with OPENAI_API_BASE naming the test server (LightRAG's OpenAI binding reads
it when the script names no base_url) and the harness's tiktoken encodings (offline). The server
answers every extraction call in the version's record format, with entity names of the chunk's
own (no two chunks share an entity, so LightRAG asks for no description summary), and `yes`
to every loop check (releases that ask one ask none after the last gleaning). Written into the
project folder:

- `rag_storage/`: LightRAG's working folder (vector stores and graph file deleted: not read);
- `requests.json`: the engine's version, and every request body in the order received with the
  answer it got. tests/importers/test_import_lightrag_record.py imports the project, records it
  through the harness against the same server and compares the bodies.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = ("index.py", ".env", "requirements.txt", "inputs")


def _first_user(body: dict[str, Any]) -> str:
    return next((m.get("content", "") for m in body.get("messages", []) if m.get("role") == "user"), "")


def answer_for(body: dict[str, Any]) -> str:
    """The scripted answer, chosen by the conversation: its first user message names the chunk, the
    answers so far the round; a short question holding YES and NO is the loop check."""
    messages = body.get("messages", [])
    tag = hashlib.md5(_first_user(body).encode("utf-8")).hexdigest()[:6]
    last = messages[-1].get("content", "") if messages else ""
    gleaned = sum(1 for m in messages if m.get("role") == "assistant")
    if len(last) < 400 and re.search(r"\bYES\b", last) and re.search(r"\bNO\b", last):
        return "yes"
    new = any("<|#|>" in m.get("content", "") for m in messages)
    records = [("Mara", "person", "A harbour pilot"), ("Kestrel", "vessel", "A ferry")] if gleaned == 0 else \
        [("Port", "harbour", "A port") if gleaned == 1 else ("Tomas", "person", "A guide")]
    if new:
        lines = [f"entity<|#|>{name} {tag}<|#|>{kind}<|#|>{about}" for name, kind, about in records]
        if gleaned == 0:
            lines.append(f"relation<|#|>Mara {tag}<|#|>Kestrel {tag}<|#|>piloting<|#|>Mara pilots the Kestrel")
        return "\n".join(lines) + "\n<|COMPLETE|>"
    parts = [f'("entity"<|>"{name} {tag}"<|>"{kind}"<|>"{about}")' for name, kind, about in records]
    if gleaned == 0:
        parts.append(f'("relationship"<|>"Mara {tag}"<|>"Kestrel {tag}"<|>"Mara pilots the Kestrel"<|>"piloting"<|>8)')
    return "##\n".join(parts) + "<|COMPLETE|>"


def engine_version(python: str) -> str:
    code = "import importlib.metadata as m; print(m.version('lightrag-hku'))"
    return subprocess.run([python, "-c", code], capture_output=True, text=True, check=True).stdout.strip()


def capture(python: str, project: Path) -> None:
    sys.path.insert(0, str(REPO_ROOT))
    from harness.llm.tokens import seed_cache
    from tests.support.fake_server import FakeOpenAIServer

    version = engine_version(python)
    answered: list[dict[str, Any]] = []

    def respond(body: dict[str, Any]) -> str:
        text = answer_for(body)
        answered.append({"body": body, "answer": text})
        return text

    with tempfile.TemporaryDirectory(prefix="lr-project-") as tmp:
        run = Path(tmp)
        for name in PROJECT_FILES:
            source = project / name
            if source.is_dir():
                shutil.copytree(source, run / name)
            elif source.is_file():
                shutil.copy(source, run / name)
        with FakeOpenAIServer(respond) as server:
            env = {**os.environ, "OPENAI_API_BASE": server.base_url, "OPENAI_API_KEY": "sk-capture",
                   "TIKTOKEN_CACHE_DIR": str(seed_cache())}
            done = subprocess.run([python, "index.py"], cwd=run, capture_output=True, text=True, timeout=1800, env=env)
        if done.returncode != 0 or "Traceback" in done.stderr:
            raise SystemExit(f"the project failed (exit {done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        storage = project / "rag_storage"
        shutil.rmtree(storage, ignore_errors=True)
        shutil.copytree(run / "rag_storage", storage)
    for path in storage.iterdir():
        if path.name.startswith("vdb_") or path.suffix == ".graphml":
            path.unlink()
    requests = {"engine": f"lightrag-{version}", "captured": datetime.date.today().isoformat(), "requests": answered}
    (project / "requests.json").write_text(json.dumps(requests, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"lightrag-hku {version}: {len(answered)} requests; {sorted(p.name for p in storage.iterdir())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="the Python of a venv holding lightrag-hku and openai")
    parser.add_argument("--project", required=True, type=Path, help="the project folder (index.py, .env, inputs/)")
    args = parser.parse_args()
    capture(args.python, args.project.resolve())


if __name__ == "__main__":
    main()
