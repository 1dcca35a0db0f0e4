// The page of `harness view` (harness/viewer/build.py). Builds every element with textContent:
// run ids, case ids and entity names are data, never markup. State lives in the URL hash, so
// every view is a deep link; per-run data loads on demand as data/<name>.js scripts.
(function () {
  'use strict';
  const INDEX = JSON.parse(document.getElementById('view-index').textContent);
  const main = document.getElementById('main');
  const crumbs = document.getElementById('crumbs');
  const statusLine = document.getElementById('status');
  const SVG = 'http://www.w3.org/2000/svg';
  const COLORS = ['#0969da', '#cf222e', '#1a7f37', '#9a6700', '#8250df', '#bf3989', '#1b7c83', '#6e7781'];

  // ------------------------------------------------------------------ data files
  const waiting = {};
  const loadedData = {};
  window.harnessView = {
    loaded: function (key, data) {
      loadedData[key] = data;
      if (waiting[key]) { waiting[key].resolve(data); }
    },
  };
  function load(path) {
    const key = path.replace(/^data\//, '').replace(/\.js$/, '');
    if (loadedData[key]) { return Promise.resolve(loadedData[key]); }
    if (!waiting[key]) {
      let resolve, reject;
      const promise = new Promise(function (ok, fail) { resolve = ok; reject = fail; });
      waiting[key] = { promise: promise, resolve: resolve };
      const script = document.createElement('script');
      script.src = path;
      script.onerror = function () { reject(new Error('could not load ' + path)); };
      document.head.appendChild(script);
    }
    return waiting[key].promise;
  }

  // ------------------------------------------------------------------ helpers
  function el(tag, attrs) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === 'text') { node.textContent = value; } else if (name === 'on') {
        for (const [event, handler] of Object.entries(value)) { node.addEventListener(event, handler); }
      } else if (value !== null && value !== undefined && value !== false) { node.setAttribute(name, value); }
    }
    for (let i = 2; i < arguments.length; i++) {
      const child = arguments[i];
      if (child === null || child === undefined) { continue; }
      node.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
    }
    return node;
  }
  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (name === 'text') { node.textContent = value; } else { node.setAttribute(name, value); }
    }
    return node;
  }
  function fmt(metric, value) {
    if (value === null || value === undefined) { return 'n/a'; }
    return metric.rate ? (value * 100).toFixed(1) + '%' : (Number.isInteger(value) ? String(value) : value.toFixed(2));
  }
  function fmtChange(metric, delta) {
    if (delta === null || delta === undefined) { return '—'; }
    const sign = delta > 0 ? '+' : (delta < 0 ? '−' : '±');
    const size = Math.abs(delta);
    return sign + (metric.rate ? (size * 100).toFixed(1) + ' pt' : size.toFixed(2));
  }
  // how much better b is than a in the metric's direction (negative: a regression)
  function better(metric, delta) { return delta === null || delta === undefined ? null : (metric.higher ? delta : -delta); }
  function changeClass(metric, delta) {
    const gain = better(metric, delta);
    return gain === null || Math.abs(gain) < 1e-12 ? '' : (gain > 0 ? 'up' : 'down');
  }
  function seriesKey(s) { return s.variant + ' · ' + s.model; }
  function params() { return new URLSearchParams(location.hash.replace(/^#/, '')); }
  function link(changes) {
    const p = changes.reset ? new URLSearchParams() : params();
    for (const [name, value] of Object.entries(changes)) {
      if (name === 'reset') { continue; }
      if (value === null || value === undefined || value === '') { p.delete(name); } else { p.set(name, value); }
    }
    return '#' + p.toString();
  }
  function go(changes) { location.hash = link(changes); }
  function suiteOf(name) { return INDEX.suites.find(function (s) { return s.name === name; }); }
  function runOf(suite, id) { return suite.runs.find(function (r) { return r.id === id; }); }
  function shortCommit(commit) { return commit ? commit.slice(0, 10) : '—'; }
  function day(created) { return (created || '').replace('T', ' ').replace(/\+00:00$/, ' UTC'); }
  function setCrumbs(parts) {
    crumbs.replaceChildren();
    parts.forEach(function (part, i) {
      if (i) { crumbs.appendChild(document.createTextNode(' › ')); }
      crumbs.appendChild(part.href ? el('a', { href: part.href, text: part.text }) : el('strong', { text: part.text }));
    });
  }

  // ------------------------------------------------------------------ keyboard: a cursor over the rows of the view
  let rows = [];  // {node, open(), a?, b?}
  let cursor = -1;
  let keys = {};  // extra keys of the current view
  function setRows(list) { rows = list; cursor = list.length ? 0 : -1; paintCursor(); }
  function paintCursor() {
    rows.forEach(function (row, i) { row.node.classList.toggle('cursor', i === cursor); });
    if (cursor >= 0 && rows[cursor]) { rows[cursor].node.scrollIntoView({ block: 'nearest' }); }
  }
  document.addEventListener('keydown', function (event) {
    const target = event.target;
    if (target && (target.tagName === 'INPUT' || target.tagName === 'SELECT' || target.tagName === 'TEXTAREA')) {
      if (event.key === 'Escape') { target.blur(); }
      return;
    }
    if (event.ctrlKey || event.metaKey || event.altKey) { return; }
    const key = event.key;
    if (key === '?') { document.getElementById('help').classList.toggle('open'); return; }
    if ((key === 'j' || key === 'ArrowDown') && rows.length) { cursor = Math.min(rows.length - 1, cursor + 1); paintCursor(); event.preventDefault(); return; }
    if ((key === 'k' || key === 'ArrowUp') && rows.length) { cursor = Math.max(0, cursor - 1); paintCursor(); event.preventDefault(); return; }
    if (key === 'Enter' && cursor >= 0 && rows[cursor].open) { rows[cursor].open(); return; }
    if (key === '/') { const box = document.querySelector('input[type=search]'); if (box) { box.focus(); event.preventDefault(); } return; }
    if (key === 'u' || key === 'Backspace') { if (keys.up) { keys.up(); event.preventDefault(); } return; }
    if (keys[key]) { keys[key](cursor >= 0 ? rows[cursor] : null); event.preventDefault(); }
  });

  // ------------------------------------------------------------------ home: the suites
  function home() {
    setCrumbs([{ text: 'suites' }]);
    const body = el('tbody');
    const list = [];
    INDEX.suites.forEach(function (suite) {
      const last = suite.runs[suite.runs.length - 1];
      const href = link({ reset: true, view: 'trend', suite: suite.name });
      const tr = el('tr', {}, el('td', {}, el('a', { href: href, text: suite.name })), el('td', { text: suite.kind }),
        el('td', { class: 'num', text: String(suite.runs.length) }), el('td', { text: last ? day(last.created) : '' }),
        el('td', { text: suite.baseline ? suite.baseline.run : 'none' }));
      body.appendChild(tr);
      list.push({ node: tr, open: function () { location.hash = href; } });
    });
    main.replaceChildren(el('h2', { text: 'Suites' }),
      el('table', {}, el('thead', {}, el('tr', {}, el('th', { text: 'suite' }), el('th', { text: 'kind' }),
        el('th', { text: 'runs' }), el('th', { text: 'latest run' }), el('th', { text: 'accepted baseline' }))), body));
    if (!INDEX.suites.length) { main.appendChild(el('p', { text: 'No finished run in this folder.' })); }
    if (INDEX.diffs.length) {
      const diffBody = el('tbody');
      INDEX.diffs.forEach(function (d) {
        const href = link({ reset: true, view: 'diff', diff: d.name });
        const tr = el('tr', { 'data-diff': d.name }, el('td', {}, el('a', { href: href, text: d.name })), el('td', { text: d.a }), el('td', { text: d.b }),
          el('td', { class: 'num', text: countChange(d.entities) }), el('td', { class: 'num', text: countChange(d.relationships) }));
        diffBody.appendChild(tr);
        list.push({ node: tr, open: function () { location.hash = href; } });
      });
      main.appendChild(el('h2', { text: 'Graph diffs' }));
      main.appendChild(el('table', { id: 'diffs' }, el('thead', {}, el('tr', {}, el('th', { text: 'diff' }), el('th', { text: 'A' }), el('th', { text: 'B' }),
        el('th', { text: 'entities' }), el('th', { text: 'relationships' }))), diffBody));
    }
    if (INDEX.skipped.length) {
      main.appendChild(el('h3', { text: 'Left out' }));
      const ul = el('ul');
      INDEX.skipped.forEach(function (s) { ul.appendChild(el('li', { text: s.path + ': ' + s.reason })); });
      main.appendChild(ul);
    }
    setRows(list);
    keys = {};
  }

  // ------------------------------------------------------------------ trend
  function visibleSeries(suite, p) {
    const all = [];
    const seen = {};
    suite.runs.forEach(function (run) {
      run.series.forEach(function (s) {
        const key = seriesKey(s);
        if (!seen[key]) { seen[key] = true; all.push({ key: key, variant: s.variant, model: s.model }); }
      });
    });
    const filter = (p.get('series') || '').toLowerCase();
    const model = p.get('model') || '';
    return {
      all: all,
      shown: all.filter(function (s) {
        return (!filter || s.key.toLowerCase().indexOf(filter) >= 0) && (!model || s.model === model);
      }),
    };
  }
  function valueOf(run, key, index) {
    const s = run.series.find(function (x) { return seriesKey(x) === key; });
    return s ? s.figures[index] : null;
  }
  function chart(suite, metric, index, shown, color) {
    const width = 440, height = 190, left = 44, right = 10, top = 10, bottom = 24;
    const runs = suite.runs;
    const values = [];
    shown.forEach(function (s) { runs.forEach(function (run) { const v = valueOf(run, s.key, index); if (v !== null) { values.push(v); } }); });
    const baseSeries = suite.baseline ? suite.baseline.series : [];
    baseSeries.forEach(function (s) { if (s.figures[index] !== null) { values.push(s.figures[index]); } });
    let low = metric.rate ? 0 : Math.min.apply(null, values.concat([0]));
    let high = metric.rate ? 1 : Math.max.apply(null, values.concat([1]));
    if (high === low) { high = low + 1; }
    const x = function (i) { return left + (runs.length < 2 ? (width - left - right) / 2 : i * (width - left - right) / (runs.length - 1)); };
    const y = function (v) { return top + (high - v) / (high - low) * (height - top - bottom); };
    const box = svg('svg', { width: width, height: height, viewBox: '0 0 ' + width + ' ' + height, role: 'img',
      'aria-label': metric.label + ' across runs' });
    [low, (low + high) / 2, high].forEach(function (v) {
      box.appendChild(svg('line', { x1: left, x2: width - right, y1: y(v), y2: y(v), stroke: '#eaeef2' }));
      box.appendChild(svg('text', { x: left - 4, y: y(v) + 4, 'text-anchor': 'end', 'font-size': 10, fill: '#656d76', text: fmt(metric, v) }));
    });
    const baseRun = suite.baseline ? runs.findIndex(function (r) { return r.id === suite.baseline.run; }) : -1;
    if (baseRun >= 0) {
      box.appendChild(svg('line', { x1: x(baseRun), x2: x(baseRun), y1: top, y2: height - bottom, stroke: '#9a6700', 'stroke-dasharray': '4 3', class: 'baseline-mark' }));
      box.appendChild(svg('text', { x: x(baseRun) + 3, y: height - bottom + 14, 'font-size': 10, fill: '#9a6700', text: 'baseline' }));
    }
    shown.forEach(function (s) {
      const stroke = color(s.key);
      if (baseRun < 0 && suite.baseline) {  // the accepted run is not in this folder: its figure as a level
        const base = suite.baseline.series.find(function (b) { return seriesKey(b) === s.key; });
        if (base && base.figures[index] !== null) {
          box.appendChild(svg('line', { x1: left, x2: width - right, y1: y(base.figures[index]), y2: y(base.figures[index]),
            stroke: stroke, 'stroke-dasharray': '4 3', opacity: 0.6, class: 'baseline-mark' }));
        }
      }
      let path = '';
      runs.forEach(function (run, i) {
        const v = valueOf(run, s.key, index);
        if (v === null) { return; }
        path += (path ? ' L' : 'M') + x(i).toFixed(1) + ' ' + y(v).toFixed(1);
      });
      if (path) { box.appendChild(svg('path', { d: path, fill: 'none', stroke: stroke, 'stroke-width': 1.5 })); }
      runs.forEach(function (run, i) {
        const v = valueOf(run, s.key, index);
        if (v === null) { return; }
        const dot = svg('circle', { cx: x(i), cy: y(v), r: runs.length > 60 ? 2 : 3.5, fill: stroke, class: 'point' });
        dot.appendChild(svg('title', { text: s.key + '\n' + run.id + ' (' + day(run.created) + (run.commit ? ', commit ' + shortCommit(run.commit) : '') + ')\n' + metric.label + ': ' + fmt(metric, v) }));
        dot.addEventListener('click', function () { go({ run: run.id }); });
        box.appendChild(dot);
      });
    });
    return el('div', { class: 'chart' }, el('h4', { text: metric.label }), box);
  }
  function trend(suite, p) {
    setCrumbs([{ text: 'suites', href: link({ reset: true }) }, { text: suite.name }]);
    const picked = visibleSeries(suite, p);
    const colorOf = {};
    picked.all.forEach(function (s, i) { colorOf[s.key] = COLORS[i % COLORS.length]; });
    const color = function (key) { return colorOf[key]; };
    const metricName = p.get('metric') || suite.metrics[0].name;
    const metricIndex = Math.max(0, suite.metrics.findIndex(function (m) { return m.name === metricName; }));
    const metric = suite.metrics[metricIndex];
    const filter = el('input', { type: 'search', placeholder: 'filter variants', 'aria-label': 'filter variants', value: p.get('series') || '' });
    filter.addEventListener('change', function () { go({ series: filter.value }); });
    const models = el('select', { 'aria-label': 'model' }, el('option', { value: '', text: 'every model' }));
    Array.from(new Set(picked.all.map(function (s) { return s.model; }))).forEach(function (m) {
      models.appendChild(el('option', { value: m, text: m, selected: m === (p.get('model') || '') ? 'selected' : null }));
    });
    models.addEventListener('change', function () { go({ model: models.value }); });
    const metricSelect = el('select', { 'aria-label': 'table figure' });
    suite.metrics.forEach(function (m) {
      metricSelect.appendChild(el('option', { value: m.name, text: m.label, selected: m.name === metric.name ? 'selected' : null }));
    });
    metricSelect.addEventListener('change', function () { go({ metric: metricSelect.value }); });
    const legend = el('div', { class: 'legend' });
    picked.shown.forEach(function (s) { legend.appendChild(el('span', {}, el('span', { class: 'swatch', style: 'background:' + color(s.key) }), s.key)); });
    const charts = el('div', { class: 'charts' });
    suite.metrics.forEach(function (m, i) { charts.appendChild(chart(suite, m, i, picked.shown, color)); });

    const a = p.get('a') || '', b = p.get('b') || '';
    const head = el('tr', {}, el('th', { text: 'A' }), el('th', { text: 'B' }), el('th', { text: 'run' }), el('th', { text: 'date' }),
      el('th', { text: 'commit' }), el('th', { text: 'harness' }), el('th', { text: 'calls' }));
    picked.shown.forEach(function (s) { head.appendChild(el('th', { text: s.key })); });
    const body = el('tbody');
    const list = [];
    const ordered = suite.runs.slice().reverse();  // newest first
    ordered.forEach(function (run) {
      const position = suite.runs.indexOf(run);
      const previous = position > 0 ? suite.runs[position - 1] : null;
      const isBase = suite.baseline && suite.baseline.run === run.id;
      const mark = function (side) {
        const box = el('input', { type: 'radio', name: 'side-' + side, 'aria-label': side + ': ' + run.id, checked: (side === 'a' ? a : b) === run.id ? 'checked' : null });
        box.addEventListener('change', function () { const c = {}; c[side] = run.id; go(c); });
        return el('td', {}, box);
      };
      const tr = el('tr', { class: isBase ? 'base' : null, 'data-run': run.id }, mark('a'), mark('b'),
        el('td', {}, run.id, isBase ? el('span', { class: 'muted', text: ' (baseline)' }) : null),
        el('td', { text: day(run.created) }), el('td', { class: 'commit', title: run.commit || 'unknown (no git, or a run older than provenance.json)', text: shortCommit(run.commit) }), el('td', { text: run.version }), el('td', { text: run.mode === 'none' ? 'replayed' : run.mode }));
      picked.shown.forEach(function (s) {
        const v = valueOf(run, s.key, metricIndex);
        const before = previous ? valueOf(previous, s.key, metricIndex) : null;
        const change = v !== null && before !== null ? v - before : null;
        tr.appendChild(el('td', { class: 'num' }, fmt(metric, v), change !== null ? el('span', { class: changeClass(metric, change), text: ' ' + fmtChange(metric, change) }) : null));
      });
      body.appendChild(tr);
      if (run.id === p.get('run')) { setTimeout(function () { cursor = list.findIndex(function (r) { return r.run === run.id; }); paintCursor(); }, 0); }
      list.push({
        node: tr, run: run.id,
        open: function () { if (previous) { go({ view: 'compare', a: previous.id, b: run.id }); } },
      });
    });
    const compareLink = a && b ? el('a', { href: link({ view: 'compare' }), id: 'compare-link', text: 'compare A → B' }) : el('span', { class: 'muted', text: 'mark runs A and B to compare them' });
    const baseHere = suite.baseline && suite.runs.some(function (r) { return r.id === suite.baseline.run; });
    const baseLine = suite.baseline ? el('p', { class: 'muted', text: 'Accepted baseline: run ' + suite.baseline.run + ' (' + day(suite.baseline.created) + '), from ' + suite.baseline.accepted_from + (baseHere ? ': the dashed vertical line.' : '; its run is not in this folder: the dashed levels are its figures.') }) : el('p', { class: 'muted', text: 'No accepted baseline (harness baseline update RUN).' });
    main.replaceChildren(el('h2', { text: suite.name + ' across ' + suite.runs.length + ' run(s)' }),
      el('p', {}, filter, ' ', models, ' '), legend, baseLine, charts,
      el('h3', {}, 'Runs, newest first, by ', metricSelect, ' (change from the run before)'),
      el('p', {}, compareLink, el('span', { class: 'muted', text: ' · Enter: this run against the one before' })),
      el('table', { id: 'runs' }, el('thead', {}, head), body));
    setRows(list);
    keys = {
      up: function () { go({ reset: true }); },
      a: function (row) { if (row) { go({ a: row.run }); } },
      b: function (row) { if (row) { go({ b: row.run }); } },
      c: function () { if (params().get('a') && params().get('b')) { go({ view: 'compare' }); } },
    };
  }

  // ------------------------------------------------------------------ two runs
  function pairOf(suite, a, b) {
    const direct = suite.pairs.find(function (x) { return x.a === a && x.b === b; });
    if (direct) { return { entry: direct, flip: false }; }
    const reverse = suite.pairs.find(function (x) { return x.a === b && x.b === a; });
    return reverse ? { entry: reverse, flip: true } : null;
  }
  function byCase(data, variant) {
    const out = {};
    data.rows.forEach(function (row) { if (row.variant === variant) { out[row.case] = row; } });
    return out;
  }
  // the paired cases of a variant, worst regression (of the chosen figure) first, with the page's filters
  function pairedCases(suite, dataA, dataB, variant, metricIndex, p) {
    const metric = suite.metrics[metricIndex];
    const rowsA = byCase(dataA, variant), rowsB = byCase(dataB, variant);
    const filter = (p.get('q') || '').toLowerCase();
    const only = p.get('only') || '';
    const out = [];
    Object.keys(rowsA).forEach(function (id) {
      if (!rowsB[id]) { return; }
      const va = rowsA[id].figures[metricIndex], vb = rowsB[id].figures[metricIndex];
      const delta = va !== null && vb !== null ? vb - va : null;
      const gain = better(metric, delta);
      if (filter && id.toLowerCase().indexOf(filter) < 0) { return; }
      if (only === 'regressed' && !(gain !== null && gain < -1e-12)) { return; }
      if (only === 'changed' && !(gain !== null && Math.abs(gain) > 1e-12)) { return; }
      out.push({ id: id, a: rowsA[id], b: rowsB[id], va: va, vb: vb, delta: delta, gain: gain });
    });
    out.sort(function (x, y) {
      const gx = x.gain === null ? Infinity : x.gain, gy = y.gain === null ? Infinity : y.gain;
      return gx - gy || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0);
    });
    return out;
  }
  function sharedVariants(runA, runB) {
    const inB = new Set(runB.series.map(function (s) { return s.variant; }));
    return runA.series.filter(function (s) { return inB.has(s.variant); }).map(function (s) { return s.variant; });
  }
  function modelOf(run, variant) { const s = run.series.find(function (x) { return x.variant === variant; }); return s ? s.model : ''; }
  function statsTable(suite, runA, runB, variant, pair, stats, cases, metricIndex) {
    const head = ['figure', 'A (pooled)', 'B (pooled)', 'change (mean per case)', '95% interval', 'p', 'better / worse cases', 'real difference'].reduce(function (tr, t) { tr.appendChild(el('th', { text: t })); return tr; }, el('tr'));
    const body = el('tbody');
    suite.metrics.forEach(function (metric, i) {
      const a = runA.series.find(function (s) { return s.variant === variant; });
      const b = runB.series.find(function (s) { return s.variant === variant; });
      let st = stats ? stats.figures[i] : null;
      let delta = null, interval = '—', p = '—', counts = '—', real = '—';
      if (st) {
        const flip = pair.flip ? -1 : 1;
        delta = st.delta * flip;
        const lowHigh = pair.flip ? [-st.high, -st.low] : [st.low, st.high];
        interval = '[' + fmtChange(metric, lowHigh[0]) + ', ' + fmtChange(metric, lowHigh[1]) + ']';
        p = st.p < 0.001 ? '<0.001' : st.p.toFixed(3);
        counts = (pair.flip ? st.regressed : st.improved) + ' / ' + (pair.flip ? st.improved : st.regressed) + ' of ' + st.n;
        real = st.significant ? 'yes' : 'no';
      } else {  // not a precomputed pair: the mean per-case change only
        const values = cases.filter(function (c) { return c.a.figures[i] !== null && c.b.figures[i] !== null; });
        if (values.length) {
          delta = values.reduce(function (sum, c) { return sum + c.b.figures[i] - c.a.figures[i]; }, 0) / values.length;
          const up = values.filter(function (c) { const g = better(metric, c.b.figures[i] - c.a.figures[i]); return g > 1e-12; }).length;
          const down = values.filter(function (c) { const g = better(metric, c.b.figures[i] - c.a.figures[i]); return g < -1e-12; }).length;
          counts = up + ' / ' + down + ' of ' + values.length;
        }
      }
      body.appendChild(el('tr', { 'data-metric': metric.name }, el('td', { text: metric.label }),
        el('td', { class: 'num', text: fmt(metric, a ? a.figures[i] : null) }), el('td', { class: 'num', text: fmt(metric, b ? b.figures[i] : null) }),
        el('td', { class: 'num ' + changeClass(metric, delta) + (st && st.significant ? ' sig' : ''), text: fmtChange(metric, delta) }),
        el('td', { class: 'num', text: interval }), el('td', { class: 'num', text: p }), el('td', { class: 'num', text: counts }),
        el('td', { text: real })));
    });
    return el('table', { id: 'figures' }, el('thead', {}, head), body);
  }
  function loadPair(suite, p) {
    const runA = runOf(suite, p.get('a')), runB = runOf(suite, p.get('b'));
    if (!runA || !runB) { return null; }
    const pair = pairOf(suite, runA.id, runB.id);
    return {
      runA: runA, runB: runB, pair: pair,
      promise: Promise.all([load(runA.data), load(runB.data), pair ? load(pair.entry.data) : Promise.resolve(null)]),
    };
  }
  function compare(suite, p) {
    const loading = loadPair(suite, p);
    if (!loading) { main.replaceChildren(el('p', { text: 'Runs A and B are not both runs of ' + suite.name + '.' })); return; }
    const runA = loading.runA, runB = loading.runB;
    setCrumbs([{ text: 'suites', href: link({ reset: true }) }, { text: suite.name, href: link({ view: 'trend' }) },
      { text: runA.id + ' → ' + runB.id }]);
    statusLine.textContent = 'loading…';
    main.replaceChildren(el('p', { class: 'muted', text: 'Loading the two runs…' }));
    loading.promise.then(function (loaded) {
      statusLine.textContent = '';
      const dataA = loaded[0], dataB = loaded[1], stats = loaded[2];
      const variants = sharedVariants(runA, runB);
      if (!variants.length) { main.replaceChildren(el('p', { text: 'The two runs share no variant.' })); return; }
      const variant = variants.indexOf(p.get('variant')) >= 0 ? p.get('variant') : variants[0];
      const metricIndex = Math.max(0, suite.metrics.findIndex(function (m) { return m.name === p.get('metric'); }));
      const metric = suite.metrics[metricIndex];
      const cases = pairedCases(suite, dataA, dataB, variant, metricIndex, p);
      const allCases = pairedCases(suite, dataA, dataB, variant, metricIndex, new URLSearchParams());
      const variantStats = stats ? stats.series.find(function (s) { return s.variant === variant; }) : null;

      const variantSelect = el('select', { 'aria-label': 'variant', id: 'variant' });
      variants.forEach(function (v) { variantSelect.appendChild(el('option', { value: v, text: v, selected: v === variant ? 'selected' : null })); });
      variantSelect.addEventListener('change', function () { go({ variant: variantSelect.value }); });
      const metricSelect = el('select', { 'aria-label': 'sort by', id: 'sort-metric' });
      suite.metrics.forEach(function (m) { metricSelect.appendChild(el('option', { value: m.name, text: m.label, selected: m === metric ? 'selected' : null })); });
      metricSelect.addEventListener('change', function () { go({ metric: metricSelect.value }); });
      const filter = el('input', { type: 'search', placeholder: 'filter cases', 'aria-label': 'filter cases', value: p.get('q') || '' });
      filter.addEventListener('change', function () { go({ q: filter.value }); });
      const only = el('select', { 'aria-label': 'which cases', id: 'only' });
      [['', 'every paired case'], ['changed', 'changed cases'], ['regressed', 'regressed cases']].forEach(function (o) {
        only.appendChild(el('option', { value: o[0], text: o[1], selected: o[0] === (p.get('only') || '') ? 'selected' : null }));
      });
      only.addEventListener('change', function () { go({ only: only.value }); });

      const note = variantStats
        ? el('p', { class: 'muted', text: 'Paired statistics as harness compare reports them: ' + variantStats.cases + ' paired case(s), b − a, 95% paired bootstrap interval, sign-flip p-value.' })
        : el('p', { class: 'muted', id: 'no-interval', text: 'No interval for this pair: the site precomputes consecutive runs and each run against the accepted baseline. The change shown is the mean per-case change; for intervals run: harness compare ' + runA.id + ' ' + runB.id + ' (run folders).' });
      const head = el('tr', {}, el('th', { text: 'case' }), el('th', { text: metric.label + ' A' }), el('th', { text: metric.label + ' B' }),
        el('th', { text: 'change' }), el('th', { text: 'entities only in A / only in B' }), el('th', { text: 'relationships only in A / only in B' }));
      const body = el('tbody');
      const list = [];
      cases.forEach(function (c) {
        const diff = graphDiff(c.a, c.b);
        const href = link({ view: 'case', case: c.id, variant: variant });
        const tr = el('tr', { 'data-case': c.id }, el('td', {}, el('a', { href: href, text: c.id })),
          el('td', { class: 'num', text: fmt(metric, c.va) }), el('td', { class: 'num', text: fmt(metric, c.vb) }),
          el('td', { class: 'num ' + changeClass(metric, c.delta), text: fmtChange(metric, c.delta) }),
          el('td', { class: 'num', text: diff.entities.onlyA.length + ' / ' + diff.entities.onlyB.length }),
          el('td', { class: 'num', text: diff.relationships.onlyA.length + ' / ' + diff.relationships.onlyB.length }));
        body.appendChild(tr);
        list.push({ node: tr, open: function () { location.hash = href; } });
      });
      main.replaceChildren(
        el('h2', { text: suite.name + ': ' + runA.id + ' (A) → ' + runB.id + ' (B)' }),
        el('p', { class: 'muted', text: 'A: ' + day(runA.created) + (runA.commit ? ', commit ' + shortCommit(runA.commit) : '') + ', model ' + modelOf(runA, variant) + ' · B: ' + day(runB.created) + (runB.commit ? ', commit ' + shortCommit(runB.commit) : '') + ', model ' + modelOf(runB, variant) }),
        el('p', {}, 'variant ', variantSelect), note,
        statsTable(suite, runA, runB, variant, loading.pair, variantStats, allCases, metricIndex),
        el('h3', { text: 'Cases, worst regression first (' + cases.length + ' of ' + allCases.length + ' paired)' }),
        el('p', {}, 'sort by ', metricSelect, ' ', only, ' ', filter),
        el('table', { id: 'cases' }, el('thead', {}, head), body));
      setRows(list);
      keys = { up: function () { go({ view: 'trend', case: null }); } };
    }).catch(function (error) { statusLine.textContent = String(error.message || error); });
  }

  // ------------------------------------------------------------------ one case: figures and graph diff
  function graphDiff(rowA, rowB) {
    function split(listA, listB) {
      const inB = {};
      listB.forEach(function (item) { inB[item[0]] = item; });
      const inA = {};
      listA.forEach(function (item) { inA[item[0]] = item; });
      return {
        onlyA: listA.filter(function (item) { return !inB[item[0]]; }),
        onlyB: listB.filter(function (item) { return !inA[item[0]]; }),
        both: listA.filter(function (item) { return inB[item[0]]; }).map(function (item) { return [item, inB[item[0]]]; }),
      };
    }
    return { entities: split(rowA.entities, rowB.entities), relationships: split(rowA.relationships, rowB.relationships) };
  }
  function itemList(title, items, show, cls, id) {
    const ul = el('ul', { id: id });
    items.forEach(function (item) { ul.appendChild(el('li', { class: cls }, show(item))); });
    if (!items.length) { ul.appendChild(el('li', { class: 'muted', text: 'none' })); }
    return el('div', {}, el('h4', { text: title + ' (' + items.length + ')' }), ul);
  }
  function entityText(item) { return item[1] + (item[2] ? ' [' + item[2] + ']' : ''); }
  function edgeText(item) { return item[1] + ' — ' + item[2]; }
  function bothEntity(pair) {
    const a = pair[0], b = pair[1];
    if (a[2] !== b[2]) { return el('span', { class: 'retyped', text: b[1] + ' [' + (a[2] || '—') + ' → ' + (b[2] || '—') + ']' }); }
    return entityText(b);
  }
  function caseView(suite, p) {
    const loading = loadPair(suite, p);
    if (!loading) { main.replaceChildren(el('p', { text: 'Runs A and B are not both runs of ' + suite.name + '.' })); return; }
    const runA = loading.runA, runB = loading.runB, id = p.get('case');
    setCrumbs([{ text: 'suites', href: link({ reset: true }) }, { text: suite.name, href: link({ view: 'trend', case: null }) },
      { text: runA.id + ' → ' + runB.id, href: link({ view: 'compare', case: null }) }, { text: id || '' }]);
    loading.promise.then(function (loaded) {
      const variants = sharedVariants(runA, runB);
      const variant = variants.indexOf(p.get('variant')) >= 0 ? p.get('variant') : variants[0];
      const metricIndex = Math.max(0, suite.metrics.findIndex(function (m) { return m.name === p.get('metric'); }));
      const order = pairedCases(suite, loaded[0], loaded[1], variant, metricIndex, p);
      const at = order.findIndex(function (c) { return c.id === id; });
      const rowA = byCase(loaded[0], variant)[id], rowB = byCase(loaded[1], variant)[id];
      if (!rowA || !rowB) { main.replaceChildren(el('p', { text: 'Case ' + id + ' is not in both runs (variant ' + variant + ').' })); return; }
      const figures = el('tbody');
      suite.metrics.forEach(function (metric, i) {
        const va = rowA.figures[i], vb = rowB.figures[i];
        const delta = va !== null && vb !== null ? vb - va : null;
        figures.appendChild(el('tr', {}, el('td', { text: metric.label }), el('td', { class: 'num', text: fmt(metric, va) }),
          el('td', { class: 'num', text: fmt(metric, vb) }), el('td', { class: 'num ' + changeClass(metric, delta), text: fmtChange(metric, delta) })));
      });
      const diff = graphDiff(rowA, rowB);
      const nav = el('p', {},
        at > 0 ? el('a', { href: link({ case: order[at - 1].id }), id: 'prev-case', text: '◀ previous case (p)' }) : null, ' ',
        at >= 0 && at < order.length - 1 ? el('a', { href: link({ case: order[at + 1].id }), id: 'next-case', text: 'next case (n) ▶' }) : null,
        el('span', { class: 'muted', text: at >= 0 ? '  case ' + (at + 1) + ' of ' + order.length + ', worst regression first' : '' }));
      const errors = [rowA.error ? 'A: ' + rowA.error : null, rowB.error ? 'B: ' + rowB.error : null].filter(Boolean);
      main.replaceChildren(
        el('h2', { text: 'Case ' + id + ' (' + variant + ')' }), nav,
        errors.length ? el('p', { class: 'down', text: 'Model errors: ' + errors.join('; ') }) : el('span'),
        el('table', { id: 'case-figures' }, el('thead', {}, el('tr', {}, el('th', { text: 'figure' }), el('th', { text: 'A ' + runA.id }),
          el('th', { text: 'B ' + runB.id }), el('th', { text: 'change' }))), figures),
        el('h3', { text: 'Graph diff: entities' }),
        el('div', { class: 'cols' }, itemList('only in A', diff.entities.onlyA, entityText, 'only-a', 'entities-only-a'),
          itemList('only in B', diff.entities.onlyB, entityText, 'only-b', 'entities-only-b'),
          itemList('in both', diff.entities.both, bothEntity, '', 'entities-both')),
        el('h3', { text: 'Graph diff: relationships (undirected)' }),
        el('div', { class: 'cols' }, itemList('only in A', diff.relationships.onlyA, edgeText, 'only-a', 'relationships-only-a'),
          itemList('only in B', diff.relationships.onlyB, edgeText, 'only-b', 'relationships-only-b'),
          itemList('in both', diff.relationships.both, function (pair) { return edgeText(pair[1]); }, '', 'relationships-both')),
        el('p', { class: 'muted', text: 'Names are matched as harness compare matches them: normalised, relationships without direction.' }));
      setRows([]);
      keys = {
        up: function () { go({ view: 'compare', case: null }); },
        n: function () { if (at >= 0 && at < order.length - 1) { go({ case: order[at + 1].id }); } },
        p: function () { if (at > 0) { go({ case: order[at - 1].id }); } },
      };
    }).catch(function (error) { statusLine.textContent = String(error.message || error); });
  }

  // ------------------------------------------------------------------ a graph diff of `harness diff --json` (docs/diff.md)
  function countChange(pair) { return (pair[0] === null ? '?' : pair[0]) + ' → ' + (pair[1] === null ? '?' : pair[1]); }
  function groupText(g) { return (g.before || []).join(' + ') + ' → ' + (g.after || []).join(' + '); }
  function changeText(c) { return c.title + ': ' + c.before + ' → ' + c.after; }
  function pairText(pair) { return pair[0] + ' — ' + pair[1]; }
  function diffView(p) {
    const entry = INDEX.diffs.find(function (d) { return d.name === p.get('diff'); });
    setCrumbs([{ text: 'suites', href: link({ reset: true }) }, { text: 'graph diff ' + (entry ? entry.name : '') }]);
    if (!entry) { main.replaceChildren(el('p', { text: 'No such graph diff in this site.' })); return; }
    load(entry.data).then(function (d) {
      const ents = d.entities, rels = d.relationships;
      const because = function (block) {
        const out = el('div', { class: 'cols' });
        Object.keys(block || {}).forEach(function (reason) { out.appendChild(itemList(reason.replace('_', ' '), block[reason], pairText, '', 'because-' + reason)); });
        return out;
      };
      const chunks = el('tbody');
      (d.chunks || []).slice(0, 20).forEach(function (c) {
        chunks.appendChild(el('tr', {}, el('td', { text: String(c.chunk) }), el('td', { class: 'num', text: String(c.changes) }),
          el('td', { class: 'num', text: c.added + ' / ' + c.removed }), el('td', { class: 'muted', text: c.text || '' })));
      });
      main.replaceChildren(
        el('h2', { text: 'Graph diff ' + entry.name }),
        el('p', { class: 'muted', text: 'A: ' + d.a.label + ' (' + d.a.kind + ') · B: ' + d.b.label + ' (' + d.b.kind + ')' }),
        el('p', { text: 'Entities ' + countChange(entry.entities) + ', relationships ' + countChange(entry.relationships) + '.' }),
        el('h3', { text: 'Entities' }),
        el('div', { class: 'cols' }, itemList('removed (only in A)', ents.removed, String, 'only-a', 'diff-entities-removed'),
          itemList('added (only in B)', ents.added, String, 'only-b', 'diff-entities-added'),
          itemList('merged', ents.merged || [], groupText, '', 'diff-merged'), itemList('split', ents.split || [], groupText, '', 'diff-split'),
          itemList('renamed', ents.renamed || [], groupText, '', 'diff-renamed'),
          itemList('retyped', ents.retyped || [], changeText, 'retyped', 'diff-retyped')),
        el('h3', { text: 'Relationships (undirected)' }),
        el('div', { class: 'cols' }, itemList('removed (only in A)', rels.removed, pairText, 'only-a', 'diff-relationships-removed'),
          itemList('added (only in B)', rels.added, pairText, 'only-b', 'diff-relationships-added')),
        el('h4', { text: 'Why removed' }), because(rels.removed_because), el('h4', { text: 'Why added' }), because(rels.added_because),
        el('h3', { text: 'Chunks holding most of the change' }),
        el('table', { id: 'diff-chunks' }, el('thead', {}, el('tr', {}, el('th', { text: 'chunk' }), el('th', { text: 'changes' }),
          el('th', { text: 'entities added / removed' }), el('th', { text: 'text' }))), chunks),
        el('p', { class: 'muted', text: 'Written by harness diff --json (docs/diff.md); re-described entities and relationships are in the file.' }));
      setRows([]);
      keys = { up: function () { go({ reset: true }); } };
    }).catch(function (error) { statusLine.textContent = String(error.message || error); });
  }

  // ------------------------------------------------------------------ routing
  function route() {
    statusLine.textContent = '';
    const p = params();
    if (p.get('view') === 'diff') { diffView(p); window.harnessView.ready = true; return; }
    const suite = p.get('suite') ? suiteOf(p.get('suite')) : null;
    if (suite && !suite.metrics.length) {
      setCrumbs([{ text: 'suites', href: link({ reset: true }) }, { text: suite.name }]);
      main.replaceChildren(el('p', { text: 'This suite\'s kind has no figure to show.' }));
    } else if (!suite) { home(); } else if (p.get('view') === 'compare') { compare(suite, p); } else if (p.get('view') === 'case') { caseView(suite, p); } else { trend(suite, p); }
    window.harnessView.ready = true;
  }
  window.addEventListener('hashchange', route);
  route();
})();
