"""A project's `LightRAG(...)` call read with `ast`, never run: the forms scripts write."""

from __future__ import annotations

from pathlib import Path

from harness.importers.lightrag_script import EnvRef, FuncRef, find_constructor

SCRIPT = '''
import os
import lightrag.llm.openai as oai
from os import getenv
from lightrag import LightRAG as LR

raise SystemExit("never run by the importer")

TYPES = ["person", "vessel"]
rag = LR(
    working_dir=os.environ["RAG_DIR"],
    llm_model_func=oai.gpt_4o_complete,
    llm_model_name=getenv("MODEL", "gpt-4o"),
    llm_model_kwargs={"temperature": -0.0, "api_key": os.getenv("KEY")},
    addon_params={"entity_types": TYPES, "language": "Danish"},
    chunk_token_size=int(getenv("CHUNK", "300")),
    embedding_func=build(),
    **extra,
)
'''


def test_the_forms_scripts_write_are_read_and_the_rest_named(tmp_path: Path) -> None:
    (tmp_path / "index.py").write_text(SCRIPT, encoding="utf-8")
    (tmp_path / "later.py").write_text("from lightrag import LightRAG\nLightRAG(working_dir='other')\n", encoding="utf-8")
    call, others = find_constructor(tmp_path, {"RAG_DIR": "./store", "CHUNK": "250"})
    assert call is not None and call.line == 10 and [o.path.name for o in others] == ["later.py"]
    values = call.values
    assert values["working_dir"] == EnvRef("RAG_DIR", "./store")
    assert values["llm_model_func"] == FuncRef("lightrag.llm.openai", "gpt_4o_complete")
    assert values["llm_model_name"] == EnvRef("MODEL", None, "gpt-4o") and values["llm_model_name"].resolved == "gpt-4o"
    assert values["llm_model_kwargs"] == {"temperature": -0.0, "api_key": EnvRef("KEY", None)}
    assert values["addon_params"] == {"entity_types": ["person", "vessel"], "language": "Danish"}
    assert values["chunk_token_size"] == 250
    assert call.unread == {"embedding_func": "a call of build()", "**": "keyword arguments unpacked from a dict"}
    assert call.where("chunk_token_size") == f"{tmp_path / 'index.py'}:16"


def test_a_vendored_lightrag_package_and_environments_are_not_the_projects_scripts(tmp_path: Path) -> None:
    for folder in ("lightrag", ".venv", "node_modules"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "x.py").write_text("LightRAG(working_dir='vendored')\n", encoding="utf-8")
    assert find_constructor(tmp_path, {}) == (None, [])
