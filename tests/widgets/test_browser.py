"""The widgets in a real JupyterLab, driven in headless Chromium through Playwright.

The test starts JupyterLab on 127.0.0.1 with a random token and its own settings, data and
runtime folders, opens a copy of the demo notebook, runs all cells, steps the graph
stepper (next, play, the slider), selects a node and reads the detail panel, and saves a
screenshot to ``test-artifacts/widgets_browser.png``.

Needs Debian's ``chromium`` and ``graphviz`` and the ``playwright`` package (never
``playwright install``: Chromium comes from apt and is launched by path).
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.support import require
from tests.widgets.support import require_dot, require_program

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "release" / "widgets_tour.ipynb"
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM_FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _write_json(path: Path, value) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value))


@pytest.fixture
def jupyterlab(tmp_path, monkeypatch):
    """A JupyterLab server on 127.0.0.1 serving a copy of the demo notebook; yields its URL and token."""
    require("jupyterlab", "the browser test runs the notebook in JupyterLab")
    require("ipywidgets", "the widgets are ipywidgets")
    require_dot()
    root = tmp_path / "notebooks"
    root.mkdir()
    shutil.copy(NOTEBOOK, root / NOTEBOOK.name)
    settings = tmp_path / "settings"
    widget_manager = settings / "@jupyter-widgets" / "jupyterlab-manager" / "plugin.jupyterlab-settings"
    _write_json(widget_manager, {"saveState": True})
    _write_json(settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings",
                {"fetchNews": "false", "checkForUpdates": False})
    # Without this, JupyterLab may ask which kernel to start in a dialog that blocks the page.
    _write_json(settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings",
                {"autoStartDefaultKernel": True})
    environment = dict(os.environ)
    environment.update({
        "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
        "JUPYTER_DATA_DIR": str(tmp_path / "data"),
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(tmp_path / "workspaces"),
        "IPYTHONDIR": str(tmp_path / "ipython"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "MPLBACKEND": "Agg",
    })
    port, token = _free_port(), secrets.token_hex(16)
    command = [
        sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={root}", "--ServerApp.port_retries=0",
    ]
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        command.append("--allow-root")
    log = (tmp_path / "jupyterlab.log").open("w")
    server = subprocess.Popen(command, env=environment, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"{url}/api/status?token={token}", timeout=2) as response:
                    if response.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(f"JupyterLab did not start:\n{(tmp_path / 'jupyterlab.log').read_text()[-3000:]}")
            time.sleep(0.2)
        yield url, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def test_demo_notebook_steps_in_jupyterlab_in_headless_chromium(jupyterlab, tmp_path):
    sync_api = require("playwright.sync_api", "the browser test drives Chromium with Playwright")
    chromium = require_program("chromium", "the browser test runs headless Chromium", "apt-get install chromium")
    expect = sync_api.expect
    url, token = jupyterlab
    ARTIFACTS.mkdir(exist_ok=True)
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=chromium, headless=True, args=CHROMIUM_FLAGS,
            viewport={"width": 1400, "height": 1000},
        )
        try:
            page = browser.pages[0] if browser.pages else browser.new_page()
            page.set_default_timeout(60_000)
            # Should a kernel dialog appear all the same, accept the notebook's kernel and go on.
            kernel_dialog = page.locator(".jp-Dialog:has-text('Select Kernel')")
            page.add_locator_handler(kernel_dialog, lambda dialog: dialog.locator("button:has-text('Select')").click())
            page.goto(f"{url}/lab/tree/{NOTEBOOK.name}?token={token}")
            page.wait_for_selector(".jp-NotebookPanel .jp-Notebook .jp-Cell")
            page.wait_for_selector(".jp-NotebookPanel-toolbar .jp-Notebook-ExecutionIndicator[data-status='idle']")

            # A run asked for while the kernel is still connecting is dropped by JupyterLab: wait until the
            # status bar says the kernel is idle, then run all cells from the Run menu (asking once more
            # should the first cell still not have started), and wait for the last widget, the timer.
            expect(page.locator(".jp-StatusBar-Widget:has-text('| Idle')").first).to_be_visible(timeout=60_000)
            first_prompt = page.locator(".jp-CodeCell .jp-InputPrompt").first
            for _ in range(3):
                page.click(".lm-MenuBar-item:has-text('Run')")
                page.click(".lm-Menu-item[data-command='runmenu:run-all']")
                try:
                    expect(first_prompt).to_have_text(re.compile(r"\[[0-9*]+\]"), timeout=20_000)
                    break
                except AssertionError:
                    continue
            page.wait_for_selector(".minitorch-device-timer img", timeout=60_000)
            steppers = page.locator(".minitorch-graph-stepper")
            assert steppers.count() == 2
            stepper = steppers.first
            frame = stepper.locator(".minitorch-graph-frames .minitorch-graph-frame")
            caption = stepper.locator(".minitorch-graph-frames .minitorch-graph-caption")
            assert caption.text_content().startswith("Before forward")
            first_svg = frame.locator("svg").inner_html()
            assert "grad not computed" in frame.locator("svg").text_content()

            # next: the kernel moves the slider, the jslink shows the next pre-rendered frame
            stepper.get_by_role("button", name="next ▶").click()
            expect(caption).to_have_text(re.compile(r"^Forward step 1 of 4"), timeout=15_000)
            assert frame.locator("svg").inner_html() != first_svg
            assert "MulBackward0" in frame.locator("svg").text_content()

            # play: the browser advances on its own
            stepper.locator(".widget-play button").first.click()
            expect(caption).to_have_text(re.compile(r"^Forward step 3 of 4"), timeout=15_000)
            stepper.locator(".widget-play button").nth(1).click()  # the Play widget's second button is Stop
            expect(caption).to_have_text(re.compile(r"^Before forward"), timeout=15_000)  # stop goes back to 0

            # press next through 4 forward and 6 backward steps: the leaf a shows its accumulated gradient
            for _ in range(10):
                stepper.get_by_role("button", name="next ▶").click()
            expect(caption).to_have_text(re.compile(r"^Backward step 6 of 6"), timeout=20_000)
            final_text = frame.locator("svg").text_content()
            assert "AccumulateGrad" in caption.text_content()
            # a.grad = b * exp(a * b) = [0.5 e^0.5, -e^-2, 2 e^6]
            assert re.search(r"grad \[\s*0\.824,\s*-0\.135,\s*806\.858\]", final_text), final_text
            assert "backward ran (step" in final_text

            # select a node: the detail panel shows its value and gradient
            stepper.locator("select").first.select_option(label="a (leaf)")
            details = stepper.locator(".minitorch-graph-detail-panel")
            expect(details).to_contain_text("a (leaf)", timeout=10_000)
            detail_text = details.text_content()
            assert "value: [1., 2., 3.]" in detail_text and ".grad:" in detail_text

            # the other widgets are drawn
            assert page.locator(".minitorch-gradient-monitor img").count() >= 2
            assert "No GPU here" in page.locator(".minitorch-device-timer").text_content() or \
                "cuda" in page.locator(".minitorch-device-timer").text_content()
            stepper.scroll_into_view_if_needed()
            page.screenshot(path=str(ARTIFACTS / "widgets_browser.png"), full_page=False)
        except Exception:
            page.screenshot(path=str(ARTIFACTS / "widgets_browser_failure.png"), full_page=False)
            raise
        finally:
            browser.close()
