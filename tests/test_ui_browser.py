"""The example chat page (examples/chat_ui) in headless Chromium, driven with Selenium over Debian's chromedriver.

Skipped, saying why, when Chromium, its driver, Selenium or the ui extra is missing
(``apt-get install chromium chromium-driver``; ``pip install 'argstream[ui,test]'``). The server runs
in a thread on a free port; a screenshot of each run is kept under the pytest tmp dir (path printed).
"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from test_ui_example import Server

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the test extra)")
from selenium.common.exceptions import ElementClickInterceptedException, StaleElementReferenceException

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None or DRIVER is None,
    reason="headless browser test: needs Debian's chromium and chromium-driver "
    "(apt-get install chromium chromium-driver)",
)


@pytest.fixture
def browser() -> Any:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                 "--window-size=1100,1400"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    driver.set_script_timeout(30)
    yield driver
    driver.quit()


def answer(driver: Any, box: Any, button: str) -> bool:
    """Click ``button`` (``.approve`` / ``.decline``) of the prompt ``box``; ``True`` once the page took the
    click (its handler disables both buttons, and the answer then replaces the box).

    The box sits below the parameters, which grow while they stream: the button can move between the
    driver finding it and the click landing, so the click misses (silently, or intercepted by the
    parameter's ``<pre>``). The caller clicks again until the page took it.
    """
    try:
        target = box.find_element("css selector", button)
        if not target.is_enabled():
            return True
        target.click()
        return not target.is_enabled()
    except StaleElementReferenceException:  # the answer replaced the box: the click was taken
        return True
    except ElementClickInterceptedException:
        return False


def approve_until_done(driver: Any) -> None:
    """Approve the call, and approve it again when it is asked again whole (the early answer covered what
    the first prompt showed), until the stream ends."""
    answered: list[Any] = []

    def step() -> Any:
        for box in driver.find_elements("css selector", ".approval"):
            if box not in answered and answer(driver, box, ".approve"):
                answered.append(box)
        return driver.execute_script("return document.getElementById('run-status').dataset.done")

    wait_for(step, what="the end of the stream")


def wait_for(condition: Any, timeout: float = 90, what: str = "") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.02)


def param(driver: Any, name: str) -> tuple[str, str] | None:
    """(text shown, row class) of a call's parameter, or None while it has not appeared."""
    return driver.execute_script(
        "const row = document.querySelector(`.call .param[data-name='${arguments[0]}']`);"
        "return row ? [row.querySelector('pre').textContent, row.className] : null;", name)


def screenshot(driver: Any, tmp_path: Path, name: str) -> None:
    path = tmp_path / f"{name}.png"
    driver.save_screenshot(str(path))
    print(f"screenshot: {path}")
    assert path.stat().st_size > 0


def watch_until_prompt(driver: Any) -> tuple[str, list[int]]:
    """Follow the page until the Approve / Decline prompt shows: the path then, and the content lengths seen."""
    lengths: list[int] = []
    path_when_prompted = ""

    def prompted() -> bool:
        nonlocal path_when_prompted
        content = param(driver, "content")
        if content is not None:
            lengths.append(len(content[0]))
        if driver.find_elements("css selector", ".approval .approve"):
            shown = param(driver, "path")
            path_when_prompted = shown[0] if shown else ""
            return True
        return False

    wait_for(prompted, what="the approval prompt")
    return path_when_prompted, lengths


def test_path_first_content_grows_approve_runs(browser: Any, tmp_path: Path) -> None:
    server = Server()
    try:
        browser.get(f"{server.url}/?autostart")
        path, _ = watch_until_prompt(browser)
        assert path == "src/greet.py"
        content = param(browser, "content")
        assert content is None or "complete" not in content[1], "the prompt came before the content finished"
        lengths: list[int] = []

        def content_complete() -> bool:
            shown = param(browser, "content")
            if shown is not None:
                lengths.append(len(shown[0]))
            return shown is not None and "complete" in shown[1]

        wait_for(content_complete, what="the content to stream")
        assert len(set(lengths)) >= 3 and lengths == sorted(lengths), "the content grows as it streams"
        assert server.state()["executed"] == [], "nothing runs before it is approved"
        approve_until_done(browser)
        status = browser.find_element("css selector", ".call .status").text
        assert status.startswith("ran:") and "src/greet.py" in status
        assert server.state()["executed"] == [{"name": "fs_create_file", "path": "src/greet.py"}]
        assert browser.find_element("id", "run-status").text == "finished (tool-calls)"
        assert "I'll create the greeter now." in browser.find_element("css selector", ".text").text
        screenshot(browser, tmp_path, "approved")
    finally:
        server.stop()


def test_decline_cancels_and_nothing_runs(browser: Any, tmp_path: Path) -> None:
    server = Server()
    try:
        browser.get(f"{server.url}/?autostart")
        watch_until_prompt(browser)
        box = browser.find_element("css selector", ".approval")
        wait_for(lambda: answer(browser, box, ".decline"), what="the page to take the Decline click")
        wait_for(lambda: browser.execute_script("return document.getElementById('run-status').dataset.done"),
                 what="the end of the stream")
        assert browser.find_element("id", "run-status").get_attribute("data-state") == "cancelled"
        assert browser.find_element("css selector", ".call .status").text == "declined: not run"
        content = param(browser, "content")
        assert content is None or "complete" not in content[1], "the declined call's content stopped streaming"
        assert server.state() == {"executed": [], "files": []}
        screenshot(browser, tmp_path, "declined")
    finally:
        server.stop()


HOSTILE_PATH = "src/<script>window.__pwned=1</script>\u202egnp.exe"
HOSTILE_CONTENT = '<img src=x onerror="window.__pwned=2"><b>bold</b>\u2066isolate</p>'
HOSTILE_TEXT = "<i>not italic</i><script>window.__pwned=3</script>"


def hostile_recording(tmp_path: Path) -> Path:
    arguments = json.dumps({"path": HOSTILE_PATH, "content": HOSTILE_CONTENT * 20})
    wire = [
        {"type": "message_start", "message": {"id": "m", "type": "message", "role": "assistant", "model": "x",
                                              "content": [], "stop_reason": None, "usage": {"input_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": HOSTILE_TEXT}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1,
         "content_block": {"type": "tool_use", "id": "toolu_x", "name": "fs_create_file", "input": {}}},
    ]
    wire += [{"type": "content_block_delta", "index": 1,
              "delta": {"type": "input_json_delta", "partial_json": arguments[i:i + 40]}}
             for i in range(0, len(arguments), 40)]
    wire += [{"type": "content_block_stop", "index": 1},
             {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 1}},
             {"type": "message_stop"}]
    path = tmp_path / "hostile.jsonl"
    path.write_text("\n".join(json.dumps(event) for event in wire) + "\n", encoding="utf-8")
    return path


def test_hostile_text_is_shown_as_text(browser: Any, tmp_path: Path) -> None:
    server = Server(hostile_recording(tmp_path))
    try:
        browser.get(f"{server.url}/?autostart")
        path, _ = watch_until_prompt(browser)
        assert path == "src/<script>window.__pwned=1</script>[U+202E]gnp.exe"
        question = browser.find_element("css selector", ".approval .question").text
        assert "<script>" in question and "\u202e" not in question and "[U+202E]" in question
        approve_until_done(browser)
        content = param(browser, "content")
        assert content is not None and content[0] == (HOSTILE_CONTENT * 20).replace("\u2066", "[U+2066]")
        assert browser.find_element("css selector", ".text").text == HOSTILE_TEXT
        assert browser.execute_script("return window.__pwned") is None
        conversation = browser.find_element("id", "conversation")
        for tag in ("script", "img", "b", "i"):
            assert conversation.find_elements("tag name", tag) == [], f"model text became a <{tag}> element"
        screenshot(browser, tmp_path, "hostile")
    finally:
        server.stop()

