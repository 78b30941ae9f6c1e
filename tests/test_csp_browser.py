"""The Content-Security-Policy (no 'unsafe-inline') breaks none of the admin's pages.

A real Chromium opens each page and listens for what the browser reports when the policy
blocks something: the console message and the ``securitypolicyviolation`` event."""

from __future__ import annotations

import pytest

from cards.models import ConceptCard, SignCard

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LISTEN = """
window.__cspViolations = [];
document.addEventListener('securitypolicyviolation', (e) => {
  window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline')
                              + ' ' + (e.sourceFile || '') + ':' + e.lineNumber);
});
"""


def violations_on(page, url: str) -> list[str]:
    seen: list[str] = []

    def on_console(message) -> None:  # type: ignore[no-untyped-def]
        if "Content Security Policy" in message.text:
            seen.append(message.text)

    page.on("console", on_console)
    try:
        response = page.goto(url)
        assert response is not None and response.status == 200, (url, response and response.status)
        assert "'unsafe-inline'" not in response.headers["content-security-policy"]
        page.wait_for_load_state("networkidle")
        seen.extend(page.evaluate("window.__cspViolations"))
    finally:
        page.remove_listener("console", on_console)
    return seen


def test_the_admin_pages_break_no_rule_of_the_content_security_policy(live_server, curator_page):
    page = curator_page
    page.add_init_script(LISTEN)
    card = ConceptCard.objects.order_by("pk").first()
    sign = SignCard.objects.order_by("pk").first()
    assert card is not None and sign is not None
    base = f"{live_server.url}/admin"
    pages = [
        f"{base}/",
        f"{base}/cards/conceptcard/",
        f"{base}/cards/conceptcard/{card.pk}/change/",
        f"{base}/cards/conceptcard/add/",
        f"{base}/cards/conceptcard/{card.pk}/history/",
        f"{base}/cards/signcard/{sign.pk}/change/",
        f"{base}/cards/conceptcard/import/",
        f"{base}/cards/progress/",
        f"{base}/cards/translate/symbols/en/",
        f"{base}/cards/deleted/",
        f"{base}/exports/print/symbols/",
        f"{base}/exports/publish/",
        f"{base}/exports/publish/sauschwer/de/",
        f"{base}/password_change/",
    ]
    found = {url.removeprefix(base): violations_on(page, url) for url in pages}
    broken = {url: v for url, v in found.items() if v}
    assert broken == {}, "\n".join(f"{url}: {line}" for url, v in broken.items() for line in v)
    # The logged-out login page too.
    page.context.clear_cookies()
    assert violations_on(page, f"{base}/login/") == []


def test_a_blocked_inline_script_is_reported_by_the_listener(live_server, curator_page):
    """The listener above is not blind: an inline script that the policy blocks is seen."""
    page = curator_page
    page.add_init_script(LISTEN)
    page.goto(f"{live_server.url}/admin/")
    page.evaluate("""() => { const s = document.createElement('script');
        s.textContent = 'window.ran = 1'; document.body.appendChild(s); }""")
    page.wait_for_timeout(200)
    assert page.evaluate("window.ran") is None
    assert any("script-src" in v for v in page.evaluate("window.__cspViolations"))
