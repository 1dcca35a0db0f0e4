"use strict";
// The review page of `harness annotate --review` (docs/annotate.md). Everything from the model and
// the chunk is data: it is read from the JSON block and put into the page with textContent only.
(function () {
  const DATA = JSON.parse(document.getElementById("annotate-data").textContent);
  const $ = (id) => document.getElementById(id);
  function el(tag, props, children) {
    const node = document.createElement(tag);
    if (props) for (const [k, v] of Object.entries(props)) {
      if (k === "text") node.textContent = v;
      else if (k === "cls") node.className = v;
      else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v);
    }
    for (const child of children || []) node.appendChild(child);
    return node;
  }
  const cases = DATA.cases.map((c) => {
    const ents = c.entities.map((e, i) => ({
      id: i, name: e.name, type: e.type || "", aliases: (e.aliases || []).slice(), status: "proposed",
      grounded: !!e.grounded, found_by: e.found_by || [], type_votes: e.type_votes || {}, added: false,
    }));
    const byName = new Map();
    ents.forEach((e) => { byName.set(e.name, e.id); e.aliases.forEach((a) => { if (!byName.has(a)) byName.set(a, e.id); }); });
    const rels = [];
    for (const r of c.relationships) {
      const s = byName.get(r.source), t = byName.get(r.target);
      if (s === undefined || t === undefined) continue;
      rels.push({ src: s, tgt: t, type: r.type || "", description: r.description || "", found_by: r.found_by || [],
                  grounded: !!r.grounded, status: "proposed" });
    }
    return { id: c.id, text: c.text, ents: ents, rels: rels, touched: false };
  });
  let current = 0;

  function entity(c, id) { return c.ents[id]; }
  function touch(c) { c.touched = true; }
  function escapeRe(s) { return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"); }

  function highlights(c) {
    const spans = [];
    for (const e of c.ents) {
      if (e.status === "rejected") continue;
      for (const s of [e.name, ...e.aliases]) {
        if (!s.trim()) continue;
        const re = new RegExp(escapeRe(s), "giu");
        let m;
        while ((m = re.exec(c.text)) !== null) {
          spans.push([m.index, m.index + m[0].length, e.id]);
          if (m[0].length === 0) re.lastIndex++;
        }
      }
    }
    spans.sort((a, b) => a[0] - b[0] || (b[1] - b[0]) - (a[1] - a[0]));
    const kept = [];
    let end = 0;
    for (const s of spans) if (s[0] >= end) { kept.push(s); end = s[1]; }
    return kept;
  }

  function renderChunk(c) {
    const box = $("chunk");
    box.replaceChildren();
    let at = 0;
    for (const [s, e, id] of highlights(c)) {
      if (s > at) box.appendChild(document.createTextNode(c.text.slice(at, s)));
      const ent = entity(c, id);
      box.appendChild(el("mark", { cls: ent.status, title: ent.name + (ent.type ? " (" + ent.type + ")" : ""),
                                   text: c.text.slice(s, e) }));
      at = e;
    }
    box.appendChild(document.createTextNode(c.text.slice(at)));
  }

  function statusButtons(item, c, onChange) {
    return [
      el("button", { cls: "accept", text: "accept", title: "accept", onclick: () => { item.status = "accepted"; touch(c); onChange(); } }),
      el("button", { cls: "reject", text: "reject", title: "reject", onclick: () => { item.status = "rejected"; touch(c); onChange(); } }),
    ];
  }

  function renderEntities(c) {
    const body = $("entities");
    body.replaceChildren();
    for (const e of c.ents) {
      const name = el("input", { value: e.name, "aria-label": "name", cls: "name" });
      name.addEventListener("change", () => { if (name.value.trim()) { e.name = name.value.trim(); touch(c); render(); } });
      const type = el("input", { value: e.type, "aria-label": "type", list: "types", cls: "type" });
      type.addEventListener("change", () => { e.type = type.value.trim(); touch(c); render(); });
      const alias = el("input", { placeholder: "add alias", "aria-label": "alias", cls: "alias" });
      alias.addEventListener("change", () => {
        const a = alias.value.trim();
        if (a && a !== e.name && !e.aliases.includes(a)) { e.aliases.push(a); touch(c); render(); }
      });
      const votes = Object.entries(e.type_votes).map(([t, n]) => t + " " + n).join(", ");
      body.appendChild(el("tr", { cls: e.status, "data-entity": String(e.id) }, [
        el("td", {}, [name]), el("td", {}, [type]),
        el("td", {}, [el("span", { text: e.aliases.join(", ") }), alias]),
        el("td", { text: e.added ? "reviewer" : e.found_by.join(", ") }),
        el("td", { text: e.grounded ? "in text" : "NOT in text", cls: e.grounded ? "" : "warn" }),
        el("td", { text: votes }),
        el("td", { cls: "state", text: e.status }),
        el("td", {}, statusButtons(e, c, render)),
      ]));
    }
  }

  function renderRelationships(c) {
    const body = $("relationships");
    body.replaceChildren();
    c.rels.forEach((r) => {
      const s = entity(c, r.src), t = entity(c, r.tgt);
      const usable = s.status !== "rejected" && t.status !== "rejected";
      body.appendChild(el("tr", { cls: usable ? r.status : "rejected" }, [
        el("td", { text: s.name }), el("td", { text: r.type }), el("td", { text: t.name }),
        el("td", { text: r.description }), el("td", { text: r.found_by.join(", ") || "reviewer" }),
        el("td", { cls: "state", text: usable ? r.status : "endpoint rejected" }),
        el("td", {}, statusButtons(r, c, render)),
      ]));
    });
    for (const id of ["rel-source", "rel-target"]) {
      const select = $(id);
      select.replaceChildren(...c.ents.filter((e) => e.status !== "rejected")
        .map((e) => el("option", { value: String(e.id), text: e.name })));
    }
  }

  function render() {
    const c = cases[current];
    if (!c) { $("case-title").textContent = "no case to review"; return; }
    $("case-title").textContent = "Case " + (current + 1) + " of " + cases.length + ": " + c.id;
    const accepted = c.ents.filter((e) => e.status === "accepted").length;
    const rejected = c.ents.filter((e) => e.status === "rejected").length;
    $("case-counts").textContent = accepted + " accepted, " + rejected + " rejected, " +
      (c.ents.length - accepted - rejected) + " undecided of " + c.ents.length + " entities; " +
      cases.filter((x) => x.touched).length + " of " + cases.length + " cases reviewed";
    renderChunk(c);
    renderEntities(c);
    renderRelationships(c);
  }

  function go(step) { current = Math.max(0, Math.min(cases.length - 1, current + step)); render(); }

  function acceptGrounded() {
    const c = cases[current];
    for (const e of c.ents) if (e.grounded && e.status === "proposed") e.status = "accepted";
    for (const r of c.rels) if (r.status === "proposed" && entity(c, r.src).status === "accepted" &&
                                entity(c, r.tgt).status === "accepted") r.status = "accepted";
    touch(c);
    render();
  }

  // the last text selected in the chunk, kept while the reviewer types the new entity's type
  let lastSelection = null;
  function chunkSelection() {
    const sel = window.getSelection();
    const box = $("chunk");
    if (!sel || sel.rangeCount === 0 || !box.contains(sel.anchorNode) || !box.contains(sel.focusNode)) return "";
    return sel.toString().trim();
  }
  document.addEventListener("selectionchange", () => {
    const text = chunkSelection();
    if (text) lastSelection = { index: current, text: text };
  });

  function addSelected() {
    const c = cases[current];
    const text = chunkSelection() || (lastSelection && lastSelection.index === current ? lastSelection.text : "");
    if (!text) { $("message").textContent = "select text in the chunk first"; return; }
    lastSelection = null;
    const known = c.ents.find((e) => e.name === text || e.aliases.includes(text));
    if (known) { known.status = "accepted"; }
    else {
      c.ents.push({ id: c.ents.length, name: text, type: $("new-type").value.trim(), aliases: [], status: "accepted",
                    grounded: true, found_by: [], type_votes: {}, added: true });
    }
    $("message").textContent = "added: " + text;
    touch(c);
    render();
  }

  function addRelationship() {
    const c = cases[current];
    const src = Number($("rel-source").value), tgt = Number($("rel-target").value);
    if (Number.isNaN(src) || Number.isNaN(tgt) || src === tgt) { $("message").textContent = "pick two different entities"; return; }
    c.rels.push({ src: src, tgt: tgt, type: $("rel-type").value.trim(), description: "", found_by: [],
                  grounded: false, status: "accepted" });
    touch(c);
    render();
  }

  function reviewed() {
    const out = { suite: DATA.suite, reviewer: $("reviewer").value.trim() || null,
                  reviewed: $("reviewed").value.trim() || null, cases: [] };
    for (const c of cases) {
      if (!c.touched) continue;
      const ents = c.ents.filter((e) => e.status === "accepted");
      const names = new Set();
      const entities = [];
      for (const e of ents) {
        const aliases = [...new Set(e.aliases)].filter((a) => a !== e.name && !names.has(a));
        if (names.has(e.name)) continue;
        names.add(e.name); aliases.forEach((a) => names.add(a));
        const item = { name: e.name };
        if (e.type) item.type = e.type;
        if (aliases.length) item.aliases = aliases;
        entities.push(item);
      }
      const seen = new Set();
      const relationships = [];
      for (const r of c.rels) {
        const s = entity(c, r.src), t = entity(c, r.tgt);
        if (r.status !== "accepted" || s.status !== "accepted" || t.status !== "accepted") continue;
        const key = s.name + "\u0000" + t.name + "\u0000" + r.type;
        if (seen.has(key)) continue;
        seen.add(key);
        const item = { source: s.name, target: t.name };
        if (r.type) item.type = r.type;
        relationships.push(item);
      }
      out.cases.push({ id: c.id, entities: entities, relationships: relationships });
    }
    if (out.reviewer === null) delete out.reviewer;
    if (out.reviewed === null) delete out.reviewed;
    return out;
  }

  // JSON is YAML (flow style); characters a YAML reader refuses raw (DEL, C1 controls, U+FFFE/F) or
  // reads as line breaks (NEL, U+2028, U+2029: folded to a space in a quoted scalar) are \u escapes.
  function toYaml(value) {
    const json = JSON.stringify(value, null, 1).replace(/[\u007f-\u009f\u2028\u2029\ufffe\uffff]/g,
      (ch) => "\\u" + ch.charCodeAt(0).toString(16).padStart(4, "0"));
    return "# reviewed gold from harness annotate --review; apply it with:\n" +
           "#   harness annotate SUITE --apply THIS_FILE\n" + json + "\n";
  }

  function download() {
    const text = toYaml(reviewed());
    $("yaml-preview").textContent = text;
    const blob = new Blob([text], { type: "application/x-yaml" });
    const link = el("a", { download: DATA.suite + ".reviewed.yaml" });
    link.href = URL.createObjectURL(blob);
    document.body.appendChild(link);
    link.click();
    link.remove();
  }

  $("prev").addEventListener("click", () => go(-1));
  $("next").addEventListener("click", () => go(1));
  $("accept-grounded").addEventListener("click", acceptGrounded);
  $("add-selected").addEventListener("click", addSelected);
  $("add-rel").addEventListener("click", addRelationship);
  $("download").addEventListener("click", download);
  $("suite-title").textContent = "review gold: " + DATA.suite;
  $("reviewed").value = new Date().toISOString().slice(0, 10);
  const types = $("types");
  for (const t of DATA.types) types.appendChild(el("option", { value: t }));
  document.addEventListener("keydown", (ev) => {
    const tag = (ev.target && ev.target.tagName) || "";
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA" || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === "n" || ev.key === "j" || ev.key === "ArrowRight") { go(1); ev.preventDefault(); }
    else if (ev.key === "p" || ev.key === "k" || ev.key === "ArrowLeft") { go(-1); ev.preventDefault(); }
    else if (ev.key === "g") { acceptGrounded(); ev.preventDefault(); }
    else if (ev.key === "e") { addSelected(); ev.preventDefault(); }
  });
  window.annotateReady = true;
  render();
})();
