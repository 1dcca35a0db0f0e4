"""Judge prompts: YAML prompt templates (name, version, messages), rendered like any prompt.

The shipped matching prompt is below; a suite's `judge.prompt` names its own file instead. A
template must carry {input_text} (the case's chunk), {gold} and {predicted}: the load says so in
one line otherwise; a pairwise prompt carries {input_text}, {first} and {second}. Changing the text changes every request hash, so its cassettes go stale, as
an extraction prompt's do.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import InputError
from ..prompts.syntax import placeholders
from ..prompts.template import PromptTemplate
from ..prompts.yaml_template import load_yaml_prompt, load_yaml_text

MATCH_VARIABLES = ("input_text", "gold", "predicted")

MATCH_PROMPT = """\
name: harness-judge-match
version: "1"
description: >-
  Asks whether a predicted entity names the same thing as a gold entity, in any language or
  spelling. The first word of the answer is read: SAME or DIFFERENT.
system: >-
  You compare names of things extracted from a text. Two names are the SAME when they refer to the
  same real-world entity in this text, whatever the language, spelling, abbreviation or title.
  Otherwise they are DIFFERENT. Answer with one word: SAME or DIFFERENT.
user: |-
  Text:
  {input_text}

  Gold entity: {gold}
  Predicted entity: {predicted}

  Answer SAME or DIFFERENT.
"""


PAIRWISE_VARIABLES = ("input_text", "first", "second")

PAIRWISE_PROMPT = """\
name: harness-judge-pairwise
version: "1"
description: >-
  Asks which of two answers to the same prompt is better. The first word of the answer is read:
  FIRST, SECOND or TIE. The harness asks in both orders, so a preference for a position shows.
system: >-
  You compare two answers a model gave to the same task on the same input. Judge which answer
  is more complete and more faithful to the input. Answer with one word: FIRST, SECOND or TIE.
user: |-
  Input:
  {input_text}

  First answer:
  {first}

  Second answer:
  {second}

  Which answer is better? Answer FIRST, SECOND or TIE.
"""


def match_prompt(path: Path | None) -> PromptTemplate:
    """The matching prompt: the file at `path` (a suite's `judge.prompt`) or the shipped one."""
    return _prompt(path, MATCH_PROMPT, "match", MATCH_VARIABLES)


def pairwise_prompt(path: Path | None) -> PromptTemplate:
    """The pairwise prompt: the file at `path` (`judge.pairwise.prompt`) or the shipped one."""
    return _prompt(path, PAIRWISE_PROMPT, "pairwise", PAIRWISE_VARIABLES)


def _prompt(path: Path | None, shipped: str, decision: str, variables: tuple[str, ...]) -> PromptTemplate:
    template = (load_yaml_text(shipped, f"harness judge prompt ({decision})") if path is None
                else load_yaml_prompt(path))
    used: set[str] = set()
    for _, text in template.parts():
        used |= set(placeholders(text))
    missing = [name for name in variables if name not in used]
    if missing:
        raise InputError(f"{template.source}: a judge prompt needs the placeholders "
                         f"{', '.join('{' + m + '}' for m in missing)} (docs/judges.md)")
    return template
