// Opening a notebook must not mark it changed (shared by the kit's views: graph_stepper.js, monitor_controls.js).
//
// With widget state saving on (the kit's lab), JupyterLab's widget manager marks the notebook changed each time it
// registers a widget model, also for the models it restores from the notebook's own saved state when the
// notebook opens: the tab shows the "unsaved changes" dot and closing it asks to save, though nothing changed.
// Once that restore is done, this compares the notebook with the file on disk (cells, their sources, outputs and
// execution counts, and the notebook's metadata other than the widget state) and, when they are the same, marks
// the notebook unchanged again. Any real change (an edit, a run cell) keeps the mark. Once per notebook.

function keepOpeningClean(model) {
  const manager = model && model.widget_manager;
  const context = manager && manager.context;
  if (!context || !context.model || !manager.restored || typeof context.path !== "string") return;
  const seen = (window.__minitorchOpeningClean = window.__minitorchOpeningClean || new WeakSet());
  if (seen.has(manager)) return;
  seen.add(manager);

  const canonical = (value) => {
    if (Array.isArray(value)) return value.map(canonical);
    if (value && typeof value === "object") {
      return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical(value[key])]));
    }
    return value;
  };
  const text = (source) => (Array.isArray(source) ? source.join("") : source || "");
  const summary = (notebook) => {
    const metadata = Object.assign({}, notebook.metadata || {});
    delete metadata.widgets;
    return JSON.stringify(canonical({
      metadata,
      cells: (notebook.cells || []).map((cell) => [
        cell.cell_type, text(cell.source), cell.execution_count ?? null, (cell.outputs || []).length,
      ]),
    }));
  };

  async function onDisk() {
    const config = JSON.parse(document.getElementById("jupyter-config-data")?.textContent || "{}");
    const base = (config.baseUrl || "/").replace(/\/?$/, "/");
    const path = context.path.split("/").map(encodeURIComponent).join("/");
    const headers = config.token ? { Authorization: `token ${config.token}` } : {};
    const response = await fetch(`${base}api/contents/${path}?type=notebook&content=1`, { headers });
    return response.ok ? (await response.json()).content : null;
  }

  let changed = false; // a real change was seen: the mark stays, and the file is not fetched again
  async function check() {
    if (changed || !context.model.dirty) return;
    const before = summary(context.model.toJSON());
    const disk = await onDisk();
    if (!disk) return;
    // unchanged on disk and here since the check began: only the restore marked it
    if (summary(disk) === before && summary(context.model.toJSON()) === before) context.model.dirty = false;
    else changed = true;
  }

  // The restore registers models one by one (each marks the notebook again): look when it is done, and twice
  // more in the next seconds; after 10 s the notebook is the learner's.
  const opened = performance.now();
  const soon = () => {
    if (performance.now() - opened > 10000) { manager.restored.disconnect(soon); return; }
    for (const delay of [0, 1000, 3000]) setTimeout(() => check().catch(() => {}), delay); // a failed look: as is
  };
  manager.restored.connect(soon);
  if (manager.restoredStatus) soon();
  setTimeout(() => manager.restored.disconnect(soon), 10000);
}
