// The gradient monitor's histogram controls (an anywidget module; widgets/gradients.py is its Python side).
//
// Choosing a layer or a step asks the kernel to draw that histogram (it holds the data), so the
// controls work only while the kernel that made the monitor runs. The view asks it once ("ping");
// until it answers, the controls are disabled and say why: a saved notebook reopened without that
// kernel shows the charts as they were saved, never controls that look live and do nothing. While a
// training loop runs, the kernel cannot answer; the Python side says so (the "training" trait) and the
// controls say "training..." instead.

function element(tag, attributes = {}, children = []) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (name === "text") node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) node.appendChild(child);
  return node;
}

function render({ model, el }) {
  try { keepOpeningClean(model); } catch (error) { /* not in JupyterLab: nothing to keep clean */ }
  const layer = element("select", { class: "mt-monitor-layer", "aria-label": "layer" });
  const step = element("input", { type: "range", min: "0", step: "1", class: "mt-monitor-step", "aria-label": "step" });
  const stepLabel = element("span", { class: "mt-monitor-step-label" });
  const note = element("span", { class: "mt-monitor-note" });
  const root = element("div", { class: "mt-monitor-controls" }, [
    element("label", { text: "layer " }, [layer]),
    element("label", { text: "histograms at step " }, [step]),
    stepLabel, note,
  ]);
  el.appendChild(root);
  let kernelAlive = false;

  function show() {
    const layers = model.get("layers");
    const steps = model.get("steps");
    if (layer.options.length !== layers.length || layers.some((name, i) => layer.options[i].value !== name)) {
      layer.textContent = "";
      for (const name of layers) layer.appendChild(element("option", { value: name, text: name }));
    }
    layer.value = model.get("layer");
    step.max = String(Math.max(0, steps.length - 1));
    const index = steps.indexOf(model.get("step"));
    step.value = String(Math.max(0, index));
    stepLabel.textContent = steps.length ? `${model.get("step")} (${Math.max(0, index) + 1} of ${steps.length})` : "";
    const training = model.get("training");
    layer.disabled = step.disabled = training || !kernelAlive || !steps.length;
    root.classList.toggle("mt-monitor-offline", !training && !kernelAlive);
    if (training) {
      // The kernel is busy with the training loop: it answers (and the controls wake) when the cell ends.
      note.textContent = "training\u2026 the charts follow the run; the controls wake when the cell ends.";
    } else {
      note.textContent = kernelAlive ? "" :
        "The histograms are drawn by the running kernel: run the cells again to choose a layer or a step.";
    }
  }

  layer.addEventListener("change", () => { model.set("layer", layer.value); model.save_changes(); });
  step.addEventListener("input", () => {
    const steps = model.get("steps");
    stepLabel.textContent = `${steps[Number(step.value)]} (${Number(step.value) + 1} of ${steps.length})`;
  });
  step.addEventListener("change", () => { model.set("step", model.get("steps")[Number(step.value)]); model.save_changes(); });

  function onMessage(message) {
    if (message && message.type === "pong") { kernelAlive = true; show(); }
  }
  model.on("msg:custom", onMessage);
  try {
    model.send({ type: "ping" });
  } catch (error) {
    // a model restored from the notebook's saved state has no kernel to talk to: the controls stay disabled
  }
  const names = ["change:layers", "change:steps", "change:layer", "change:step", "change:training"];
  for (const name of names) model.on(name, show);
  show();
  return () => {
    model.off("msg:custom", onMessage);
    for (const name of names) model.off(name, show);
  };
}

export default { render };
