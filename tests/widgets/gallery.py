"""The screenshot gallery of the browser tests: ``test-artifacts/widgets_gallery.html``.

Each browser test (``tests/widgets/test_browser.py``) saves screenshots of the states it checks into
``test-artifacts/`` and then rewrites this page from the files there, so the page shows the latest run of
each test, with what that run measured (text sizes, redraw gaps, reopen cycles). The widgets' README
section links to it.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

SIZES = ("1440x900", "1280x720")
GRAPHS = ("mlp", "cnn", "residual", "transformer")

# (title, what the screenshots show, [file names, "{size}" filled in with each screen size])
SECTIONS = [
    ("The whole graph, legible", "Each graph opened whole in its box, text 9 px or more: open when legible so, "
     "else folded one box per top-level module, wrapped into columns when still too tall (a 1280x720 screen).",
     [f"widgets3_{{size}}_{name}_opening.png" for name in GRAPHS]),
    ("Expand in place", "Clicking the transformer layer's folded attention box opens it in place.",
     ["widgets3_{size}_transformer_attention_opened.png"]),
    ("Each step frames what changed", "The first forward step, a backward step and the last step of each graph: "
     "a forward step's new node with its inputs, a backward step's sender with every receiver and gradient label.",
     [f"widgets3_{{size}}_{name}_step*.png" for name in GRAPHS]),
    ("Stepping, selecting, folding", "The tour's graph, a node selected, chapter 2's x * x + x (3 + 3 + 1 = 7), "
     "the course's MLP with a module folded.",
     ["widgets_{size}_stepper_first_backward_step.png", "widgets_{size}_stepper_node_selected.png",
      "widgets_{size}_x_times_x_plus_x_gradients.png", "widgets_{size}_mlp_folded.png"]),
    ("The monitor live", "During a tight 15 s loop (the live chart, redrawn at least once a second, the controls "
     "saying training...) and after it (matplotlib's charts, the controls awake).",
     ["widgets4_{size}_monitor_while_training.png", "widgets4_{size}_monitor_after_the_loop.png",
      "widgets_{size}_gradient_monitor_15000_steps.png"]),
    ("Saved and reopened", "Saved from the kit's lab with widget state: nbconvert's HTML with and without "
     "JavaScript, a plain JupyterLab without the kit, the kit's lab reopened live (1st and 10th reopening, each "
     "with a new kernel), stepping without a kernel.",
     ["widgets3_saving_export_js_True.png", "widgets3_saving_export_js_False.png",
      "widgets3_saving_plain_jupyterlab.png", "widgets3_saving_reopened_live.png", "widgets4_reopen_1.png",
      "widgets4_reopen_10.png", "widgets_{size}_saved_state_steps_without_kernel.png"]),
]


def _measured(folder: Path) -> list[str]:
    """What the latest runs measured, in words."""
    lines = []
    for size in SIZES:
        report = folder / f"widgets3_{size}_four_graphs.json"
        if report.exists():
            graphs = json.loads(report.read_text())
            lines.append(f"{size}: smallest text on screen when opened " + ", ".join(
                f"{name} {graph['opening']['smallest']:.1f} px ({graph['opening']['whole']} of "
                f"{graph['opening']['nodes']} nodes in view)" for name, graph in graphs.items()))
        redraws = folder / f"widgets4_{size}_monitor_redraws.json"
        report = json.loads(redraws.read_text()) if redraws.exists() else {}
        if "live_redraws" in report:
            lines.append(f"{size}: the monitor redrew its live chart {report['live_redraws']} times in "
                         f"{report['loop_seen_s']:.1f} s of training, the longest gap {report['largest_gap_s']:.2f} s")
    cycles = folder / "widgets4_reopen_cycles.json"
    if cycles.exists():
        runs = json.loads(cycles.read_text())
        good = [c for c in runs if not (c["model_not_found"] or c["error"] or c["marked_changed"])]
        lines.append(f"reopened {len(runs)} times, each with a new kernel: {len(good)} live with no "
                     "'model not found' and not marked changed")
    return lines


def write_gallery(folder: Path) -> Path:
    """Write ``folder/widgets_gallery.html`` from the screenshots in ``folder``; returns its path."""
    parts = ["<!doctype html><meta charset='utf-8'><title>minitorch widgets: screenshot gallery</title>",
             "<style>body{font-family:sans-serif;margin:16px;max-width:1500px}figure{margin:0 0 14px}"
             "img{width:100%;border:1px solid #ccc}.row{display:grid;grid-template-columns:1fr 1fr;gap:12px}"
             "figcaption{font-size:13px;color:#444}</style>",
             "<h1>The widgets in JupyterLab (headless Chromium)</h1>",
             "<p>Made by <code>python -m pytest tests/widgets/test_browser.py</code>; each test rewrites this page "
             "with its latest screenshots.</p><ul>"]
    parts += [f"<li>{html.escape(line)}</li>" for line in _measured(folder)]
    parts.append("</ul>")
    for title, text, patterns in SECTIONS:
        parts.append(f"<h2>{html.escape(title)}</h2><p>{html.escape(text)}</p><div class='row'>")
        for pattern in patterns:
            names = [pattern.format(size=size) for size in SIZES] if "{size}" in pattern else [pattern]
            for name in dict.fromkeys(names):
                files = sorted(folder.glob(name), key=lambda p: (len(p.name), p.name)) if "*" in name else (
                    [folder / name] if (folder / name).exists() else [])
                for file in files:
                    parts.append(f"<figure><a href='{html.escape(file.name)}'><img src='{html.escape(file.name)}' "
                                 f"loading='lazy'></a><figcaption>{html.escape(file.stem)}</figcaption></figure>")
        parts.append("</div>")
    page = folder / "widgets_gallery.html"
    page.write_text("\n".join(parts), encoding="utf-8")
    return page
