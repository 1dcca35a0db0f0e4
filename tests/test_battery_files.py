"""Issue 28's battery for files and JSON: attacks through the CLI, each in its own process.

Surfaces (the test function names; each variant is one parametrized case):

- `test_writes_stay_in_the_project`: links planted in the destination of every write (reports,
  run folders, plots, lock, cassettes, sample folders, merge, import, export, baselines, the review
  page), out of the project, dangling, chained, relative; the outside folder must be untouched
  and the command must end in a result or one line (item 5, 6);
- `test_links_inside_the_project_are_followed`: links that stay inside are fine (relative ones
  climbing with `..`, chains, the project reached through a link): the command works;
- `test_imports_copy_nothing_from_outside`: GraphRAG and LlamaIndex imports whose prompt or
  input resolves outside the imported project (absolute, `..`, symlinks): no byte of it is copied
  into the harness project (item 7);
- `test_special_files_are_refused_in_one_line`: a FIFO, /dev/zero, a folder, a socket, a 3 GB
  sparse file or a dangling link where each reader expects a file (item 11, item 22's --apply);
- `test_big_integers_end_in_a_line`: 5,000-digit integers (and 700) in every JSON surface (item 12);
- `test_batch_state_and_endpoints`: tampered `.batch-state` and Batch API errors, and an endpoint
  with no Batch API (item 13);
- `test_import_inputs`: CSV fields over 128 KiB, deep and bigint JSON rows (item 14);
- `test_jsonl_line_separators`: U+2028, U+2029, U+0085 and control characters inside JSONL
  strings (item 16);
- `test_smaller`: item 22's YAML merge keys, flow-style suites, review dates, torn merge shards.

The counts before and after the fixes are in the issue's closing note; `scripts/` has none of this:
run it with `pytest tests/test_battery_files.py -m slow -n 2`.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from .support.battery import KEY, SPECIAL, Outcome, big_int, cli, copy_project, plant_special, remove, snapshot, \
    template_project
from .support.fake_server import FakeOpenAIServer, Script

pytestmark = pytest.mark.slow  # every variant is a process of its own

GRAPHRAG = Path(__file__).resolve().parents[1] / "fixtures" / "projects" / "graphrag-detective"
CACHE_2 = Path(__file__).resolve().parent / "fixtures" / "caches" / "graphrag-2" / "cache"
SECRET = "TOP-SECRET-battery-outside-the-project"


# --------------------------------------------------------------------------- the project and server


@pytest.fixture(scope="module")
def script() -> Script:
    from harness.suites import load_suite

    from .conftest import script_for, write_project

    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        return script_for(load_suite(write_project(Path(folder))))


@pytest.fixture(scope="module")
def server(script: Script):
    with FakeOpenAIServer(script) as srv:
        yield srv


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory, server: FakeOpenAIServer) -> Path:
    return template_project(tmp_path_factory.mktemp("template") / "p", server.base_url)


@dataclass
class Scene:
    """One attack's ground: the harness project `p`, a folder `outside` it, the local server."""

    p: Path
    outside: Path
    url: str

    def link(self, rel: str, target: str | Path) -> Path:
        path = self.p / rel
        remove(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.symlink_to(target)
        return path

    def graphrag(self, where: Path | None = None) -> Path:
        """The invented GraphRAG project, copied to `where` (default: beside the harness project)."""
        target = where or self.p.parent / "grproj"
        if not target.exists():
            shutil.copytree(GRAPHRAG, target)
        return target


@pytest.fixture
def scene(template: Path, tmp_path: Path, server: FakeOpenAIServer) -> Scene:
    p = copy_project(template, tmp_path / "p")
    outside = tmp_path / "outside"
    (outside / "sub").mkdir(parents=True)
    (outside / "sentinel.txt").write_text("outside, must stay as it is\n", encoding="utf-8")
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "secret.txt").write_text(f"{SECRET}\n{{input_text}}\n", encoding="utf-8")
    (secret / "extract_graph.txt").write_text(f"{SECRET}\n{{input_text}}\n", encoding="utf-8")
    return Scene(p, outside, server.base_url)


def run(scene: Scene, *argv: str, key: bool = False, cwd: Path | None = None) -> Outcome:
    argv = tuple(a.replace("{url}", scene.url).replace("{outside}", str(scene.outside))
                 .replace("{p}", str(scene.p)) for a in argv)
    return cli(cwd or scene.p, *argv, env={"OPENAI_API_KEY": KEY} if key else None)


# --------------------------------------------------------------------------- writes (items 5, 6)


@dataclass(frozen=True)
class Attack:
    plant: Callable[[Scene], None]
    argv: tuple[str, ...]
    key: bool = False


def _plots_run(s: Scene) -> None:
    (s.p / "reports/towns/r").mkdir(parents=True)
    s.link("reports/towns/r/plots", s.outside)


def _resumable_outside(s: Scene) -> None:
    """An unfinished run (rows, no summary) outside, linked into the suite's folder: resuming it writes there."""
    shutil.copy(s.p / "reports/towns/base/results.jsonl", s.outside / "results.jsonl")
    shutil.copy(s.p / "reports/towns/base/selection.json", s.outside / "selection.json")
    s.link("reports/towns/zz-unfinished", s.outside)


def _graphrag_outside_project(s: Scene) -> None:
    s.graphrag()
    s.link("prompts/gr", s.outside)


WRITES: dict[str, Attack] = {
    "reports-absolute": Attack(lambda s: s.link("reports", s.outside), ("run", "suites/towns.yaml", "--run-id", "r")),
    "reports-relative": Attack(lambda s: s.link("reports", "../outside"), ("run", "suites/towns.yaml", "--run-id", "r")),
    "reports-no-run-id": Attack(lambda s: s.link("reports", s.outside), ("run", "suites/towns.yaml", "--fresh")),
    "reports-option": Attack(lambda s: s.link("out", s.outside), ("run", "suites/towns.yaml", "--reports", "out")),
    "suite-folder": Attack(lambda s: s.link("reports/towns", s.outside), ("run", "suites/towns.yaml", "--run-id", "r")),
    "suite-folder-relative": Attack(lambda s: s.link("reports/towns", "../../outside"),
                                    ("run", "suites/towns.yaml", "--run-id", "r")),
    "run-id-folder": Attack(lambda s: s.link("reports/towns/r", s.outside), ("run", "suites/towns.yaml", "--run-id", "r")),
    "run-id-folder-fresh": Attack(lambda s: s.link("reports/towns/r", s.outside),
                                  ("run", "suites/towns.yaml", "--run-id", "r", "--fresh")),
    "run-id-dangling": Attack(lambda s: s.link("reports/towns/r", s.outside / "made-by-harness"),
                              ("run", "suites/towns.yaml", "--run-id", "r")),
    "resumed-unfinished-run": Attack(_resumable_outside, ("run", "suites/towns.yaml")),
    "plots-of-new-run": Attack(_plots_run, ("run", "suites/towns.yaml", "--run-id", "r")),
    "plots-of-report": Attack(lambda s: s.link("reports/towns/base/plots", s.outside), ("report", "reports/towns/base")),
    "report-md-file": Attack(lambda s: s.link("reports/towns/base/report.md", s.outside / "sentinel.txt"),
                             ("report", "reports/towns/base")),
    "results-file": Attack(lambda s: (s.p / "reports/towns/r").mkdir(parents=True) or
                           s.link("reports/towns/r/results.jsonl", s.outside / "sentinel.txt"),
                           ("run", "suites/towns.yaml", "--run-id", "r", "--fresh")),
    "lock-file-dangling": Attack(lambda s: (s.p / "reports/towns/r").mkdir(parents=True) or
                                 s.link("reports/towns/r/.lock", s.outside / "lock-made-by-harness"),
                                 ("run", "suites/towns.yaml", "--run-id", "r")),
    "selection-file": Attack(lambda s: (s.p / "reports/towns/r").mkdir(parents=True) or
                             s.link("reports/towns/r/selection.json", s.outside / "sentinel.txt"),
                             ("run", "suites/towns.yaml", "--run-id", "r")),
    "chain-inside-then-out": Attack(lambda s: (s.link("hop", s.outside), s.link("reports", "hop")) and None,
                                    ("run", "suites/towns.yaml", "--run-id", "r")),
    "baselines-folder": Attack(lambda s: s.link("reports/baselines", s.outside), ("baseline", "update", "reports/towns/base")),
    "compare-folder": Attack(lambda s: s.link("reports/towns/base/compare-s1", s.outside),
                             ("report", "reports/towns/base", "--against", "reports/towns/s1")),
    "review-page-folder": Attack(lambda s: s.link("reports/annotate", s.outside),
                                 ("annotate", "suites/towns.yaml", "--from", "reports/towns/base", "--review")),
    "gold-side-file": Attack(lambda s: s.link("suites/towns.gold.yaml", s.outside / "sentinel.txt"),
                             ("annotate", "suites/towns.yaml", "--from", "reports/towns/base")),
    "merge-reports-option": Attack(lambda s: s.link("merged", s.outside),
                                   ("merge", "reports/towns/s1", "reports/towns/s2", "--reports", "merged", "--run-id", "m")),
    "merge-default-reports": Attack(lambda s: s.link("reports/towns/m", s.outside),
                                    ("merge", "reports/towns/s1", "reports/towns/s2", "--run-id", "m")),
    "merge-suite-folder": Attack(lambda s: s.link("merged/towns", s.outside),
                                 ("merge", "reports/towns/s1", "reports/towns/s2", "--reports", "merged")),
    "cassettes-root": Attack(lambda s: s.link("fixtures/cassettes", s.outside),
                             ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r"), key=True),
    "cassettes-fixtures": Attack(lambda s: s.link("fixtures", s.outside),
                                 ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r"), key=True),
    "cassettes-suite": Attack(lambda s: s.link("fixtures/cassettes/towns", s.outside),
                              ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r"), key=True),
    "cassettes-variant": Attack(lambda s: s.link("fixtures/cassettes/towns/default", s.outside),
                                ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r",
                                 "--record-mode", "rewrite"), key=True),
    "cassettes-sample": Attack(lambda s: s.link("fixtures/cassettes/towns/default/sample-1", s.outside),
                               ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r", "--repeat", "2"),
                               key=True),
    "cassettes-sample-dangling": Attack(lambda s: s.link("fixtures/cassettes/towns/default/sample-1",
                                                         s.outside / "made-by-harness"),
                                        ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r",
                                         "--repeat", "2"), key=True),
    "cassette-file": Attack(lambda s: s.link("fixtures/cassettes/towns/default/mayor.json", s.outside / "sentinel.txt"),
                            ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r",
                             "--record-mode", "rewrite"), key=True),
    "batch-state-file": Attack(lambda s: (shutil.rmtree(s.p / "fixtures/cassettes/towns"),
                                          s.link("fixtures/cassettes/towns/.batch-state", s.outside / "state")) and None,
                               ("record", "suites/towns.yaml", "--base-url", "{url}", "--batch", "--batch-poll", "1",
                                "--run-id", "r"), key=True),
    "import-force-suite-file": Attack(lambda s: (s.graphrag(s.p / "gr"), s.link("suites/gr.yaml", s.outside / "sentinel.txt"))
                                      and None, ("import", "graphrag", "gr", "--out", "suites/gr.yaml", "--force")),
    "import-suite-file-dangling": Attack(lambda s: (s.graphrag(s.p / "gr"), s.link("suites/gr.yaml", s.outside / "new.yaml"))
                                         and None, ("import", "graphrag", "gr", "--out", "suites/gr.yaml")),
    "import-suites-folder": Attack(lambda s: (s.graphrag(s.p / "gr"), s.link("suites2", s.outside)) and None,
                                   ("import", "graphrag", "gr", "--out", "suites2/gr.yaml")),
    "import-prompt-copy-folder": Attack(_graphrag_outside_project,
                                        ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml", "--force")),
    "import-chunks-folder": Attack(lambda s: (s.graphrag(), s.link("fixtures/chunks/gr", s.outside)) and None,
                                   ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml", "--force")),
    "export-prompts-folder": Attack(lambda s: (s.p / "gr").mkdir() or s.link("gr/prompts", s.outside),
                                    ("prompts", "export", "prompts/default.txt", "gr", "--to", "graphrag", "--force")),
}


@pytest.mark.parametrize("name", list(WRITES))
def test_writes_stay_in_the_project(scene: Scene, name: str) -> None:
    attack = WRITES[name]
    attack.plant(scene)
    before = snapshot(scene.outside)
    outcome = run(scene, *attack.argv, key=attack.key)
    assert snapshot(scene.outside) == before, f"wrote outside the project\n{outcome}"
    assert outcome.clean((0, 2)), outcome


@dataclass(frozen=True)
class Inside:
    plant: Callable[[Scene], None]
    argv: tuple[str, ...]
    made: str  # a file the command writes, as reached through the link
    key: bool = False
    cwd: str | None = None  # relative to the scene's folder


def _mkdir(s: Scene, *rels: str) -> None:
    for rel in rels:
        (s.p / rel).mkdir(parents=True, exist_ok=True)


INSIDE: dict[str, Inside] = {
    "reports-to-a-folder": Inside(lambda s: (_mkdir(s, "store"), shutil.rmtree(s.p / "reports"), s.link("reports", "store"))
                                  and None, ("run", "suites/towns.yaml", "--run-id", "r"), "store/towns/r/summary.json"),
    "reports-climbing-back": Inside(lambda s: (_mkdir(s, "store", "sub"), shutil.rmtree(s.p / "reports"),
                                               s.link("reports", "sub/../store")) and None,
                                    ("run", "suites/towns.yaml", "--run-id", "r"), "store/towns/r/summary.json"),
    "suite-folder-to-sibling": Inside(lambda s: (_mkdir(s, "runs"), s.link("reports/towns", "../runs")) and None,
                                      ("run", "suites/towns.yaml", "--run-id", "r"), "runs/r/report.html"),
    "run-id-folder": Inside(lambda s: (_mkdir(s, "keep/r"), s.link("reports/towns/r", "../../keep/r")) and None,
                            ("run", "suites/towns.yaml", "--run-id", "r"), "keep/r/summary.json"),
    "chain-of-two": Inside(lambda s: (_mkdir(s, "b"), shutil.rmtree(s.p / "reports"), s.link("a", "b"),
                                      s.link("reports", "a")) and None,
                           ("run", "suites/towns.yaml", "--run-id", "r"), "b/towns/r/summary.json"),
    "absolute-link-inside": Inside(lambda s: (_mkdir(s, "store"), shutil.rmtree(s.p / "reports"),
                                              s.link("reports", s.p / "store")) and None,
                                   ("run", "suites/towns.yaml", "--run-id", "r"), "store/towns/r/summary.json"),
    "project-through-a-link": Inside(lambda s: (s.p.parent / "plink").symlink_to(s.p),
                                     ("run", "{p}/../plink/suites/towns.yaml", "--run-id", "r", "--reports",
                                      "{p}/../plink/reports"), "reports/towns/r/summary.json"),
    "cwd-through-a-link": Inside(lambda s: (s.p.parent / "plink").symlink_to(s.p),
                                 ("run", "suites/towns.yaml", "--run-id", "r"), "reports/towns/r/summary.json",
                                 cwd="plink"),
    "cassettes-to-a-store": Inside(lambda s: (shutil.move(s.p / "fixtures/cassettes/towns", s.p / "store"),
                                              s.link("fixtures/cassettes/towns", "../../store")) and None,
                                   ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r",
                                    "--record-mode", "rewrite"), "store/default/mayor.json", key=True),
    "sample-folder-inside": Inside(lambda s: (_mkdir(s, "samples"),
                                              s.link("fixtures/cassettes/towns/default/sample-1", "../../../../samples"))
                                   and None, ("record", "suites/towns.yaml", "--base-url", "{url}", "--run-id", "r",
                                              "--repeat", "2"), "samples/mayor.json", key=True),
    "explicit-outside-reports": Inside(lambda s: None, ("run", "suites/towns.yaml", "--run-id", "r", "--reports",
                                                        "{outside}/named"), "../outside/named/towns/r/summary.json"),
    "merge-into-linked-inside": Inside(lambda s: (_mkdir(s, "store"), s.link("merged", "store")) and None,
                                       ("merge", "reports/towns/s1", "reports/towns/s2", "--reports", "merged",
                                        "--run-id", "m"), "store/towns/m/summary.json"),
    "import-into-linked-suites": Inside(lambda s: (s.graphrag(s.p / "gr"), _mkdir(s, "real-suites"),
                                                   s.link("suites2", "real-suites")) and None,
                                        ("import", "graphrag", "gr", "--out", "suites2/gr.yaml"), "real-suites/gr.yaml"),
}


@pytest.mark.parametrize("name", list(INSIDE))
def test_links_inside_the_project_are_followed(scene: Scene, name: str) -> None:
    case = INSIDE[name]
    case.plant(scene)
    outcome = run(scene, *case.argv, key=case.key, cwd=scene.p.parent / case.cwd if case.cwd else None)
    assert outcome.code == 0 and not outcome.traceback, outcome
    assert (scene.p / case.made).is_file(), outcome


# --------------------------------------------------------------------------- import reads (item 7)


def _settings(project: Path, edit: Callable[[dict], None]) -> None:
    path = project / "settings.yaml"
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")


def _prompt_setting(value: Callable[[Scene], str]) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        _settings(s.graphrag(), lambda d: d["extract_graph"].__setitem__("prompt", value(s)))
    return plant


def _input_link(s: Scene) -> None:
    (s.graphrag() / "input" / "99-linked.txt").symlink_to(s.p.parent / "secret" / "secret.txt")


def _input_folder_link(s: Scene) -> None:
    project = s.graphrag()
    shutil.rmtree(project / "input")
    (project / "input").symlink_to(s.p.parent / "secret")


def _input_base_dir(value: Callable[[Scene], str]) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        _settings(s.graphrag(), lambda d: d["input"]["storage"].__setitem__("base_dir", value(s)))
    return plant


def _prompt_file_link(s: Scene) -> None:
    path = s.graphrag() / "prompts" / "extract_graph.txt"
    path.unlink()
    path.symlink_to(s.p.parent / "secret" / "extract_graph.txt")


def _prompts_folder_link(s: Scene) -> None:
    project = s.graphrag()
    shutil.rmtree(project / "prompts")
    (project / "prompts").symlink_to(s.p.parent / "secret")


def _root_dir(s: Scene) -> None:
    project = s.graphrag()
    (s.p.parent / "secret" / "prompts").mkdir()
    (s.p.parent / "secret" / "prompts" / "extract_graph.txt").write_text(f"{SECRET}\n{{input_text}}\n")
    _settings(project, lambda d: d.__setitem__("root_dir", str(s.p.parent / "secret")))


def _query_prompt_link(s: Scene) -> None:
    (s.graphrag() / "prompts" / "local_search_system_prompt.txt").symlink_to(s.p.parent / "secret" / "secret.txt")


def _llamaindex(link: str) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        docs = s.p.parent / "docs"
        docs.mkdir()
        (docs / "a.txt").write_text("Ada Lovelace worked with Charles Babbage in London.", encoding="utf-8")
        (s.p.parent / "prompt.txt").write_text("Extract triplets from {text}", encoding="utf-8")
        if link == "doc":
            (docs / "b.txt").symlink_to(s.p.parent / "secret" / "secret.txt")
        else:  # a folder of the documents' folder leads out
            (docs / "more").symlink_to(s.p.parent / "secret")
    return plant


IMPORT_READS: dict[str, tuple[Callable[[Scene], None], tuple[str, ...]]] = {
    "prompt-absolute": (_prompt_setting(lambda s: str(s.p.parent / "secret" / "extract_graph.txt")), ()),
    "prompt-dotdot": (_prompt_setting(lambda s: "../secret/extract_graph.txt"), ()),
    "prompt-symlink": (_prompt_file_link, ()),
    "prompts-folder-symlink": (_prompts_folder_link, ()),
    "input-file-symlink": (_input_link, ()),
    "input-folder-symlink": (_input_folder_link, ()),
    "input-absolute": (_input_base_dir(lambda s: str(s.p.parent / "secret")), ()),
    "input-dotdot": (_input_base_dir(lambda s: "../secret"), ()),
    "root-dir-elsewhere": (_root_dir, ()),
    "query-prompt-symlink": (_query_prompt_link, ()),
    "llamaindex-document-symlink": (_llamaindex("doc"), ("import", "llamaindex", "../docs", "--prompt", "../prompt.txt",
                                                         "--out", "suites/li.yaml")),
    "llamaindex-subfolder-symlink": (_llamaindex("folder"), ("import", "llamaindex", "../docs", "--prompt", "../prompt.txt",
                                                          "--out", "suites/li.yaml")),
}


@pytest.mark.parametrize("name", list(IMPORT_READS))
def test_imports_copy_nothing_from_outside(scene: Scene, name: str) -> None:
    plant, argv = IMPORT_READS[name]
    plant(scene)
    outcome = run(scene, *(argv or ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml")))
    assert outcome.clean((0, 2)), outcome
    copied = [p for p in scene.p.rglob("*") if p.is_file() and not p.is_symlink()
              and SECRET.encode() in p.read_bytes()]
    assert not copied, f"copied from outside the imported project: {copied}\n{outcome}"


def test_imports_of_links_inside_the_project_work(scene: Scene) -> None:
    project = scene.graphrag()
    (project / "alt").mkdir()
    shutil.move(project / "prompts" / "extract_graph.txt", project / "alt" / "extract_graph.txt")
    (project / "prompts" / "extract_graph.txt").symlink_to("../alt/extract_graph.txt")
    shutil.move(project / "input", project / "docs")
    (project / "input").symlink_to("docs")
    (scene.p.parent / "grlink").symlink_to(project)
    outcome = run(scene, "import", "graphrag", "../grlink", "--out", "suites/gr.yaml")
    assert outcome.code == 0, outcome
    suite = yaml.safe_load((scene.p / "suites/gr.yaml").read_text(encoding="utf-8"))
    assert len(suite["cases"]) == 8 and "project" in suite["variants"], outcome


# --------------------------------------------------------------------------- special files (item 11)


@dataclass(frozen=True)
class Reader:
    rel: str  # the path a special file replaces (relative to the scene's folder: p/... or grproj/...)
    argv: tuple[str, ...]
    codes: tuple[int, ...] = (2,)
    absent_codes: tuple[int, ...] = (2,)  # for a dangling link, which reads as no file at all
    prepare: Callable[[Scene], None] | None = None
    key: bool = False


def _gold_side(s: Scene) -> None:
    (s.p / "suites/towns.gold.yaml").write_text("cases: []\n", encoding="utf-8")
    with (s.p / "suites/towns.yaml").open("a", encoding="utf-8") as handle:
        handle.write("gold_file: towns.gold.yaml\n")


def _cache(s: Scene) -> None:
    shutil.copytree(CACHE_2, s.p / "cache")


def _batch_ready(s: Scene) -> None:
    shutil.rmtree(s.p / "fixtures/cassettes/towns")


READERS: dict[str, Reader] = {
    "cassette": Reader("p/fixtures/cassettes/towns/default/mayor.json", ("run", "suites/towns.yaml", "--run-id", "x"),
                       absent_codes=(3,)),
    "cassettes-audit": Reader("p/fixtures/cassettes/towns/default/mayor.json", ("cassettes", "audit", "suites/towns.yaml"),
                              codes=(1, 2), absent_codes=(0, 1, 2)),
    "batch-state": Reader("p/fixtures/cassettes/towns/.batch-state",
                          ("record", "suites/towns.yaml", "--base-url", "{url}", "--batch", "--batch-poll", "1",
                           "--run-id", "x"), absent_codes=(0,), prepare=_batch_ready, key=True),
    "results": Reader("p/reports/towns/base/results.jsonl", ("report", "reports/towns/base")),
    "summary": Reader("p/reports/towns/base/summary.json", ("report", "reports/towns/base")),
    "gate-json": Reader("p/reports/towns/base/gate.json", ("gate", "reports/towns/base"), codes=(0, 2),
                        absent_codes=(0, 2)),  # the gate is judged again and gate.json replaced, never read
    "selection": Reader("p/reports/towns/base/selection.json", ("run", "suites/towns.yaml", "--run-id", "base"),
                        codes=(0, 2), absent_codes=(0, 2)),
    "suite": Reader("p/suites/towns.yaml", ("run", "suites/towns.yaml", "--run-id", "x")),
    "prompt": Reader("p/prompts/default.txt", ("run", "suites/towns.yaml", "--run-id", "x")),
    "gold-side-file": Reader("p/suites/towns.gold.yaml", ("run", "suites/towns.yaml", "--run-id", "x"), prepare=_gold_side),
    "baseline": Reader("p/reports/baselines/towns.json", ("run", "suites/towns.yaml", "--run-id", "x", "--gate"),
                       absent_codes=(0,)),
    "evaluate-outputs": Reader("p/outputs.jsonl", ("evaluate", "suites/towns.yaml", "--outputs", "outputs.jsonl")),
    "parse-file": Reader("p/answer.txt", ("parse", "answer.txt")),
    "parse-jsonl": Reader("p/rows.jsonl", ("parse", "--jsonl", "rows.jsonl")),
    "parse-context": Reader("p/context.json", ("parse", "answer.txt", "--format", "map", "--context", "context.json"),
                            prepare=lambda s: (s.p / "answer.txt").write_text('{"points": []}', encoding="utf-8")),
    "annotate-apply": Reader("p/reviewed.yaml", ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml")),
    "annotate-agreement": Reader("p/other.yaml", ("annotate", "suites/towns.yaml", "--agreement", "other.yaml")),
    "graphrag-settings": Reader("grproj/settings.yaml", ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml"),
                                prepare=lambda s: s.graphrag() and None),
    "graphrag-prompt": Reader("grproj/prompts/extract_graph.txt", ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml"),
                              prepare=lambda s: s.graphrag() and None),
    "graphrag-input": Reader("grproj/input/01-a-caller-at-baker-street.txt",
                             ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml"), codes=(0, 2),
                             absent_codes=(0, 2), prepare=lambda s: s.graphrag() and None),
    "graphrag-env": Reader("grproj/.env", ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml"), codes=(0, 2),
                           absent_codes=(0, 2), prepare=lambda s: s.graphrag() and None),
    "cache-entry": Reader("p/cache/" + sorted(p.name for p in CACHE_2.iterdir())[0], ("audit-cache", "cache"),
                          codes=(0, 1, 2), absent_codes=(0, 1, 2), prepare=_cache),
    "docred-file": Reader("p/dev.json", ("import", "docred", "dev.json", "--out", "suites/d.yaml")),
}


@pytest.mark.parametrize("kind", SPECIAL)
@pytest.mark.parametrize("reader", list(READERS))
def test_special_files_are_refused_in_one_line(scene: Scene, reader: str, kind: str) -> None:
    spec = READERS[reader]
    if spec.prepare is not None:
        spec.prepare(scene)
    plant_special(scene.p.parent / spec.rel, kind)
    outcome = run(scene, *spec.argv, key=spec.key)
    assert outcome.clean(spec.absent_codes if kind == "dangling" else spec.codes), outcome
    if reader == "annotate-apply" and kind in ("fifo", "folder", "socket", "dev-zero"):
        assert "no such" not in outcome.last_line(), outcome


# --------------------------------------------------------------------------- big integers (item 12)


BIG = big_int()


def _json_answer(key: str) -> str:
    return json.dumps({"entities": [{"name": "Ana Ruiz", "type": "person", "description": "Mayor", key: 0}],
                       "relationships": []}).replace(f'"{key}": 0', f'"{key}": {BIG}')


def _write(rel: str, text: str) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        path = s.p / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text.replace("{BIG}", BIG), encoding="utf-8")
    return plant


def _edit_json(rel: str, edit: Callable[[str], str]) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        path = s.p / rel
        path.write_text(edit(path.read_text(encoding="utf-8")), encoding="utf-8")
    return plant


def _cassette_answer(text: str) -> Callable[[Scene], None]:
    """The recorded answer of towns/default/mayor's last round replaced by `text` (no later request
    carries it, so the cassette still replays)."""
    def plant(s: Scene) -> None:
        path = s.p / "fixtures/cassettes/towns/default/mayor.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        data["interactions"][-1]["response"]["body"]["string"]["json"]["choices"][0]["message"]["content"] = \
            text.replace("{BIG}", BIG)
        path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return plant


def _cassette_body(edit: Callable[[dict], None]) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        path = s.p / "fixtures/cassettes/towns/default/mayor.json"
        data = json.loads(path.read_text(encoding="utf-8"))
        edit(data)
        path.write_text(json.dumps(data, ensure_ascii=False).replace("123454321", BIG), encoding="utf-8")
    return plant


def _cache_bigint(s: Scene) -> None:
    _cache(s)
    entry = next(p for p in sorted((s.p / "cache").rglob("*")) if p.is_file() and p.read_text(encoding="utf-8",
                                                                                              errors="replace").startswith("{"))
    text = entry.read_text(encoding="utf-8")
    entry.write_text(text.replace("{", '{"battery": ' + BIG + ", ", 1), encoding="utf-8")


def _graphrag_json_input(row: str) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        project = s.graphrag()
        _settings(project, lambda d: d["input"].update({"file_type": "json", "file_pattern": ".*\\.json$"}))
        (project / "input" / "rows.json").write_text(row.replace("{BIG}", BIG), encoding="utf-8")
    return plant


def _text_units(name: str, text: str) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        (s.graphrag() / "output").mkdir(exist_ok=True)
        (s.graphrag() / "output" / name).write_text(text.replace("{BIG}", BIG), encoding="utf-8")
    return plant


def _batch_state(text: str) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        _batch_ready(s)
        _write("fixtures/cassettes/towns/.batch-state", text)(s)
    return plant


def _text2kgbench(edit: str, line: str) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        from .importers.test_import_text2kgbench import write_data

        folder = write_data(s.p / "t2k")
        target = folder / edit
        with target.open("a", encoding="utf-8") as handle:
            handle.write(line.replace("{BIG}", BIG) + "\n")
    return plant


GRAPHRAG_IMPORT = ("import", "graphrag", "../grproj", "--out", "suites/gr.yaml")
REPLAY = ("run", "suites/towns.yaml", "--run-id", "x")

BIGINTS: dict[str, tuple[Callable[[Scene], None], tuple[str, ...], tuple[int, ...]]] = {
    "answer-json-field": (_write("answer.json", _json_answer("weight")), ("parse", "answer.json", "--format", "json"), (0, 1)),
    "answer-json-strength": (_write("answer.json", '{"entities": [{"name": "A", "type": "person"}, {"name": "B", "type": '
                                    '"person"}], "relationships": [{"source": "A", "target": "B", "strength": {BIG}}]}'),
                             ("parse", "answer.json", "--format", "json"), (0, 1)),
    "answer-json-700-digits": (_write("answer.json", _json_answer("weight").replace(BIG, "7" * 700)),
                               ("parse", "answer.json", "--format", "json"), (0, 1)),
    "answer-json-auto": (_write("answer.json", _json_answer("rank")), ("parse", "answer.json"), (0, 1)),
    "answer-json-triples": (_write("answer.json", '[{"subject": "A", "predicate": "knows", "object": "B", "score": {BIG}}]'),
                            ("parse", "answer.json", "--format", "json_triples"), (0, 1)),
    "answer-report": (_write("answer.json", '{"title": "T", "summary": "S", "rating": {BIG}, "rating_explanation": "E", '
                             '"findings": [{"summary": "F", "explanation": "X"}]}'), ("parse", "answer.json", "--format",
                                                                                      "report"), (0, 1)),
    "answer-map-points": (_write("answer.json", '{"points": [{"description": "D [Data: Reports (1)]", "score": {BIG}}]}'),
                          ("parse", "answer.json", "--format", "map_points"), (0, 1)),
    "answer-map-query": (_write("answer.json", '{"points": [{"description": "D", "score": {BIG}}]}'),
                         ("parse", "answer.json", "--format", "map"), (0, 1)),
    "answer-graphrag-strength": (_write("answer.txt", '("entity"<|>A<|>person<|>d)##("entity"<|>B<|>person<|>d)##'
                                        '("relationship"<|>A<|>B<|>knows<|>{BIG})<|COMPLETE|>'),
                                 ("parse", "answer.txt", "--format", "graphrag"), (0, 1)),
    "answer-in-cassette-strength": (_cassette_answer('("entity"<|>ANA RUIZ<|>person<|>Mayor)##("entity"<|>LOWBRIDGE<|>geo'
                                                     '<|>Town)##("relationship"<|>ANA RUIZ<|>LOWBRIDGE<|>mayor<|>{BIG})\n'
                                                     '<|COMPLETE|>'), REPLAY, (0,)),
    "answer-in-cassette-json": (_cassette_answer(_json_answer("weight")), REPLAY, (0,)),
    "evaluate-json-output": (_write("outputs.jsonl", json.dumps({"id": "mayor", "output": _json_answer("weight")}) + "\n"),
                             ("evaluate", "suites/towns.yaml", "--outputs", "outputs.jsonl", "--format", "json"), (0, 1)),
    "evaluate-row-id": (_write("outputs.jsonl", '{"id": {BIG}, "output": "x"}\n'),
                        ("evaluate", "suites/towns.yaml", "--outputs", "outputs.jsonl"), (2,)),
    "parse-jsonl-row": (_write("rows.jsonl", '{"id": {BIG}, "output": "x"}\n'), ("parse", "--jsonl", "rows.jsonl"), (2,)),
    "parse-context": (_write("context.json", '{"Reports": [{BIG}]}'),
                      ("parse", "answer.json", "--format", "map", "--context", "context.json"), (2,)),
    "cassette-usage": (_cassette_body(lambda d: d["interactions"][0]["response"]["body"]["string"]["json"].__setitem__(
        "usage", {"prompt_tokens": 123454321, "completion_tokens": 1, "total_tokens": 2})), REPLAY, (0, 2)),
    "cassette-version": (_cassette_body(lambda d: d.__setitem__("version", 123454321)), REPLAY, (2,)),
    "cassette-status": (_cassette_body(lambda d: d["interactions"][0]["response"]["status"].__setitem__("code", 123454321)),
                        REPLAY, (2,)),
    "cassette-request": (_cassette_body(lambda d: d["interactions"][0]["request"]["body"]["json"].__setitem__(
        "seed", 123454321)), REPLAY, (2, 3)),
    "cassettes-audit": (_cassette_body(lambda d: d.__setitem__("version", 123454321)),
                        ("cassettes", "audit", "suites/towns.yaml"), (1, 2)),
    "results-row": (_edit_json("reports/towns/base/results.jsonl", lambda t: t.replace('"sample":0', '"sample":' + BIG, 1)),
                    ("report", "reports/towns/base"), (0, 2)),
    "summary": (_edit_json("reports/towns/base/summary.json", lambda t: t.replace("{", '{"battery": ' + BIG + ",", 1)),
                ("report", "reports/towns/base"), (2,)),
    "baseline": (_write("reports/baselines/towns.json", '{"suite": "towns", "baseline_schema_version": {BIG}, "cases": {}}'),
                 ("run", "suites/towns.yaml", "--run-id", "x", "--gate"), (2,)),
    "cache-entry": (_cache_bigint, ("audit-cache", "cache"), (0, 1, 2)),
    "cache-import": (lambda s: (s.graphrag(), shutil.copytree(CACHE_2, s.p.parent / "grproj" / "cache"),
                                _cache_bigint_in(s.p.parent / "grproj" / "cache")) and None,
                     (*GRAPHRAG_IMPORT, "--cache"), (0, 2)),
    "graphrag-json-input": (_graphrag_json_input('[{"text": "Holmes met Watson.", "n": {BIG}}]'), GRAPHRAG_IMPORT, (0, 2)),
    "graphrag-text-units-json": (_text_units("text_units.json", '[{"id": "u1", "text": "Holmes.", "n_tokens": {BIG}}]'),
                                 GRAPHRAG_IMPORT, (0, 2)),
    "graphrag-text-units-jsonl": (_text_units("text_units.jsonl", '{"id": "u1", "text": "Holmes.", "n_tokens": {BIG}}'),
                                  GRAPHRAG_IMPORT, (0, 2)),
    "batch-state-phase": (_batch_state('{"version": 1, "phase": {BIG}}'),
                          ("record", "suites/towns.yaml", "--base-url", "{url}", "--batch", "--batch-poll", "1"), (2,)),
    "docred": (_write("dev.json", '[{"title": "t", "sents": [["a"]], "vertexSet": [], "labels": [{"h": {BIG}}]}]'),
               ("import", "docred", "dev.json", "--out", "suites/d.yaml"), (2,)),
    "text2kgbench": (_text2kgbench("test/ont_1_movie_test.jsonl", '{"id": {BIG}, "sent": "x"}'),
                     ("import", "text2kgbench", "t2k", "--out", "t2k-suites"), (2,)),
    "suite-yaml": (_edit_json("suites/towns.yaml", lambda t: t.replace("max_retries: 3", "max_retries: " + BIG)), REPLAY, (2,)),
    "reviewed-yaml": (_write("reviewed.yaml", "reviewed: {BIG}\ncases: []\n"),
                      ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"), (2,)),
}


def _cache_bigint_in(folder: Path) -> None:
    for entry in sorted(folder.iterdir()):
        if entry.is_file():
            text = entry.read_text(encoding="utf-8")
            entry.write_text(text.replace("{", '{"battery": ' + BIG + ", ", 1), encoding="utf-8")


@pytest.mark.parametrize("name", list(BIGINTS))
def test_big_integers_end_in_a_line(scene: Scene, name: str) -> None:
    plant, argv, codes = BIGINTS[name]
    plant(scene)
    outcome = run(scene, *argv, key="--base-url" in argv)
    assert outcome.clean(codes), outcome


def test_big_integer_in_a_live_answer(tmp_path: Path, template: Path) -> None:
    """The endpoint's answer holds a 5,000-digit usage count and a 5,000-digit strength."""
    from .conftest import ANSWERS

    p = copy_project(template, tmp_path / "p")
    shutil.rmtree(p / "fixtures/cassettes/towns")
    answer = ANSWERS["default"]["mayor"][0].replace("<|>8)", f"<|>{BIG})")
    server = FakeOpenAIServer(Script(fallback=answer))
    with server:
        outcome = cli(p, "record", "suites/towns.yaml", "--base-url", server.base_url, "--run-id", "r",
                      env={"OPENAI_API_KEY": KEY})
    assert outcome.clean((0,)), outcome


# --------------------------------------------------------------------------- batch (item 13)


BATCH = ("record", "suites/towns.yaml", "--base-url", "{url}", "--batch", "--batch-poll", "1", "--run-id", "x")
STATES = {
    "not-json": "{oops",
    "a-list": "[1, 2]",
    "version-text": '{"version": "1"}',
    "phase-text": '{"version": 1, "phase": "two"}',
    "phase-list": '{"version": 1, "phase": []}',
    "phase-nan": '{"version": 1, "phase": NaN}',
    "phase-infinity": '{"version": 1, "phase": Infinity}',
    "phase-float": '{"version": 1, "phase": 1.5}',
    "phase-negative": '{"version": 1, "phase": -3}',
    "phase-bool": '{"version": 1, "phase": true}',
    "lines-text": '{"version": 1, "lines": "many"}',
    "answers-list": '{"version": 1, "answers": []}',
    "answers-of-list": '{"version": 1, "answers": {"default/mayor/s0": []}}',
    "answer-number": '{"version": 1, "answers": {"default/mayor/s0": {"h": 5}}}',
    "failed-number": '{"version": 1, "failed": 5}',
    "failed-of-lists": '{"version": 1, "failed": [[1]]}',
    "batch-ids-object": '{"version": 1, "batch_ids": {"a": 1}}',
    "batch-ids-numbers": '{"version": 1, "batch_ids": [1, 2]}',
    "open-list": '{"version": 1, "phase": 1, "open": []}',
    "open-text": '{"version": 1, "phase": 1, "open": {"g": "batch_1"}}',
    "open-id-number": '{"version": 1, "phase": 1, "open": {"g": {"id": 5, "digest": "d"}}}',
    "deep": '{"version": 1, "answers": ' + "[" * 100_000 + "]" * 100_000 + "}",
    "bigint": '{"version": 1, "lines": {BIG}}',
    "nul-bytes": '{"version": 1}\x00\x00',
    "not-utf8": None,  # bytes below
}


@pytest.mark.parametrize("name", list(STATES))
def test_batch_state_and_endpoints(scene: Scene, name: str) -> None:
    _batch_ready(scene)
    path = scene.p / "fixtures/cassettes/towns/.batch-state"
    path.parent.mkdir(parents=True, exist_ok=True)
    text = STATES[name]
    if text is None:
        path.write_bytes(b'{"version": 1, "x": "\xff\xfe"}')
    else:
        path.write_text(text.replace("{BIG}", BIG), encoding="utf-8")
    outcome = run(scene, *BATCH, key=True)
    assert outcome.refused() and ".batch-state" in outcome.last_line(), outcome


def test_batch_state_huge(scene: Scene) -> None:
    _batch_ready(scene)
    path = scene.p / "fixtures/cassettes/towns/.batch-state"
    path.parent.mkdir(parents=True)
    with path.open("wb") as handle:
        handle.write(b'{"version": 1, "answers": {"')
        handle.truncate(2 * 1024**3)
    outcome = run(scene, *BATCH, key=True)
    assert outcome.refused() and ".batch-state" in outcome.last_line(), outcome


ENDPOINTS: dict[str, tuple[int, dict]] = {
    "no-batch-api-404": (404, {"error": {"message": "File Not Found", "type": "not_found_error"}}),
    "no-batch-api-405": (405, {"error": {"message": "Method Not Allowed", "type": "invalid_request_error"}}),
    "batch-forbidden-403": (403, {"error": {"message": "no access to batches", "type": "permission_error"}}),
    "batch-server-error-500": (500, {"error": {"message": "boom", "type": "server_error"}}),
    "batch-bad-request-400": (400, {"error": {"message": "bad", "type": "invalid_request_error"}}),
}


@pytest.mark.parametrize("name", list(ENDPOINTS))
def test_batch_endpoint_errors(scene: Scene, script: Script, name: str) -> None:
    _batch_ready(scene)
    status, body = ENDPOINTS[name]
    server = FakeOpenAIServer(script)
    server.batch_error = (status, body)
    with server:
        outcome = cli(scene.p, *(a.replace("{url}", server.base_url) for a in BATCH), env={"OPENAI_API_KEY": KEY})
    assert outcome.clean((2, 4)) and ("HTTP" in outcome.last_line() or "Batch API" in outcome.last_line()), outcome
    if status in (404, 405):
        assert outcome.refused() and "batch" in outcome.last_line().lower(), outcome


# --------------------------------------------------------------------------- import inputs (item 14)


def _csv_input(body: str) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        project = s.graphrag()
        _settings(project, lambda d: d["input"].update({"file_type": "csv", "file_pattern": ".*\\.csv$"}))
        (project / "input" / "rows.csv").write_text(body, encoding="utf-8", newline="")
    return plant


FIELD_200K = "w" * (200 * 1024)
DEEP_ROWS = "[" * 100_000 + "]" * 100_000

IMPORT_INPUTS: dict[str, tuple[Callable[[Scene], None], tuple[str, ...], tuple[int, ...]]] = {
    "csv-field-200k": (_csv_input(f"id,text\n1,{FIELD_200K}\n"), GRAPHRAG_IMPORT, (0,)),
    "csv-field-200k-quoted": (_csv_input(f'id,text\n1,"{FIELD_200K}"\n'), GRAPHRAG_IMPORT, (0,)),
    "csv-field-2m": (_csv_input("id,text\n1," + "w" * (2 * 1024 * 1024) + "\n"), GRAPHRAG_IMPORT, (0, 2)),
    "csv-unclosed-quote": (_csv_input('id,text\n1,"never closed\n'), GRAPHRAG_IMPORT, (0, 2)),
    "csv-nul-byte": (_csv_input("id,text\n1,a\x00b\n"), GRAPHRAG_IMPORT, (0, 2)),
    "csv-text-units-200k": (_text_units("text_units.csv", f"id,text\nu1,{FIELD_200K}\n"), GRAPHRAG_IMPORT, (0,)),
    "json-input-deep": (_graphrag_json_input(DEEP_ROWS), GRAPHRAG_IMPORT, (0, 2)),
    "json-input-deep-row": (_graphrag_json_input('[{"text": "Holmes.", "x": ' + DEEP_ROWS + "}]"), GRAPHRAG_IMPORT, (0, 2)),
    "json-input-bigint": (_graphrag_json_input('[{"text": "Holmes.", "n": {BIG}}]'), GRAPHRAG_IMPORT, (0, 2)),
    "json-input-bigint-text": (_graphrag_json_input('[{"text": {BIG}}]'), GRAPHRAG_IMPORT, (0, 2)),
    # a text units table that cannot be read is said, and the input is cut instead
    "text-units-json-deep": (_text_units("text_units.json", DEEP_ROWS), GRAPHRAG_IMPORT, (0, 2)),
    "text-units-jsonl-deep": (_text_units("text_units.jsonl", '{"id": "u1", "text": "x"}\n' + DEEP_ROWS), GRAPHRAG_IMPORT,
                              (0, 2)),
    "text-units-jsonl-bigint": (_text_units("text_units.jsonl", '{"id": "u1", "text": "x", "n_tokens": {BIG}}'),
                                GRAPHRAG_IMPORT, (0, 2)),
    "docred-deep": (_write("dev.json", DEEP_ROWS), ("import", "docred", "dev.json", "--out", "suites/d.yaml"), (2,)),
    "docred-bigint-pos": (_write("dev.json", '[{"title": "t", "sents": [["a", "b"]], "vertexSet": [[{"name": "a", '
                                 '"type": "PER", "sent_id": 0, "pos": [0, {BIG}]}]], "labels": []}]'),
                          ("import", "docred", "dev.json", "--out", "suites/d.yaml"), (2,)),
    "text2kgbench-deep-line": (_text2kgbench("test/ont_1_movie_test.jsonl", DEEP_ROWS),
                               ("import", "text2kgbench", "t2k", "--out", "t2k-suites"), (2,)),
    "text2kgbench-bigint-truth": (_text2kgbench("ground_truth/ont_1_movie_ground_truth.jsonl",
                                                '{"id": "ont_1_movie_test_3", "triples": [{BIG}]}'),
                                  ("import", "text2kgbench", "t2k", "--out", "t2k-suites"), (2,)),
}


@pytest.mark.parametrize("name", list(IMPORT_INPUTS))
def test_import_inputs(scene: Scene, name: str) -> None:
    plant, argv, codes = IMPORT_INPUTS[name]
    plant(scene)
    outcome = run(scene, *argv)
    assert outcome.clean(codes), outcome


# --------------------------------------------------------------------------- JSONL separators (item 16)


VALID_IN_STRINGS = {"u2028": "\u2028", "u2029": "\u2029", "u0085": "\x85"}
CONTROL = {"form-feed": "\x0c", "vertical-tab": "\x0b", "file-sep": "\x1c", "group-sep": "\x1d", "record-sep": "\x1e"}


def _jsonl_surface(surface: str, sep: str) -> tuple[Callable[[Scene], None], tuple[str, ...]]:
    answer = f'("entity"<|>ANA RUIZ<|>person<|>Mayor{sep}of Lowbridge)<|COMPLETE|>'
    if surface == "parse-jsonl":
        return _write("rows.jsonl", json.dumps({"id": "a", "output": answer}, ensure_ascii=False) + "\n"), \
            ("parse", "--jsonl", "rows.jsonl")
    if surface == "evaluate":
        return _write("outputs.jsonl", json.dumps({"id": "mayor", "output": answer}, ensure_ascii=False) + "\n"), \
            ("evaluate", "suites/towns.yaml", "--outputs", "outputs.jsonl")
    if surface == "text2kgbench":
        return _text2kgbench("test/ont_1_movie_test.jsonl",
                             json.dumps({"id": "ont_1_movie_test_4", "sent": f"A{sep}film by B."}, ensure_ascii=False)), \
            ("import", "text2kgbench", "t2k", "--out", "t2k-suites")
    if surface == "text-units-jsonl":
        return _text_units("text_units.jsonl", json.dumps({"id": "u1", "text": f"Holmes{sep}met Watson."},
                                                          ensure_ascii=False)), GRAPHRAG_IMPORT
    if surface == "results-jsonl":
        return _cassette_answer(answer), REPLAY
    raise ValueError(surface)


JSONL_SURFACES = ("parse-jsonl", "evaluate", "text2kgbench", "text-units-jsonl", "results-jsonl")


@pytest.mark.parametrize("sep", list(VALID_IN_STRINGS) + list(CONTROL))
@pytest.mark.parametrize("surface", JSONL_SURFACES)
def test_jsonl_line_separators(scene: Scene, surface: str, sep: str) -> None:
    plant, argv = _jsonl_surface(surface, {**VALID_IN_STRINGS, **CONTROL}[sep])
    plant(scene)
    outcome = run(scene, *argv)
    if sep in VALID_IN_STRINGS or surface == "results-jsonl":  # JSON allows them raw in a string
        assert outcome.clean((0, 1)), outcome
    else:  # a raw control character is not JSON: one line naming the file's line 1 (or 2 for a line added)
        assert outcome.clean((0, 1, 2)), outcome
        if outcome.code == 2:
            assert ":1:" in outcome.last_line() or ":2:" in outcome.last_line() or ".jsonl" in outcome.last_line(), outcome


# --------------------------------------------------------------------------- smaller (item 22)


def _flow_suite(s: Scene) -> None:
    path = s.p / "suites/towns.yaml"
    path.write_text(json.dumps(yaml.safe_load(path.read_text(encoding="utf-8")), indent=1), encoding="utf-8")


def _merge_key_suite(s: Scene) -> None:
    path = s.p / "suites/towns.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("variants:\n  default:\n    prompt: prompts/default.txt\n",
                        "variants:\n  default: &base\n    prompt: prompts/default.txt\n")
    text = text.replace("  tuned:\n    prompt: prompts/tuned.txt\n", "  tuned:\n    <<: *base\n    prompt: prompts/tuned.txt\n")
    assert "<<: *base" in text, text
    path.write_text(text, encoding="utf-8")


def _merge_key_list(s: Scene) -> None:
    """A third variant merging the other two: the earlier (tuned) wins, so it is tuned's prompt."""
    path = s.p / "suites/towns.yaml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("  default:\n    prompt: prompts/default.txt\n", "  default: &d\n    prompt: prompts/default.txt\n")
    text = text.replace("  tuned:\n    prompt: prompts/tuned.txt\n",
                        "  tuned: &t\n    prompt: prompts/tuned.txt\n  both:\n    <<: [*t, *d]\n")
    assert "<<: [*t, *d]" in text, text
    path.write_text(text, encoding="utf-8")


def _reviewed(date: str, where: str = "file") -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        case = {"id": "mayor", "entities": [{"name": "Ana Ruiz", "type": "person"}], "relationships": []}
        data: dict = {"reviewer": "ann", "cases": [case]}
        if where == "file":
            data["reviewed"] = "DATE"
        else:
            case["reviewed"] = "DATE"
        (s.p / "reviewed.yaml").write_text(yaml.safe_dump(data, sort_keys=False).replace("DATE", date), encoding="utf-8")
    return plant


def _torn_shard(cut: int) -> Callable[[Scene], None]:
    def plant(s: Scene) -> None:
        path = s.p / "reports/towns/s2/results.jsonl"
        data = path.read_bytes()
        path.write_bytes(data[:-cut])
    return plant


SMALLER: dict[str, tuple[Callable[[Scene], None], tuple[str, ...], Callable[[Outcome], bool]]] = {
    "apply-fifo": (lambda s: plant_special(s.p / "reviewed.yaml", "fifo"),
                   ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                   lambda o: o.refused() and "no such" not in o.last_line()),
    "apply-folder": (lambda s: plant_special(s.p / "reviewed.yaml", "folder"),
                     ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                     lambda o: o.refused() and "folder" in o.last_line()),
    "apply-missing": (lambda s: None, ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                      lambda o: o.refused() and "reviewed.yaml" in o.last_line()),
    "from-on-flow-suite": (_flow_suite, ("annotate", "suites/towns.yaml", "--from", "reports/towns/base", "--refresh"),
                           lambda o: o.code == 0),
    "review-on-flow-suite": (_flow_suite, ("annotate", "suites/towns.yaml", "--from", "reports/towns/base", "--refresh",
                                           "--review"), lambda o: o.code == 0),
    "merge-key-variant": (_merge_key_suite, REPLAY, lambda o: o.code == 0),
    "merge-key-list": (_merge_key_list, (*REPLAY, "--variant", "default", "--variant", "tuned"), lambda o: o.code == 0),
    "merge-key-not-a-mapping": (lambda s: _edit_json("suites/towns.yaml", lambda t: t.replace(
        "model:\n", "model:\n  <<: 5\n", 1))(s), REPLAY, lambda o: o.refused()),
    "reviewed-99-99": (_reviewed("2026-99-99"), ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                       lambda o: o.refused() and "reviewed" in o.last_line()),
    "reviewed-13-01-case": (_reviewed("2026-13-01", "case"), ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                            lambda o: o.refused() and "reviewed" in o.last_line()),
    "reviewed-feb-30": (_reviewed("'2026-02-30'"), ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                        lambda o: o.refused()),
    "reviewed-words": (_reviewed("last tuesday"), ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                       lambda o: o.refused()),
    "reviewed-good": (_reviewed("2026-01-31"), ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                      lambda o: o.code == 0),
    "reviewed-good-quoted": (_reviewed("'2026-01-31'", "case"), ("annotate", "suites/towns.yaml", "--apply", "reviewed.yaml"),
                             lambda o: o.code == 0),
    "merge-torn-last-row-gate": (_torn_shard(40), ("merge", "reports/towns/s1", "reports/towns/s2", "--gate",
                                                   "--reports", "merged"), lambda o: o.refused()),
    "merge-torn-last-row": (_torn_shard(40), ("merge", "reports/towns/s1", "reports/towns/s2", "--reports", "merged"),
                            lambda o: o.refused()),
    "merge-missing-newline-only": (_torn_shard(1), ("merge", "reports/towns/s1", "reports/towns/s2", "--gate",
                                                    "--reports", "merged"), lambda o: o.code in (0, 1)),
}


@pytest.mark.parametrize("name", list(SMALLER))
def test_smaller(scene: Scene, name: str) -> None:
    plant, argv, held = SMALLER[name]
    plant(scene)
    outcome = run(scene, *argv)
    assert not outcome.traceback and not outcome.hung and held(outcome), outcome


def test_battery_sizes() -> None:
    """The battery stays a battery: dozens of variants per surface."""
    sizes = {"writes": len(WRITES), "inside": len(INSIDE), "import reads": len(IMPORT_READS),
             "special files": len(READERS) * len(SPECIAL), "bigints": len(BIGINTS), "batch": len(STATES) + len(ENDPOINTS),
             "import inputs": len(IMPORT_INPUTS), "jsonl": len(JSONL_SURFACES) * (len(VALID_IN_STRINGS) + len(CONTROL)),
             "smaller": len(SMALLER)}
    assert all(n >= 10 for n in sizes.values()), sizes
