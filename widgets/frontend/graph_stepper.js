// The graph stepper's view in the browser (an anywidget module; widgets/graph.py is its Python side).
//
// The kernel sends the drawing once, as an SVG with numbered holes (a node's visibility, colours,
// the text of its lines), and for every frame only the holes that change. This view fills the
// holes in place, so stepping works without a kernel (a saved notebook with its widget state)
// and the pan and zoom stay where the learner left them. Pan and zoom: svg-pan-zoom (vendored,
// see vendor/svg-pan-zoom.LICENSE). The view tells the kernel the size of its box, and the kernel lays
// the graph out to be legible whole in it (folding modules, wrapping a tall drawing into columns; a
// learner's own folding is kept). The drawing opens whole when its text is legible that way
// (9 px or more), else at the smallest legible size on the current step. On each step the view
// frames what changed: a forward step's new node with its inputs, a backward step's sender with
// every receiver and gradient label (zooming out when they do not fit). A minimap shows the whole
// graph and where the view is (click it to go there); the search box finds a node by name.
// Clicking a node selects it and the side panel shows what is known about it at the current
// frame; clicking a folded module's box opens it in place. Folding needs the kernel (it lays the
// graph out again): without one, the fold list is disabled and says so.

const HOLE = /^\u27e6(\d+)\u27e7$/;

function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.appendChild(child);
  return node;
}

function button(label, title, className) {
  return element("button", { type: "button", title, class: `mt-button ${className}`, text: label });
}

function render({ model, el }) {
  try { keepOpeningClean(model); } catch (error) { /* not in JupyterLab: nothing to keep clean */ }
  const root = element("div", { class: "minitorch-graph-stepper mt-stepper" });
  const play = button("\u25b6 play", "play the steps (again to pause)", "mt-play");
  const previous = button("\u25c0 previous", "previous step", "mt-previous");
  const next = button("next \u25b6", "next step", "mt-next");
  const slider = element("input", { type: "range", min: "0", step: "1", class: "mt-slider", "aria-label": "step" });
  const counter = element("span", { class: "mt-counter" });
  const zoomOut = button("\u2212", "zoom out", "mt-zoom-out");
  const zoomIn = button("+", "zoom in", "mt-zoom-in");
  const fitWidth = button("fit", "fit the whole graph in view", "mt-fit");
  const actual = button("1:1", "back to the reading size, centred on the current step", "mt-actual");
  const search = element("input", {
    type: "search", class: "mt-search", placeholder: "find a node", title: "find a node by name",
    "aria-label": "find a node by name",
  });
  const controls = element("div", { class: "mt-controls" }, [
    play, previous, next, slider, counter, element("span", { class: "mt-gap" }), zoomOut, zoomIn, fitWidth, actual,
    search,
  ]);
  const caption = element("div", { class: "minitorch-graph-caption mt-caption" });
  const graph = element("div", { class: "minitorch-graph-frames mt-graph" });
  const minimap = element("div", { class: "mt-minimap", title: "the whole graph: click to go there" });
  const minimapView = element("div", { class: "mt-minimap-view" });
  const nodeSelect = element("select", { class: "mt-node-select", "aria-label": "selected node" });
  const details = element("div", { class: "minitorch-graph-detail-panel mt-details" });
  const side = element("div", { class: "mt-side" }, [
    element("div", { class: "mt-side-title", text: "Selected node (click a node in the graph)" }), nodeSelect, details,
  ]);
  const main = element("div", { class: "mt-main" }, [graph, side]);
  const foldSelect = element("select", { multiple: "", class: "mt-fold-select", "aria-label": "fold modules" });
  const foldNote = element("span", { class: "mt-fold-note" });
  const fold = element("div", { class: "mt-fold" }, [
    element("span", { class: "mt-fold-title", text: "fold modules into one box:" }), foldSelect, foldNote,
  ]);
  // what must be on screen together while stepping: the controls, the caption, the drawing
  const stage = element("div", { class: "mt-stage" }, [controls, caption, main]);
  root.append(stage, fold);
  el.appendChild(root);

  let svg = null;
  let panZoom = null;
  let targets = [];
  let values = [];
  let shown = -1; // the frame whose values are in the drawing
  let timer = null;
  let kernelAlive = false;

  // -- the drawing: parse the template once, then fill holes in place -----------------------------
  function build() {
    const parts = model.get("svg_parts");
    const slots = model.get("slot_keys");
    graph.textContent = "";
    if (panZoom) { panZoom.destroy(); panZoom = null; }
    svg = null;
    if (!parts.length) {
      graph.appendChild(element("div", { class: "mt-error", text: model.get("error") }));
      return;
    }
    let markup = parts[0];
    for (let slot = 0; slot < slots.length; slot++) markup += `\u27e6${slots[slot]}\u27e7` + parts[slot + 1];
    const parsed = new DOMParser().parseFromString(markup, "image/svg+xml");
    svg = document.importNode(parsed.documentElement, true);
    targets = model.get("initial").map(() => []);
    const walker = document.createTreeWalker(svg, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
    for (let node = walker.currentNode; node; node = walker.nextNode()) {
      if (node.nodeType === Node.TEXT_NODE) {
        const match = HOLE.exec(node.data);
        if (match) targets[Number(match[1])].push([node, null]);
      } else {
        for (const attribute of Array.from(node.attributes)) {
          const match = HOLE.exec(attribute.value);
          if (match) targets[Number(match[1])].push([node, attribute.name]);
        }
      }
    }
    values = model.get("initial").slice();
    values.forEach((value, key) => put(key, value));
    shown = 0;
    svg.removeAttribute("style");
    svg.setAttribute("width", "100%");
    svg.setAttribute("height", "100%");
    graph.appendChild(svg);
    buildMinimap();
    for (const group of svg.querySelectorAll("g.node")) {
      group.addEventListener("click", () => {
        const path = model.get("module_boxes")[group.id];
        if (path !== undefined) { expandInPlace(path); return; }
        select(model.get("unit_items")[group.id] ?? -1);
      });
    }
    panZoom = window.svgPanZoom(svg, {
      zoomEnabled: true, panEnabled: true, controlIconsEnabled: false, fit: true, center: true,
      minZoom: 0.05, maxZoom: 2000, dblClickZoomEnabled: false, zoomScaleSensitivity: 0.25,
      onPan: () => minimapSoon(), onZoom: () => minimapSoon(),
    });
    openingView();
  }

  // -- the minimap: the whole graph, small, and a rectangle where the view is ------------------------
  function buildMinimap() {
    minimap.textContent = "";
    const copy = svg.cloneNode(true);
    copy.removeAttribute("id");
    for (const node of copy.querySelectorAll("[id]")) node.removeAttribute("id");
    copy.setAttribute("preserveAspectRatio", "xMidYMid meet");
    minimap.append(copy, minimapView);
    graph.appendChild(minimap);
  }

  let minimapPending = false;
  function minimapSoon() {
    if (minimapPending) return;
    minimapPending = true;
    requestAnimationFrame(() => { minimapPending = false; drawMinimapView(); });
  }

  function drawingBox() {
    const viewport = svg && svg.querySelector(".svg-pan-zoom_viewport");
    return viewport ? viewport.getBoundingClientRect() : null;
  }

  function drawMinimapView() {
    const drawing = drawingBox();
    if (!drawing || !drawing.width) return;
    const view = graph.getBoundingClientRect();
    const whole = drawing.left >= view.left - 1 && drawing.right <= view.right + 1 &&
      drawing.top >= view.top - 1 && drawing.bottom <= view.bottom + 1;
    minimap.classList.toggle("mt-hidden", whole); // the whole graph is in view: no map needed
    const map = minimap.getBoundingClientRect();
    // the drawing as the minimap shows it: scaled to fit, centred
    const scale = Math.min(map.width / drawing.width, map.height / drawing.height);
    const offsetX = (map.width - drawing.width * scale) / 2;
    const offsetY = (map.height - drawing.height * scale) / 2;
    const left = Math.max(0, (view.left - drawing.left) * scale + offsetX);
    const top = Math.max(0, (view.top - drawing.top) * scale + offsetY);
    const right = Math.min(map.width, (view.right - drawing.left) * scale + offsetX);
    const bottom = Math.min(map.height, (view.bottom - drawing.top) * scale + offsetY);
    Object.assign(minimapView.style, {
      left: `${left}px`, top: `${top}px`, width: `${Math.max(2, right - left)}px`, height: `${Math.max(2, bottom - top)}px`,
    });
  }

  minimap.addEventListener("click", (event) => {
    event.stopPropagation();
    const drawing = drawingBox();
    if (!drawing || !panZoom) return;
    const map = minimap.getBoundingClientRect();
    const scale = Math.min(map.width / drawing.width, map.height / drawing.height);
    const offsetX = (map.width - drawing.width * scale) / 2;
    const offsetY = (map.height - drawing.height * scale) / 2;
    const x = drawing.left + (event.clientX - map.left - offsetX) / scale;
    const y = drawing.top + (event.clientY - map.top - offsetY) / scale;
    const view = graph.getBoundingClientRect();
    panZoom.panBy({ x: view.left + view.width / 2 - x, y: view.top + view.height / 2 - y });
  });
  for (const type of ["mousedown", "pointerdown", "wheel", "dblclick"]) {
    minimap.addEventListener(type, (event) => event.stopPropagation()); // the map is not the drawing's pan area
  }

  function put(key, value) {
    for (const [node, attribute] of targets[key]) {
      if (attribute === null) node.data = value;
      else node.setAttribute(attribute, value);
    }
  }

  function show(frame) {
    if (!svg) return;
    const changes = model.get("changes");
    if (frame < shown) { // going back: start again from the first frame's values
      values = model.get("initial").slice();
      values.forEach((value, key) => put(key, value));
      shown = 0;
    }
    for (let f = shown + 1; f <= frame; f++) {
      const delta = changes[f];
      for (let i = 0; i < delta.length; i += 2) {
        values[delta[i]] = delta[i + 1];
        put(delta[i], delta[i + 1]);
      }
    }
    shown = frame;
  }

  // -- keeping the action in view ------------------------------------------------------------------
  const READING_SCALE = 1.25; // screen pixels per point of the drawing: the same font size for every graph
  const LEGIBLE_SCALE = 0.9; // the labels are 10 pt: 9 px on screen is the smallest text one reads

  function setScale(scale) {
    const sizes = panZoom.getSizes();
    panZoom.zoom(panZoom.getZoom() * scale / sizes.realZoom);
  }

  function readingSize() {
    if (!panZoom) return;
    const sizes = panZoom.getSizes();
    if (!sizes.viewBox.width) return;
    setScale(READING_SCALE);
    panZoom.pan({ x: 8, y: 8 });
    followSoon(true);
  }

  // The whole graph when it is legible that way (no larger than the reading size), else the smallest
  // legible size, on the current step.
  function openingView() {
    if (!panZoom) return;
    const sizes = panZoom.getSizes();
    if (!sizes.viewBox.width) return;
    const whole = Math.min(sizes.width / sizes.viewBox.width, sizes.height / sizes.viewBox.height) * 0.99;
    if (whole >= LEGIBLE_SCALE) {
      setScale(Math.min(whole, READING_SCALE));
      panZoom.center();
      minimapSoon();
      followSoon();
    } else {
      setScale(LEGIBLE_SCALE);
      panZoom.pan({ x: 8, y: 8 });
      followSoon(true);
    }
  }

  // svg-pan-zoom moves the drawing at the next animation frame: measure after it, once per frame.
  // (Two measures in one frame both see the drawing before the first pan, and pan it twice as far:
  // after folding, the drawing left the view.)
  let followPending = null;
  function followSoon(always = false) {
    if (followPending !== null) { followPending = followPending || always; return; }
    followPending = always;
    requestAnimationFrame(() => { const all = followPending; followPending = null; follow(all); });
  }

  function follow(always = false) {
    if (!panZoom) return;
    const keys = model.get("focus")[model.get("frame")] || [];
    graph.dataset.focus = keys.join(" ");
    const elements = keys.map((key) => svg.getElementById(key)).filter((node) => node);
    frameElements(elements, always);
    minimapSoon();
  }

  // Bring ``elements`` into view together: pan when they fit at this zoom, else zoom out until they
  // do (the sender and every receiver with its gradient label, or a new node with its inputs).
  function frameElements(elements, always = false) {
    const measure = (nodes) => {
      const boxes = nodes.map((node) => node.getBoundingClientRect()).filter((box) => box.width || box.height);
      if (!boxes.length) return null;
      return {
        left: Math.min(...boxes.map((b) => b.left)), right: Math.max(...boxes.map((b) => b.right)),
        top: Math.min(...boxes.map((b) => b.top)), bottom: Math.max(...boxes.map((b) => b.bottom)),
      };
    };
    const view = graph.getBoundingClientRect();
    const margin = 12;
    const box = measure(elements);
    if (!box) return;
    const width = box.right - box.left;
    const height = box.bottom - box.top;
    const room = Math.min((view.width - 2 * margin) / width, (view.height - 2 * margin) / height);
    if (room < 1) { // zoom out around the box's centre until it fits, then (once drawn) frame it again
      const centre = { x: (box.left + box.right) / 2 - view.left, y: (box.top + box.bottom) / 2 - view.top };
      panZoom.zoomAtPoint(panZoom.getZoom() * room * 0.98, centre);
      requestAnimationFrame(() => requestAnimationFrame(() => frameElements(elements, always)));
      return;
    }
    // Already in view with a margin: leave the view where the learner has it. Else move it as little as
    // brings the box inside (a whole graph that fills its box stays put but for a few pixels).
    const inside = box.left >= view.left + margin && box.right <= view.right - margin &&
      box.top >= view.top + margin && box.bottom <= view.bottom - margin;
    graph.dataset.framed = JSON.stringify({ box, room, inside });
    if (inside && !always) return;
    const shift = (low, high, start, end) => {
      if (always || high - low > end - start - 2 * margin) return (start + end) / 2 - (low + high) / 2;
      if (low < start + margin) return start + margin - low;
      if (high > end - margin) return end - margin - high;
      return 0;
    };
    panZoom.panBy({
      x: shift(box.left, box.right, view.left, view.right), y: shift(box.top, box.bottom, view.top, view.bottom),
    });
  }

  // -- expand in place, and search by name -------------------------------------------------------------
  function expandInPlace(path) {
    if (!kernelAlive) {
      foldNote.textContent = "Opening a folded module lays the graph out again and needs the running kernel: " +
        "run the cell to use it.";
      return;
    }
    model.set("collapsed", model.get("collapsed").filter((folded) => folded !== path));
    model.save_changes();
  }

  function find(text) {
    const wanted = text.trim().toLowerCase();
    if (!wanted) return;
    const labels = model.get("item_labels");
    let index = labels.findIndex((label) => label.toLowerCase() === wanted);
    if (index < 0) index = labels.findIndex((label) => label.toLowerCase().startsWith(wanted));
    if (index < 0) index = labels.findIndex((label) => label.toLowerCase().includes(wanted));
    search.classList.toggle("mt-not-found", index < 0);
    if (index < 0) return;
    select(index);
    const key = model.get("item_units")[index];
    const node = key && svg ? svg.getElementById(key) : null;
    if (node) {
      if (node.getAttribute("visibility") === "hidden") { // not made yet at this step: go to where it appears
        const focus = model.get("focus");
        const appears = focus.findIndex((keys) => keys.includes(key));
        if (appears >= 0) go(appears);
      }
      requestAnimationFrame(() => frameElements([node], true));
    }
  }

  // -- selection and the detail panel ----------------------------------------------------------------
  function select(index) {
    if (index < 0) return;
    model.set("selected", index);
    model.save_changes();
  }

  function showDetails() {
    const index = model.get("selected");
    const frame = model.get("frame");
    const variants = model.get("details")[index] || [];
    let text = "";
    for (const [from, html] of variants) if (from <= frame) text = html;
    details.innerHTML = text; // built by the kernel from escaped values
    if (nodeSelect.selectedIndex !== index) nodeSelect.selectedIndex = index;
    if (!svg) return;
    for (const node of svg.querySelectorAll(".mt-selected")) node.classList.remove("mt-selected");
    const key = model.get("item_units")[index];
    const group = key ? svg.getElementById(key) : null;
    if (group) group.classList.add("mt-selected");
  }

  function fillNodeList() {
    nodeSelect.textContent = "";
    for (const [index, label] of model.get("item_labels").entries()) {
      nodeSelect.appendChild(element("option", { value: String(index), text: label }));
    }
  }

  function fillFoldList() {
    foldSelect.textContent = "";
    const collapsed = new Set(model.get("collapsed"));
    const modules = model.get("modules");
    fold.style.display = modules.length ? "" : "none";
    foldSelect.size = Math.min(6, Math.max(2, modules.length));
    for (const [label, path] of modules) {
      const option = element("option", { value: path, text: label });
      option.selected = collapsed.has(path);
      foldSelect.appendChild(option);
    }
    foldSelect.disabled = !kernelAlive;
    // A multiple select hides its Ctrl/Cmd-click rule: say it, as the learners missed it.
    foldNote.textContent = kernelAlive ? "Ctrl-click (Cmd-click on a Mac) picks several; click a folded box to open it." :
      "Folding lays the graph out again and needs the running kernel: run the cell to use it.";
  }

  // -- stepping -----------------------------------------------------------------------------------------
  function update() {
    const frame = model.get("frame");
    const last = model.get("frame_count") - 1;
    slider.max = String(last);
    slider.value = String(frame);
    counter.textContent = `step ${frame} of ${last}`;
    caption.textContent = model.get("captions")[frame] || "";
    previous.disabled = frame <= 0;
    next.disabled = frame >= last;
    show(frame);
    showDetails();
    followSoon();
  }

  function go(frame) {
    const last = model.get("frame_count") - 1;
    model.set("frame", Math.max(0, Math.min(last, frame)));
    model.save_changes();
    // keep the controls and the drawing on screen together (scrolls the notebook only when needed)
    stage.scrollIntoView({ block: "nearest" });
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    play.textContent = "\u25b6 play";
  }

  play.addEventListener("click", () => {
    if (timer !== null) { stop(); return; }
    if (model.get("frame") >= model.get("frame_count") - 1) go(0);
    play.textContent = "\u23f8 pause";
    timer = setInterval(() => {
      const frame = model.get("frame") + 1;
      go(frame);
      if (frame >= model.get("frame_count") - 1) stop(); // at the end: the button says play again at once
    }, model.get("interval_ms"));
  });
  previous.addEventListener("click", () => { stop(); go(model.get("frame") - 1); });
  next.addEventListener("click", () => { stop(); go(model.get("frame") + 1); });
  slider.addEventListener("input", () => { stop(); go(Number(slider.value)); });
  zoomIn.addEventListener("click", () => panZoom && panZoom.zoomBy(1.25));
  zoomOut.addEventListener("click", () => panZoom && panZoom.zoomBy(0.8));
  fitWidth.addEventListener("click", () => { if (panZoom) { panZoom.resize(); panZoom.fit(); panZoom.center(); } });
  search.addEventListener("change", () => find(search.value));
  search.addEventListener("keydown", (event) => { if (event.key === "Enter") find(search.value); });
  actual.addEventListener("click", () => readingSize());
  nodeSelect.addEventListener("change", () => select(nodeSelect.selectedIndex));
  foldSelect.addEventListener("change", () => {
    model.set("collapsed", Array.from(foldSelect.selectedOptions).map((option) => option.value));
    model.save_changes();
  });

  // -- the drawing's box: the kernel lays the graph out to be legible in it (folding, wrapping) ---------
  let boxTimer = null;
  function reportBoxSoon() {
    if (boxTimer !== null) clearTimeout(boxTimer);
    boxTimer = setTimeout(() => {
      boxTimer = null;
      const box = [Math.round(graph.clientWidth), Math.round(graph.clientHeight)];
      const [width, height] = model.get("box") || [];
      if (!box[0] || !box[1] || (Math.abs(box[0] - (width || 0)) < 8 && Math.abs(box[1] - (height || 0)) < 8)) return;
      try {
        model.set("box", box);
        model.save_changes();
      } catch (error) {
        // restored from the saved state without its kernel: the layout stays as it was saved
      }
    }, 250);
  }

  // -- the kernel: is it there? (a saved notebook without one still steps, but cannot fold) ----------
  function onMessage(message) {
    if (message && message.type === "pong") { kernelAlive = true; fillFoldList(); }
  }
  model.on("msg:custom", onMessage);
  try {
    model.send({ type: "ping" });
  } catch (error) {
    // a model restored from the notebook's saved state has no kernel to talk to: folding stays disabled
  }

  const rebuild = () => { if (graph.clientWidth) { build(); update(); } };
  const markLayoutBox = () => { graph.dataset.layoutBox = (model.get("layout_box") || []).join("x"); };
  const relabel = () => { fillNodeList(); fillFoldList(); showDetails(); };
  model.on("change:frame", update);
  model.on("change:selected", showDetails);
  model.on("change:changes", rebuild);
  model.on("change:collapsed", fillFoldList);
  model.on("change:item_labels", relabel);
  model.on("change:layout_box", markLayoutBox);

  markLayoutBox();
  fillNodeList();
  fillFoldList();
  // Draw once the view has a size (JupyterLab may attach it before laying it out), and keep the
  // pan and zoom right when the output is resized.
  let drawnWidth = 0;
  const resized = new ResizeObserver(() => {
    reportBoxSoon();
    const width = graph.clientWidth;
    if (!width || width === drawnWidth) return;
    if (!drawnWidth) { drawnWidth = width; build(); update(); return; }
    drawnWidth = width;
    if (panZoom) { panZoom.resize(); followSoon(); minimapSoon(); }
  });
  resized.observe(graph);
  return () => {
    resized.disconnect();
    if (boxTimer !== null) clearTimeout(boxTimer);
    stop();
    if (panZoom) panZoom.destroy();
    model.off("msg:custom", onMessage);
    model.off("change:frame", update);
    model.off("change:selected", showDetails);
    model.off("change:changes", rebuild);
    model.off("change:collapsed", fillFoldList);
    model.off("change:item_labels", relabel);
    model.off("change:layout_box", markLayoutBox);
  };
}

export default { render };
