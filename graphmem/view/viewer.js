/* graphmem's graph page (docs/concepts/exploring.md). Plain JavaScript, no network, no library.
 *
 * The embedded data holds every version with its four time bounds as fixed-width UTC ISO
 * strings; string order is time order. A version is drawn when
 *   vf <= v < vt  and  ra <= k < ea        (closed-open, a missing end is open)
 * which is the rule of facts(valid_at=v, known_at=k) (docs/concepts/time.md#rule-3). The
 * sliders step through the instants where some version starts or ends, so every distinct
 * snapshot is one step away, however close the instants are (a backfill within a minute).
 */
(function () {
  "use strict";
  var D = JSON.parse(document.getElementById("graphmem-data").textContent);
  var ENTS = D.entities, VERS = D.versions, VS = D.valid_steps, KS = D.known_steps;
  var META = D.meta, SVGNS = "http://www.w3.org/2000/svg";
  var SIM_LIMIT = 300, SIM_TICKS = 120, LABEL_BUDGET = 45;
  var $ = function (id) { return document.getElementById(id); };
  var svg = $("graph"), viewport = $("viewport"), gEdges = $("edges"), gNodes = $("nodes");
  var gLabels = $("labels"), panel = $("panel"), status = $("status");
  var validIn = $("valid"), knownIn = $("known"), supIn = $("superseded"), foldIn = $("fold");
  var searchIn = $("search");

  var view = { x: 0, y: 0, k: 1 };
  var pos = ENTS.map(function (e) { return { x: e.x, y: e.y, vx: 0, vy: 0 }; });
  var nodeEls = [], edgeEls = [], groupEls = [], groupEdgeEls = [], labelEls = [];
  var groupPos = {};
  var state = { live: [], faded: [], nodes: [], deg: null, folded: false, groups: [] };
  var selected = null, hits = [], simTicks = 0, simOn = false, autoFold = true;

  var hubIndex = {};
  ENTS.forEach(function (e, i) { if (D.groups[e.g] === e.id) hubIndex[e.g] = i; });
  var byChain = {}, bySlot = {}, byId = {};
  VERS.forEach(function (r, j) {
    (byChain[r.c] = byChain[r.c] || []).push(j);
    var slot = r.s + "\u0000" + r.p;
    (bySlot[slot] = bySlot[slot] || []).push(j);
    byId[r.id] = j;
  });

  // -- time ---------------------------------------------------------------------------------
  function shown(t) {
    if (t === undefined || t === null) return "open";
    var s = t.replace(/\.000000$/, "").replace(/T00:00:00$/, "");
    return s.replace("T", " ") + (s.length > 10 ? " UTC" : "");
  }
  function isLive(r, v, k) {
    return r.vf <= v && (r.vt === undefined || v < r.vt) &&
      r.ra <= k && (r.ea === undefined || k < r.ea);
  }
  function isFaded(r, v, k) {  // valid then, believed before k, closed by k
    return r.vf <= v && (r.vt === undefined || v < r.vt) && r.ea !== undefined && r.ea <= k;
  }
  function interval(a, b) { return "[" + shown(a) + ", " + shown(b) + ")"; }

  // -- elements -----------------------------------------------------------------------------
  function el(tag, attrs, parent) {
    var e = document.createElementNS(SVGNS, tag);
    for (var a in attrs) e.setAttribute(a, attrs[a]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function show(e, on) {
    if (e.__on !== on) { e.__on = on; e.classList.toggle("hidden", !on); }
  }
  var PALETTE = ["#1f77b4", "#2ca02c", "#9467bd", "#d62728", "#ff7f0e", "#8c564b", "#e377c2",
    "#17becf", "#bcbd22", "#7f7f7f"];
  function colour(i) { return PALETTE[ENTS[i].g % PALETTE.length]; }
  function nodeEl(i) {
    if (!nodeEls[i]) {
      var c = el("circle", { r: 5, "class": "node", fill: colour(i), "data-id": ENTS[i].id }, gNodes);
      c.__i = i;
      el("title", {}, c).textContent = ENTS[i].n + " (" + ENTS[i].k + ")";
      nodeEls[i] = c;
    }
    return nodeEls[i];
  }
  function edgeEl(j) {
    if (!edgeEls[j]) {
      var r = VERS[j];
      var l = el("line", { "class": "edge", "data-id": r.id, "vector-effect": "non-scaling-stroke" }, gEdges);
      l.__j = j;
      el("title", {}, l).textContent = ENTS[r.s].n + " " + r.p + " " + ENTS[r.o].n;
      edgeEls[j] = l;
    }
    return edgeEls[j];
  }

  // -- the snapshot -------------------------------------------------------------------------
  function update() {
    var v = VS[+validIn.value], k = KS[+knownIn.value];
    $("valid-label").textContent = shown(v) + (v === META.now ? " (now)" : "");
    $("known-label").textContent = shown(k) + (k === META.now ? " (now)" : "");
    var live = [], faded = [], deg = new Array(ENTS.length).fill(0), on = new Array(ENTS.length).fill(false);
    for (var j = 0; j < VERS.length; j++) {
      var r = VERS[j];
      if (isLive(r, v, k)) live.push(j);
      else if (isFaded(r, v, k)) faded.push(j);
    }
    var drawn = supIn.checked ? live.concat(faded) : live;
    drawn.forEach(function (j) { on[VERS[j].s] = on[VERS[j].o] = true; });
    live.forEach(function (j) { deg[VERS[j].s]++; deg[VERS[j].o]++; });
    (D.subject || []).forEach(function (i) { on[i] = true; });
    var nodes = [];
    for (var i = 0; i < ENTS.length; i++) if (on[i]) nodes.push(i);
    if (autoFold) foldIn.checked = nodes.length > META.fold_limit;
    state = { v: v, k: k, live: live, faded: faded, drawn: drawn, nodes: nodes, on: on, deg: deg,
      folded: foldIn.checked, groups: [] };
    var liveSet = {}; live.forEach(function (j) { liveSet[j] = true; });
    var drawnSet = {}; drawn.forEach(function (j) { drawnSet[j] = true; });
    edgeEls.forEach(function (e, j) { if (e) show(e, !state.folded && !!drawnSet[j]); });
    nodeEls.forEach(function (e, i) { if (e) show(e, !state.folded && on[i]); });
    if (!state.folded) {
      drawn.forEach(function (j) {
        var e = edgeEl(j);
        show(e, true);
        e.classList.toggle("live", !!liveSet[j]);
        e.classList.toggle("faded", !liveSet[j]);
      });
      nodes.forEach(function (i) {
        var c = nodeEl(i);
        show(c, true);
        c.setAttribute("r", (4 + Math.sqrt(deg[i]) * 1.6).toFixed(1));
      });
    }
    fold();
    place();
    window.graphmemView.refresh();
    if (!state.folded && nodes.length <= SIM_LIMIT) start(SIM_TICKS);
  }

  function fold() {
    groupEls.forEach(function (e) { show(e, false); });
    groupEdgeEls.forEach(function (e) { show(e, false); });
    if (!state.folded) return;
    var count = {}, members = {}, sx = {}, sy = {};
    state.nodes.forEach(function (i) {
      var g = ENTS[i].g;
      count[g] = (count[g] || 0) + 1;
      (members[g] = members[g] || []).push(i);
      sx[g] = (sx[g] || 0) + pos[i].x; sy[g] = (sy[g] || 0) + pos[i].y;
    });
    var links = {};
    state.live.forEach(function (j) {
      var a = ENTS[VERS[j].s].g, b = ENTS[VERS[j].o].g;
      if (a === b) return;
      var key = a < b ? a + "," + b : b + "," + a;
      links[key] = (links[key] || 0) + 1;
    });
    var groups = Object.keys(count).map(Number);
    groups.forEach(function (g) {
      if (!groupPos[g]) groupPos[g] = { x: sx[g] / count[g], y: sy[g] / count[g] };
      var e = groupEls[g];
      if (!e) {
        e = groupEls[g] = el("circle", { "class": "node group", fill: PALETTE[g % PALETTE.length] }, gNodes);
        e.__g = g;
        el("title", {}, e);
      }
      members[g].sort(function (a, b) { return state.deg[b] - state.deg[a]; });
      e.__members = members[g];
      e.setAttribute("r", Math.min(6 + 1.5 * Math.sqrt(count[g]), 36).toFixed(1));
      e.firstChild.textContent = groupName(g) + ": " + count[g] + " entities";
      show(e, true);
    });
    var n = 0;
    Object.keys(links).forEach(function (key) {
      var ab = key.split(",").map(Number);
      var e = groupEdgeEls[n] || (groupEdgeEls[n] = el("line", { "class": "edge group", "vector-effect": "non-scaling-stroke" }, gEdges));
      e.__ab = ab;
      e.setAttribute("stroke-width", Math.min(1 + Math.log2(links[key]), 8).toFixed(1));
      if (!e.firstChild) el("title", {}, e);
      e.firstChild.textContent = links[key] + " facts between " + groupName(ab[0]) + " and " + groupName(ab[1]);
      show(e, true);
      n++;
    });
    state.groups = groups;
    state.groupLinks = n;
  }
  function groupName(g) {
    var e = groupEls[g], top = e && e.__members && e.__members[0];
    if (D.groups[g] === "") return "others";
    if (META.fold_by === "kind") return D.groups[g];
    var hub = hubIndex[g];
    return "around " + (hub !== undefined ? ENTS[hub].n : top !== undefined ? ENTS[top].n : "?");
  }

  // -- drawing ------------------------------------------------------------------------------
  function place() {
    if (state.folded) {
      groupEls.forEach(function (e, g) {
        if (e && e.__on) { e.setAttribute("cx", groupPos[g].x); e.setAttribute("cy", groupPos[g].y); }
      });
      groupEdgeEls.forEach(function (e) {
        if (!e.__on) return;
        var a = groupPos[e.__ab[0]], b = groupPos[e.__ab[1]];
        e.setAttribute("x1", a.x); e.setAttribute("y1", a.y);
        e.setAttribute("x2", b.x); e.setAttribute("y2", b.y);
      });
    } else {
      state.nodes.forEach(function (i) {
        var c = nodeEls[i];
        c.setAttribute("cx", pos[i].x.toFixed(1)); c.setAttribute("cy", pos[i].y.toFixed(1));
      });
      state.drawn.forEach(function (j) {
        var r = VERS[j], e = edgeEls[j], a = pos[r.s], b = pos[r.o];
        var dx = b.x - a.x, dy = b.y - a.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
        var rb = +nodeEls[r.o].getAttribute("r") + 1;  // the arrow stops at the circle
        e.setAttribute("x1", a.x.toFixed(1)); e.setAttribute("y1", a.y.toFixed(1));
        e.setAttribute("x2", (b.x - dx * rb / d).toFixed(1)); e.setAttribute("y2", (b.y - dy * rb / d).toFixed(1));
      });
    }
    labels();
  }

  var labelTimer = 0;
  function labels() {
    // Label what fits: the best-connected first, then skip any label that would overlap one
    // already placed (screen space); the selection, the subject and search hits always.
    var items = [];
    if (state.folded) {
      state.groups.forEach(function (g) {
        items.push({ x: groupPos[g].x, y: groupPos[g].y, text: groupName(g) + " (" + groupEls[g].__members.length + ")",
          w: groupEls[g].__members.length, must: false, group: true });
      });
    } else {
      var must = {};
      (D.subject || []).forEach(function (i) { must[i] = true; });
      hits.forEach(function (i) { must[i] = true; });
      if (selected && selected.i !== undefined) must[selected.i] = true;
      state.nodes.forEach(function (i) {
        items.push({ x: pos[i].x, y: pos[i].y, text: ENTS[i].n, w: state.deg[i], must: !!must[i], i: i });
      });
    }
    items.sort(function (a, b) { return (b.must - a.must) || (b.w - a.w); });
    var budget = Math.round(LABEL_BUDGET * Math.max(1, view.k)), placed = [], out = [];
    var W = svg.clientWidth || 800, H = svg.clientHeight || 600;
    for (var n = 0; n < items.length && (out.length < budget || items[n].must); n++) {
      var it = items[n], sx = it.x * view.k + view.x, sy = it.y * view.k + view.y;
      if (!it.must && (sx < 0 || sy < 0 || sx > W || sy > H)) continue;
      var box = [sx + 7, sy - 12, sx + 9 + 6.4 * it.text.length, sy + 3];
      var clash = placed.some(function (b) { return box[0] < b[2] && b[0] < box[2] && box[1] < b[3] && b[1] < box[3]; });
      if (clash && !it.must) continue;
      placed.push(box);
      out.push(it);
    }
    for (var m = 0; m < out.length; m++) {
      var t = labelEls[m] || (labelEls[m] = el("text", { "class": "label" }, gLabels));
      t.setAttribute("x", out[m].x + 7 / view.k); t.setAttribute("y", out[m].y + 4 / view.k);
      t.setAttribute("font-size", (11 / view.k).toFixed(3));
      t.setAttribute("stroke-width", (3 / view.k).toFixed(3));
      t.classList.toggle("group", !!out[m].group);
      t.textContent = out[m].text;
      show(t, true);
    }
    for (var q = out.length; q < labelEls.length; q++) show(labelEls[q], false);
    state.labelled = out.length;
    state.labelItems = items.length;
    report();
  }

  function report() {
    var s = state, parts = [];
    parts.push(s.live.length + " facts true at valid " + shown(s.v) + " as known at " + shown(s.k) +
      ", among " + s.nodes.length + " entities");
    if (s.folded) parts.push("folded into " + s.groups.length + " groups by " + META.fold_by + ", " +
      s.groupLinks + " counted links between groups (untick fold to draw every entity)");
    if (s.labelItems > s.labelled) parts.push("names shown on " + s.labelled + " of " + s.labelItems +
      " (zoom in or search for the rest)");
    if (s.faded.length && !supIn.checked) parts.push(s.faded.length + " superseded versions hidden (tick superseded)");
    if (s.faded.length && supIn.checked) parts.push(s.faded.length + " superseded versions drawn dashed");
    status.textContent = parts.join(" · ");
  }

  // -- force layout: a few capped ticks from the precomputed positions ---------------------
  function start(ticks) {
    simTicks = Math.max(simTicks, ticks);
    if (!simOn) { simOn = true; window.graphmemView.moving = true; requestAnimationFrame(tick); }
  }
  function tick() {
    if (simTicks-- <= 0 || state.folded || state.nodes.length > SIM_LIMIT) {
      simOn = false; window.graphmemView.moving = false; return;
    }
    var ns = state.nodes, alpha = 0.02 + 0.1 * simTicks / SIM_TICKS, a, b, i, j;
    for (i = 0; i < ns.length; i++) {
      a = pos[ns[i]];
      for (j = i + 1; j < ns.length; j++) {
        b = pos[ns[j]];
        var dx = a.x - b.x, dy = a.y - b.y, d2 = dx * dx + dy * dy + 1;
        if (d2 > 40000) continue;
        var f = 900 / d2;
        a.vx += dx * f; a.vy += dy * f; b.vx -= dx * f; b.vy -= dy * f;
      }
    }
    state.live.forEach(function (j2) {
      var r = VERS[j2]; if (r.s === r.o) return;
      var p = pos[r.s], q = pos[r.o], dx = q.x - p.x, dy = q.y - p.y, d = Math.sqrt(dx * dx + dy * dy) || 1;
      var f = (d - 70) / d * 0.05;
      p.vx += dx * f; p.vy += dy * f; q.vx -= dx * f; q.vy -= dy * f;
    });
    ns.forEach(function (n) {
      var p = pos[n];
      if (p !== dragged) { p.x += Math.max(-20, Math.min(20, p.vx * alpha * 4)); p.y += Math.max(-20, Math.min(20, p.vy * alpha * 4)); }
      p.vx *= 0.5; p.vy *= 0.5;
    });
    place();
    requestAnimationFrame(tick);
  }

  // -- zoom, pan, drag ----------------------------------------------------------------------
  function transform() {
    viewport.setAttribute("transform", "translate(" + view.x + "," + view.y + ") scale(" + view.k + ")");
    clearTimeout(labelTimer);
    labelTimer = setTimeout(labels, 60);
  }
  function fit() {
    var pts = state.folded ? state.groups.map(function (g) { return groupPos[g]; })
      : state.nodes.map(function (i) { return pos[i]; });
    if (!pts.length) pts = [{ x: 500, y: 500 }];
    var x0 = Math.min.apply(null, pts.map(function (p) { return p.x; })), x1 = Math.max.apply(null, pts.map(function (p) { return p.x; }));
    var y0 = Math.min.apply(null, pts.map(function (p) { return p.y; })), y1 = Math.max.apply(null, pts.map(function (p) { return p.y; }));
    var W = svg.clientWidth || 800, H = svg.clientHeight || 600;
    view.k = Math.min(4, 0.9 * Math.min(W / Math.max(x1 - x0, 1), H / Math.max(y1 - y0, 1)));
    view.x = W / 2 - view.k * (x0 + x1) / 2; view.y = H / 2 - view.k * (y0 + y1) / 2;
    transform();
  }
  function local(ev) {
    var b = svg.getBoundingClientRect();
    return { x: (ev.clientX - b.left - view.x) / view.k, y: (ev.clientY - b.top - view.y) / view.k };
  }
  svg.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var b = svg.getBoundingClientRect(), mx = ev.clientX - b.left, my = ev.clientY - b.top;
    var k = Math.max(0.05, Math.min(40, view.k * Math.exp(-ev.deltaY * 0.0015)));
    view.x = mx - (mx - view.x) * k / view.k; view.y = my - (my - view.y) * k / view.k; view.k = k;
    transform();
  }, { passive: false });
  var dragged = null, drag = null;
  svg.addEventListener("pointerdown", function (ev) {
    var t = ev.target;
    drag = { sx: ev.clientX, sy: ev.clientY, vx: view.x, vy: view.y, t: t, moved: false };
    if (t.__i !== undefined) dragged = pos[t.__i];
    else if (t.__g !== undefined) dragged = groupPos[t.__g];
    try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* a synthetic event */ }
    svg.classList.add("dragging");
  });
  svg.addEventListener("pointermove", function (ev) {
    if (!drag) return;
    if (Math.abs(ev.clientX - drag.sx) + Math.abs(ev.clientY - drag.sy) > 3) drag.moved = true;
    if (!drag.moved) return;
    if (dragged) {
      var p = local(ev); dragged.x = p.x; dragged.y = p.y;
      place();
      if (!state.folded && state.nodes.length <= SIM_LIMIT) start(40);
    } else {
      view.x = drag.vx + ev.clientX - drag.sx; view.y = drag.vy + ev.clientY - drag.sy;
      transform();
    }
  });
  svg.addEventListener("pointerup", function () {
    var d = drag; drag = null; dragged = null;
    svg.classList.remove("dragging");
    if (d && !d.moved) click(d.t);
  });

  // -- the panel ----------------------------------------------------------------------------
  function h(tag, text, cls) {
    var e = document.createElement(tag);
    if (text !== undefined) e.textContent = text;
    if (cls) e.className = cls;
    return e;
  }
  function link(text, fn) { var a = h("a", text); a.tabIndex = 0; a.addEventListener("click", fn); return a; }
  function select(sel) {
    nodeEls.concat(edgeEls).forEach(function (e) { if (e && e.classList.contains("on")) e.classList.remove("on"); });
    selected = sel;
    if (sel && sel.i !== undefined && nodeEls[sel.i]) nodeEls[sel.i].classList.add("on");
    if (sel && sel.j !== undefined && edgeEls[sel.j]) edgeEls[sel.j].classList.add("on");
  }
  function click(t) {
    if (t.__i !== undefined) entityPanel(t.__i);
    else if (t.__j !== undefined) versionPanel(t.__j);
    else if (t.__g !== undefined) groupPanel(t.__g);
    else if (t.__ab !== undefined) groupPanel(t.__ab[0]);
  }
  function factItem(j, text) {
    var r = VERS[j], li = h("li");
    li.appendChild(link(text, function () { versionPanel(j); }));
    li.appendChild(h("span", " valid " + interval(r.vf, r.vt), "when"));
    if (r.ea !== undefined) { li.className = "closed"; li.appendChild(h("div", "closed " + shown(r.ea) + ": " + (r.why || ""), "when")); }
    return li;
  }
  function entityPanel(i) {
    select({ i: i });
    labels();
    panel.textContent = "";
    panel.appendChild(h("h3", ENTS[i].n));
    panel.appendChild(h("div", ENTS[i].k + " · valid " + shown(state.v) + " · known " + shown(state.k), "when"));
    var lists = [["Facts", function (r) { return r.s === i; }, function (r) { return r.p + " → " + ENTS[r.o].n; }],
      ["Facts about it", function (r) { return r.o === i && r.s !== i; }, function (r) { return ENTS[r.s].n + " " + r.p; }]];
    lists.forEach(function (spec) {
      var mine = state.live.filter(function (j) { return spec[1](VERS[j]); });
      var old = supIn.checked ? state.faded.filter(function (j) { return spec[1](VERS[j]); }) : [];
      if (!mine.length && !old.length) return;
      panel.appendChild(h("h4", spec[0]));
      var ul = h("ul");
      mine.concat(old).forEach(function (j) { ul.appendChild(factItem(j, spec[2](VERS[j]))); });
      panel.appendChild(ul);
    });
    if (panel.childNodes.length === 2) panel.appendChild(h("p", "No fact at these instants; move the sliders.", "hint"));
  }
  function versionPanel(j) {
    var r = VERS[j];
    select({ j: j });
    panel.textContent = "";
    panel.appendChild(h("h3", ENTS[r.s].n + " " + r.p + " " + ENTS[r.o].n));
    var ul = h("ul");
    ul.appendChild(h("li", "valid " + interval(r.vf, r.vt)));
    ul.appendChild(h("li", "known " + interval(r.ra, r.ea)));
    if (r.st) ul.appendChild(h("li", "said: “" + r.st + "”"));
    if (r.src) ul.appendChild(h("li", "from session " + r.src));
    if (r.ea !== undefined) ul.appendChild(h("li", "closed " + shown(r.ea) + ": " + (r.why || "")));
    if (r.by && byId[r.by] !== undefined) {
      var li = h("li", "replaced by ");
      li.appendChild(link(ENTS[VERS[byId[r.by]].o].n, function () { versionPanel(byId[r.by]); }));
      ul.appendChild(li);
    }
    panel.appendChild(ul);
    panel.appendChild(h("h4", "History of " + ENTS[r.s].n + " " + r.p));
    var hist = h("ul");
    bySlot[r.s + "\u0000" + r.p].slice().sort(function (a, b) {
      var x = VERS[a], y = VERS[b];
      return x.vf < y.vf ? -1 : x.vf > y.vf ? 1 : x.ra < y.ra ? -1 : x.ra > y.ra ? 1 : 0;
    }).forEach(function (q) { hist.appendChild(factItem(q, ENTS[VERS[q].o].n)); });
    panel.appendChild(hist);
    panel.appendChild(h("h4", "Why: what was learned and closed, in system time"));
    var ev = [];
    byChain[r.c].forEach(function (q) {
      var x = VERS[q], src = x.src ? " from session " + x.src : "";
      ev.push([x.ra, 1, q, shown(x.ra) + " learned " + ENTS[x.o].n + " valid " + interval(x.vf, x.vt) + src]);
      if (x.ea !== undefined) ev.push([x.ea, 0, q, shown(x.ea) + " closed " + ENTS[x.o].n + ": " + (x.why || "")]);
    });
    ev.sort(function (a, b) { return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1] || a[2] - b[2]; });
    var why = h("ul");
    ev.forEach(function (e) { why.appendChild(h("li", e[3], e[1] === 0 ? "closed" : "")); });
    panel.appendChild(why);
  }
  function groupPanel(g) {
    select(null);
    var m = (groupEls[g] && groupEls[g].__members) || [];
    panel.textContent = "";
    panel.appendChild(h("h3", groupName(g)));
    panel.appendChild(h("div", m.length + " entities with a fact at these instants; the best connected:", "when"));
    var ul = h("ul");
    m.slice(0, 40).forEach(function (i) {
      var li = h("li");
      li.appendChild(link(ENTS[i].n, function () { entityPanel(i); }));
      li.appendChild(h("span", " " + state.deg[i] + " facts", "when"));
      ul.appendChild(li);
    });
    panel.appendChild(ul);
  }

  // -- search -------------------------------------------------------------------------------
  searchIn.addEventListener("input", function () {
    var q = searchIn.value.trim().toLowerCase();
    hits.forEach(function (i) { if (nodeEls[i]) nodeEls[i].classList.remove("hit"); });
    hits = [];
    if (q) {
      for (var i = 0; i < ENTS.length && hits.length < 200; i++) {
        if (ENTS[i].n.toLowerCase().indexOf(q) >= 0) hits.push(i);
      }
    }
    hits.forEach(function (i) { if (nodeEls[i]) nodeEls[i].classList.add("hit"); });
    labels();
    if (!q) return;
    select(null);
    panel.textContent = "";
    panel.appendChild(h("h3", hits.length + (hits.length === 200 ? "+" : "") + " names match “" + searchIn.value.trim() + "”"));
    var ul = h("ul");
    hits.slice(0, 50).forEach(function (i) {
      var li = h("li");
      li.appendChild(link(ENTS[i].n, function () { entityPanel(i); }));
      li.appendChild(h("span", state.on[i] ? "" : " (no fact at these instants)", "when"));
      ul.appendChild(li);
    });
    panel.appendChild(ul);
  });

  // -- start --------------------------------------------------------------------------------
  validIn.max = VS.length - 1; knownIn.max = KS.length - 1;
  validIn.value = Math.max(0, VS.indexOf(META.valid_at));
  knownIn.value = Math.max(0, KS.indexOf(META.known_at));
  validIn.addEventListener("input", update);
  knownIn.addEventListener("input", update);
  supIn.addEventListener("change", update);
  foldIn.addEventListener("change", function () { autoFold = false; update(); fit(); });
  $("fit").addEventListener("click", fit);
  window.graphmemView = {
    refresh: function () {
      var s = state, self = window.graphmemView;
      self.validAt = s.v; self.knownAt = s.k; self.folded = s.folded;
      self.live = s.live.map(function (j) { return VERS[j].id; }).sort();
      self.faded = s.faded.map(function (j) { return VERS[j].id; }).sort();
      self.entities = s.nodes.length; self.labelled = s.labelled;
    },
    validSteps: VS, knownSteps: KS
  };
  update();
  fit();
  window.graphmemView.ready = true;
})();
