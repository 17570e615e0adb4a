"""The analysis board's server and a headless Chromium, for the browser tests and the
screenshot script (docs/board_screenshots.py).

The browser is the system's: Debian's ``chromium`` and ``chromium-driver`` (as
``.ci/test.sh`` installs them), driven by Selenium with both paths given, so that
Selenium never looks for or downloads a browser or driver of its own.
"""

from __future__ import annotations

import os
import re
import selectors
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BROWSERS = ("chromium", "chromium-browser", "google-chrome")
DRIVERS = ("chromedriver", "chromium-driver")


def missing() -> str | None:
    """Why the browser tests cannot run here (None: they can)."""
    for module in ("starlette", "uvicorn", "selenium"):
        try:
            __import__(module)
        except ImportError:
            return f"{module} is not installed (the web extra and the test extra)"
    if chromium() is None:
        return "no chromium on PATH (Debian: apt-get install chromium chromium-driver)"
    if chromedriver() is None:
        return "no chromedriver on PATH (Debian: apt-get install chromium-driver)"
    return None


def chromium() -> str | None:
    return next((path for path in map(shutil.which, BROWSERS) if path), None)


def chromedriver() -> str | None:
    return next((path for path in map(shutil.which, DRIVERS) if path), None)


class Server:
    """``qwirkle-core serve --port 0`` in a child process, at ``self.url``."""

    def __init__(self, *args: str, timeout: float = 60.0) -> None:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "qwirkle_core", "serve", "--port", "0", *args],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT,
        )
        assert self.process.stdout is not None
        with selectors.DefaultSelector() as chosen:
            chosen.register(self.process.stdout, selectors.EVENT_READ)
            if not chosen.select(timeout):
                self.close()
                raise RuntimeError(f"the server said nothing in {timeout:g} s")
        line = self.process.stdout.readline()
        found = re.search(r"http://\S+/", line)
        if not found:
            self.close()
            raise RuntimeError(f"the server did not start: {line!r}")
        self.url = found.group(0)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def browser(width: int = 1400, height: int = 900) -> Any:
    """A headless Chromium under Selenium (the caller quits it)."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium() or ""
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={width},{height}", "--hide-scrollbars", "--force-device-scale-factor=1"):
        options.add_argument(flag)
    # The page's Save buttons download a file: nowhere, here.
    options.add_experimental_option("prefs", {"download_restrictions": 3})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=chromedriver() or ""))
    driver.set_script_timeout(60)
    return driver


def open_board(driver: Any, url: str, timeout: float = 60.0) -> None:
    """Load the page and wait until it has its first game."""
    driver.get(url)
    wait_for(driver, "return document.body.dataset.ready === '1'", timeout)


def wait_for(driver: Any, script: str, timeout: float = 30.0) -> Any:
    """Run ``script`` until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    while True:
        value = driver.execute_script(script)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout:g} s for: {script}")
        time.sleep(0.02)


def settled(driver: Any, timeout: float = 30.0) -> None:
    """Wait until the page has no engine request running and has drawn its state."""
    wait_for(driver, "return !window.qwirkle.state.busy && window.qwirkle.idle()", timeout)
