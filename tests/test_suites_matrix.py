"""A suite's model matrix (`models:`, harness/suites.py): every variant runs with every model as a
cell `<variant>@<model>`, with its own model block and cassettes; `--model` and `--variant` select
cells; bad matrices are one line naming the file, the place and the problem (exit 2)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.cli import main
from harness.errors import InputError
from harness.run.cassette_paths import cassette_path
from harness.run.plan import plan_variant
from harness.runfolder import read_summary
from harness.suites import load_suite

from .conftest import ANSWERS, REPO, write_project
from .support.fake_server import FakeOpenAIServer, Script

MODELS: dict[str, Any] = {
    "mini": {"name": "gpt-4o-mini"},
    "local": {"name": "qwen2.5:7b", "base_url": "http://127.0.0.1:8080/v1", "api_key_env": "LOCAL_KEY",
              "temperature": 0.3},
}


def matrix_project(root: Path, models: Any = None, **changes: Any) -> Path:
    """The tests' tiny project (two prompts, three cases) with `models:` and other top-level changes."""
    path = write_project(root, max_gleanings=0)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["models"] = copy.deepcopy(MODELS if models is None else models)
    data.update(changes)
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def refused(path: Path, *needles: str) -> str:
    with pytest.raises(InputError) as caught:
        load_suite(path)
    message = caught.value.message
    assert message.startswith(f"{path}:") and "\n" not in message, message
    for needle in needles:
        assert needle in message, message
    return message


# ------------------------------------------------------------------ expansion


def test_every_variant_runs_with_every_model_as_a_cell_of_its_own(tmp_path: Path) -> None:
    suite = load_suite(matrix_project(tmp_path))
    assert suite.variant_names() == ["default@mini", "default@local", "tuned@mini", "tuned@local"]
    assert {name: (c.variant, c.model) for name, c in suite.cells.items()} == {
        "default@mini": ("default", "mini"), "default@local": ("default", "local"),
        "tuned@mini": ("tuned", "mini"), "tuned@local": ("tuned", "local")}
    # the baseline prompt's cell with the first model
    assert suite.baseline == "default@mini"
    local = plan_variant(suite, "tuned@local").endpoint
    assert (local.model, local.base_url, local.api_key_env, local.temperature) == (
        "qwen2.5:7b", "http://127.0.0.1:8080/v1", "LOCAL_KEY", 0.3)
    mini = plan_variant(suite, "default@mini").endpoint
    assert (mini.model, mini.base_url, mini.api_key_env) == ("gpt-4o-mini", None, "OPENAI_API_KEY")
    # a cell's prompt is its variant's
    assert plan_variant(suite, "tuned@local").template.user == plan_variant(suite, "tuned@mini").template.user
    assert suite.prompt_variant("tuned@local") == "tuned" and suite.prompt_variant("tuned") == "tuned"


def test_an_entry_takes_the_suite_models_unset_settings_but_not_its_name(tmp_path: Path) -> None:
    """`model:` holds what the matrix's models share (max_gleanings 0, max_retries 3 in the project)."""
    suite = load_suite(matrix_project(tmp_path, models={"gpt-4o": None, "other": {"name": "o3-mini", "max_retries": 1}}))
    first, second = suite.model_settings("default@gpt-4o"), suite.model_settings("default@other")
    assert (first.name, first.max_retries, first.max_gleanings) == ("gpt-4o", 3, 0)  # a bare key: its own name
    assert (second.name, second.max_retries, second.max_gleanings) == ("o3-mini", 1, 0)
    # a suite without `models:` calls its `model:` everywhere
    plain = load_suite(write_project(tmp_path / "plain"))
    assert plain.cells == {} and plain.model_settings("tuned") is plain.spec.model


def test_the_list_form_labels_a_model_by_its_label_else_its_name(tmp_path: Path) -> None:
    suite = load_suite(matrix_project(tmp_path, models=[{"name": "gpt-4o"}, {"name": "qwen2.5:7b", "label": "qwen"}]))
    assert [c.model for c in suite.cells.values()][:2] == ["gpt-4o", "qwen"]
    assert suite.model_settings("tuned@qwen").name == "qwen2.5:7b"


def test_per_variant_thresholds_and_a_named_baseline_cell_apply_to_cells(tmp_path: Path) -> None:
    suite = load_suite(matrix_project(
        tmp_path, baseline="tuned@local",
        thresholds={"entity_recall": 0.5, "variants": {"tuned": {"entity_recall": 0.9},
                                                       "tuned@mini": {"entity_recall": 0.7}}}))
    assert suite.baseline == "tuned@local"
    limits = {name: t.entity_recall for name, t in suite.spec.thresholds.variants.items()}
    assert limits == {"tuned@mini": 0.7, "tuned@local": 0.9}  # the cell's own entry wins


def test_cells_have_cassettes_of_their_own_and_plain_suites_keep_their_paths(tmp_path: Path) -> None:
    suite = load_suite(matrix_project(tmp_path))
    case = suite.cases[0].id
    paths = {cassette_path(suite, name, case) for name in suite.variant_names()}
    assert len(paths) == 4
    assert cassette_path(suite, "tuned@local", case) == suite.cassette_dir() / "tuned@local" / f"{case}.json"
    assert cassette_path(suite, "tuned@local", case, 2) == suite.cassette_dir() / "tuned@local" / "sample-2" / f"{case}.json"
    podcast = load_suite(REPO / "suites" / "podcast.yaml")
    assert cassette_path(podcast, "tuned", "series-a-funding") == (
        REPO / "fixtures" / "cassettes" / "podcast" / "tuned" / "series-a-funding.json")


# ------------------------------------------------------------------ validation


def test_a_model_listed_twice_is_refused_with_its_place(tmp_path: Path) -> None:
    path = matrix_project(tmp_path, models=[{"name": "gpt-4o"}, {"name": "o3"}, {"name": "gpt-4o", "temperature": 1}])
    message = refused(path, "models[2]", "model 'gpt-4o' is listed twice", "first at models[0]")
    line = int(message.split(":")[1])
    assert path.read_text(encoding="utf-8").splitlines()[line - 1].lstrip().startswith("- name: gpt-4o")


def test_a_variants_own_model_is_refused_beside_models(tmp_path: Path) -> None:
    path = write_project(tmp_path)
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    data["models"] = copy.deepcopy(MODELS)
    data["variants"]["tuned"]["model"] = "gpt-4o"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    refused(path, "variants.tuned.model", "cannot be used with `models:`")


@pytest.mark.parametrize(("models", "needles"), [
    ([], ("models", "the list is empty")),
    ([{"name": "qwen2.5:7b"}], ("models[0]", "give the model a `label:`")),
    ({"bad label": {"name": "x"}}, ("must be letters",)),
    ({"m": {"name": "x", "temprature": 0}}, ("unknown key 'temprature'",)),
])
def test_a_bad_matrix_is_one_line_naming_the_place(tmp_path: Path, models: Any, needles: tuple[str, ...]) -> None:
    refused(matrix_project(tmp_path, models=models), *needles)


# ------------------------------------------------------------------ selection


def test_variant_and_model_select_cells(tmp_path: Path) -> None:
    suite = load_suite(matrix_project(tmp_path))
    assert suite.select(None, None) == suite.variant_names()
    assert suite.select(["tuned"], None) == ["tuned@mini", "tuned@local"]
    assert suite.select(None, ["local"]) == ["default@local", "tuned@local"]
    assert suite.select(["tuned"], ["local"]) == ["tuned@local"]
    assert suite.select(["default@mini", "tuned"], ["mini"]) == ["default@mini", "tuned@mini"]
    with pytest.raises(InputError, match=r"--model: no model named gpt-5 \(have mini, local\)"):
        suite.select(None, ["gpt-5"])
    with pytest.raises(InputError, match="--variant: no variant named nope"):
        suite.select(["nope"], None)
    plain = load_suite(write_project(tmp_path / "plain"))
    with pytest.raises(InputError, match="lists no `models:`"):
        plain.select(None, ["mini"])


def _script(suite: Any, model: str) -> Script:
    """The conftest answers, the `default` prompt's under `model`'s cells only (the server cannot
    tell models apart: a prompt's message is the same under each)."""
    script = Script()
    for name in suite.select(None, [model]):
        plan = plan_variant(suite, name)
        for case in suite.cases:
            user = [m["content"] for m in plan.render(case) if m["role"] == "user"][0]
            script.rounds[user] = ANSWERS[suite.prompt_variant(name)][case.id][:1]
    return script


def test_record_and_run_with_model_touch_only_that_models_cells(tmp_path: Path, capsys, monkeypatch) -> None:
    path = matrix_project(tmp_path)
    suite = load_suite(path)
    monkeypatch.setenv("LOCAL_KEY", "sk-" + "x" * 20)
    with FakeOpenAIServer(_script(suite, "local")) as server:
        code = main(["record", str(path), "--model", "local", "--base-url", server.base_url,
                     "--reports", str(tmp_path / "reports")])
        assert code == 0, capsys.readouterr()
        assert server.calls == 2 * len(suite.cases)
    folders = sorted(p.name for p in suite.cassette_dir().iterdir())
    assert folders == ["default@local", "tuned@local"]
    capsys.readouterr()
    code = main(["run", str(path), "--model", "local", "--reports", str(tmp_path / "reports"), "--run-id", "local"])
    out = capsys.readouterr().out
    assert code == 0 and "model matrix" in out
    summary = read_summary(tmp_path / "reports" / "towns" / "local")
    assert list(summary.variants) == ["default@local", "tuned@local"]
    assert summary.matrix is not None and summary.matrix.models == ["local"]
    # without the baseline model's cells, the row is compared under the model that ran
    assert [(c.along, c.a, c.b) for c in summary.matrix.comparisons] == [("row", "default@local", "tuned@local")]
    # the other model's cells have no cassettes: replaying them is the usual missing-cassette exit
    code = main(["run", str(path), "--model", "mini", "--reports", str(tmp_path / "reports"), "--fresh"])
    assert code == 3


def test_an_unknown_model_option_exits_2_with_one_line(tmp_path: Path, capsys) -> None:
    path = matrix_project(tmp_path)
    code = main(["run", str(path), "--model", "gpt-5", "--reports", str(tmp_path / "reports")])
    err = capsys.readouterr().err.strip()
    assert code == 2
    assert err.count("\n") == 0 and f"{path}: --model: no model named gpt-5 (have mini, local)" in err, err
