"""The review page of `harness annotate --review`: one self-contained HTML file, no server, no
network. Model output and chunks are untrusted: they travel as JSON in a
`<script type="application/json">` block (with `<`, `>`, `&`, U+2028 and U+2029 escaped, so no
string can close the block or open markup), the page's one script builds the DOM with
`textContent` only, and a Content-Security-Policy allows that script alone (by its hash), inline
styles, and nothing else: no network, no other script, no `javascript:` URL, no form submission.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from importlib import resources
from typing import Any

from ..model import GoldCase
from .gold_file import GoldFileCase

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1f2328}
header{position:sticky;top:0;background:#f6f8fa;border-bottom:1px solid #d0d7de;padding:6px 12px;z-index:1}
header input{width:10em} main{padding:8px 12px}
#chunk{white-space:pre-wrap;border:1px solid #d0d7de;padding:8px;max-height:40vh;overflow:auto;background:#fff}
mark{background:#fff3b0;border-radius:2px} mark.accepted{background:#b7f0c1} mark.rejected{background:none}
table{border-collapse:collapse;width:100%;margin-top:6px} td,th{border-bottom:1px solid #eaeef2;padding:2px 4px;text-align:left;vertical-align:top}
tr.accepted td.state{color:#1a7f37;font-weight:600} tr.rejected{opacity:.45} tr.rejected td.state{color:#cf222e}
td.warn{color:#9a6700} td:last-child{white-space:nowrap} input.name{width:14em} input.type{width:8em} input.alias{width:8em}
#yaml-preview{white-space:pre-wrap;max-height:12em;overflow:auto;background:#f6f8fa;font-size:12px}
kbd{border:1px solid #d0d7de;border-bottom-width:2px;border-radius:3px;padding:0 3px;font-size:12px}
"""

_BODY = """
<header>
 <strong id="suite-title"></strong> ·
 <button id="prev" title="previous case (p)">◀ prev</button>
 <span id="case-title"></span>
 <button id="next" title="next case (n)">next ▶</button>
 <button id="accept-grounded" title="accept every grounded proposal of this case (g)">accept all grounded</button>
 · reviewer <input id="reviewer" aria-label="reviewer" placeholder="your name">
 date <input id="reviewed" aria-label="review date">
 <button id="download">download reviewed YAML</button>
 <div id="case-counts"></div>
 <div>Keys: <kbd>n</kbd>/<kbd>j</kbd>/<kbd>→</kbd> next case, <kbd>p</kbd>/<kbd>k</kbd>/<kbd>←</kbd> previous case,
 <kbd>g</kbd> accept all grounded, <kbd>e</kbd> add the selected chunk text as an entity. Only accepted items
 are gold; a case you never touched stays pending. Apply the download with
 <code>harness annotate SUITE --apply FILE</code>.</div>
</header>
<main>
 <div id="chunk" aria-label="chunk"></div>
 <p><button id="add-selected" title="add the selected chunk text as an entity (e)">add selected text as entity</button>
 type <input id="new-type" list="types" aria-label="new entity type"> <span id="message" role="status"></span></p>
 <h3>Entities</h3>
 <table><thead><tr><th>name</th><th>type</th><th>aliases</th><th>found by</th><th>grounded</th><th>type votes</th>
 <th>state</th><th></th></tr></thead><tbody id="entities"></tbody></table>
 <h3>Relationships</h3>
 <table><thead><tr><th>source</th><th>predicate</th><th>target</th><th>description</th><th>found by</th><th>state</th>
 <th></th></tr></thead><tbody id="relationships"></tbody></table>
 <p>add relationship: <select id="rel-source" aria-label="relationship source"></select>
 predicate <input id="rel-type" aria-label="relationship predicate" placeholder="(optional)">
 <select id="rel-target" aria-label="relationship target"></select> <button id="add-rel">add relationship</button></p>
 <datalist id="types"></datalist>
 <h3>Last download</h3><pre id="yaml-preview"></pre>
</main>
"""

_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embed_json(data: Any) -> str:
    """JSON that is inert inside `<script type="application/json">`: no `</script>`, no `<!--`."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return "".join(_JSON_ESCAPES.get(ch, ch) for ch in text)


def _script() -> str:
    return resources.files(__package__).joinpath("page_script.js").read_text(encoding="utf-8")


def page_data(suite_name: str, cases: list[GoldCase], proposals: dict[str, GoldFileCase],
              entity_types: list[str]) -> dict[str, Any]:
    """What the page shows: per case its chunk and its proposals (cases without one are left out)."""
    items = []
    types = list(dict.fromkeys(entity_types))
    for case in cases:
        proposal = proposals.get(case.id)
        if proposal is None:
            continue
        items.append({
            "id": case.id, "text": case.text,
            "entities": [e.model_dump(mode="json") for e in proposal.entities],
            "relationships": [r.model_dump(mode="json") for r in proposal.relationships],
        })
        types.extend(t for e in proposal.entities for t in e.type_votes if t not in types)
    return {"suite": suite_name, "types": types, "cases": items}


def render_page(data: dict[str, Any]) -> str:
    script = _script()
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode("ascii")
    csp = (f"default-src 'none'; script-src 'sha256-{digest}'; style-src 'unsafe-inline'; "
           "base-uri 'none'; form-action 'none'")
    title = html.escape(f"review gold: {data['suite']}", quote=True)
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{csp}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{title}</title><style>{_STYLE}</style></head><body>{_BODY}"
        f"<script type='application/json' id='annotate-data'>{embed_json(data)}</script>"
        f"<script>{script}</script>"
        "</body></html>\n"
    )
