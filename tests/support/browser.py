"""Driving the app in Debian's Chromium (Playwright with ``executablePath``; never ``playwright
install``): the browser, screenshots into test-artifacts/browser/, and waits that check what a
person sees (images that really loaded, text that is really shown)."""
from __future__ import annotations

import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from tests.support.require import missing

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"
CHROMIUM = os.environ.get("CINECAP_CHROMIUM", "/usr/bin/chromium")


@contextmanager
def chromium() -> Iterator[object]:
    """A headless Chromium (skipped where there is none, failed under CI)."""
    if not Path(CHROMIUM).exists():
        missing(f"no Chromium at {CHROMIUM} (apt-get install chromium; set CINECAP_CHROMIUM)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=[
            "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--no-first-run",
            "--autoplay-policy=no-user-gesture-required"])
        try:
            yield b
        finally:
            b.close()


_shared: dict[str, object] = {}
#: Contexts a module's tests share (:func:`kept_page`): the per-test cleanup leaves them open.
_kept: list[object] = []


def shared_chromium() -> object:
    """The Chromium that consecutive browser tests share (the ``browser`` fixture of
    tests/conftest.py): started by the first, stopped after the last of a run of them, since a
    live sync Playwright leaves its event loop set as the thread's running loop, which a test
    of asyncio code after it would trip over. Each test opens its own pages, each page in a
    fresh context (cookies, storage)."""
    if "browser" not in _shared:
        manager = chromium()
        _shared["browser"] = manager.__enter__()
        _shared["manager"] = manager
    return _shared["browser"]


def close_shared_chromium() -> None:
    manager = _shared.pop("manager", None)
    _shared.pop("browser", None)
    _kept.clear()
    if manager is not None:
        manager.__exit__(None, None, None)


def close_unkept(browser) -> None:
    """Close what a test left open, except the contexts of :func:`kept_page`."""
    for context in list(browser.contexts):
        if not any(context is k for k in _kept):
            context.close()


@contextmanager
def kept_page(viewport: dict, timeout_ms: float = 60_000) -> Iterator[object]:
    """One page for a module's tests (a module fixture): a page load costs ~4 s of Chromium's
    CPU and ~1 s of the app's (docs/performance.md, "The test suite"), so the tests that need
    no fresh page share one and each brings it to the state it starts from through the UI."""
    context = shared_chromium().new_context(viewport=viewport)
    _kept.append(context)
    page = context.new_page()
    page.set_default_timeout(timeout_ms)
    try:
        yield page
    finally:
        if any(context is k for k in _kept):  # not already gone with the shared Chromium
            _kept.remove(context)
            context.close()


def own_copy(clip: Path, dest: Path, n: int) -> Path:
    """``clip`` with a padding box of its own appended (an MP4 ``free`` box, which decoders
    skip): the same frames under another digest, so tests sharing a store each get a clip of
    their own (the store keeps one clip per content)."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    payload = f"cinecap-test-{n}".encode()
    dest.write_bytes(Path(clip).read_bytes() + (8 + len(payload)).to_bytes(4, "big") + b"free"
                     + payload)
    return dest


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    # A full-page screenshot of a long page is slow on a loaded machine; it checks nothing.
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True, timeout=180_000)


def loaded(page, selector: str) -> None:
    """Every image under ``selector`` arrived and decoded (a file the server refuses to serve
    leaves a broken image, which ``wait_for`` alone does not notice)."""
    first = page.locator(f"{selector} img").first
    first.wait_for()
    first.scroll_into_view_if_needed()
    # A refused file leaves a complete image of width 0; lazy images out of view are not complete.
    page.wait_for_function(
        """sel => { const imgs = [...document.querySelectorAll(sel + ' img')];
                    return imgs.length > 0 && imgs[0].complete && imgs[0].naturalWidth > 0
                           && imgs.every(i => !i.complete || i.naturalWidth > 0); }""",
        arg=selector, timeout=20_000)


def wait_text(page, selector: str, text: str, timeout: float | None = None) -> None:
    """Wait until the element's visible text contains ``text`` (Gradio tables keep hidden copies
    of their cells for measuring, so a plain locator on the text finds a hidden one first)."""
    page.wait_for_function("([sel, t]) => { const el = document.querySelector(sel);"
                           " return !!el && (el.innerText.includes(t) || [...el.querySelectorAll("
                           "'textarea, input')].some((x) => x.value.includes(t))); }",
                           arg=[selector, text], timeout=timeout)


def signed_in(page, url: str, name: str, password: str) -> None:
    """Sign in through the app's own sign-in page (``ui/signin.py``) and wait until the app's
    header names the user (the page goes back to the app after a sign-in)."""
    page.goto(url.rstrip("/") + "/sign-in")
    page.locator("#username").fill(name)
    page.locator("#password").fill(password)
    page.locator("#sign-in-submit").click()
    wait_text(page, "#who", f"Signed in as {name} ·")


def choose(page, elem: str, typed: str, then_click: str) -> None:
    """Type into the dropdown ``#elem`` as a person does and take the first match, then click
    ``then_click`` (a quiet part of the tab) so the list closes."""
    box = page.locator(f"#{elem} input")
    box.click()
    box.fill("")
    page.keyboard.type(typed)
    page.locator(f"#{elem} ul.option-list li.item").first.wait_for()
    page.keyboard.press("Enter")  # the first match is the active one
    page.locator(then_click).click()
