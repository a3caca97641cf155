"""Sign-in and consent for the built-in authorization server: plain HTML forms, no JavaScript.

/authorize (api.oauth.authorize_endpoint) sends the person here with a pending authorization id:
email → a six-digit one-time code sent through the Mailer → consent naming the client and
its redirect host → back to the client's redirect_uri with `code`, `state` and `iss`. Every
step reads and writes the OAuthStore, so any process can serve it. POSTs are CSRF-checked
(a double-submit cookie whose hash sits on the pending authorization).
"""

from __future__ import annotations

import hmac
import html
import logging
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, replace
from urllib.parse import urlsplit

from email_validator import EmailNotValidError, validate_email
from mcp.server.auth.provider import AuthorizationParams, construct_redirect_uri
from starlette.datastructures import FormData
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from api.oauth.address_limits import AddressLimit, AddressRateLimit, address_key
from api.oauth.config import sha256_hex
from api.oauth.paths import CODE_PATH, CONSENT_PATH, SIGNIN_PATH
from api.oauth.provider import BuiltinOAuthProvider
from backends.ports import Mailer, PendingAuthorization
from domain.staff import STAFF_TOOLSETS, granted_scopes

logger = logging.getLogger(__name__)

COOKIE = "fd_signin"
_CSRF_TOKEN = re.compile(r"[A-Za-z0-9_-]{32}")  # secrets.token_urlsafe(24), as the cookie holds it
NO_STORE = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
}
CSP = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
DEFAULT_PALETTE = {
    "paper": "#ffffff",
    "ink": "#111111",
    "surface": "#f5f5f5",
    "line": "#dddddd",
    "muted": "#666666",
    "accent": "#aa3333",
    "accent-ink": "#ffffff",
    "danger": "#aa0000",
}
_CSS = """
:root{{color-scheme:light}}
body{{margin:0;background:{paper};color:{ink};font:1rem/1.5 {font}}}
main{{max-width:28rem;margin:4rem auto;padding:2rem;background:{surface};
  border:1px solid {line};border-radius:.75rem}}
.brand{{font-weight:700;color:{accent};margin:0 0 1rem}}
h1{{font-size:1.5rem;line-height:1.25;margin:.25rem 0 1rem}}
label{{display:block;font-weight:600;margin:1rem 0 .25rem}}
input{{width:100%;box-sizing:border-box;font:inherit;padding:.625rem .75rem;
  border:1px solid {muted};border-radius:.5rem;background:#fff}}
input:focus,button:focus{{outline:3px solid {accent};outline-offset:2px}}
button{{font:inherit;font-weight:600;margin-top:1rem;padding:.625rem 1.25rem;
  border-radius:.5rem;border:1px solid {accent};background:{accent};color:{accent-ink};
  cursor:pointer}}
button.secondary{{background:transparent;color:{ink};border-color:{muted}}}
.actions{{display:flex;gap:.75rem}}
.error{{color:{danger};font-weight:600;margin:.25rem 0}}
.muted,.muted a{{color:{muted}}}
fieldset{{border:1px solid {line};border-radius:.5rem;margin:1rem 0;padding:.5rem 1rem}}
legend{{font-weight:600;padding:0 .25rem}}
label.toolset{{display:flex;gap:.5rem;align-items:flex-start;font-weight:400;margin:.5rem 0}}
label.toolset input{{width:auto;margin-top:.3rem}}
"""
SCOPE_TEXT = {
    "openid": "Know that it is you (sign-in)",
    "email": "See your email address",
    "profile": "See your basic profile",
}


@dataclass(frozen=True)
class Brand:
    """What the pages need of the brand: the company name and a few palette colours."""

    name: str
    palette: Mapping[str, str]
    font_stack: str


def create_signin_routes(
    provider: BuiltinOAuthProvider,
    mailer: Mailer,
    brand: Brand,
    *,
    request_limit: AddressLimit | None = None,
) -> list[Route]:
    """The three steps as Starlette routes at their root paths; with `request_limit`, each
    counted per client address."""
    pages = _Pages(provider, mailer, brand)
    hops = provider.config.forwarded_for_hops
    limited = (
        [Middleware(AddressRateLimit, limit=request_limit, forwarded_for_hops=hops)]
        if request_limit is not None
        else None
    )
    return [
        Route(SIGNIN_PATH, pages.signin, methods=["GET", "POST"], middleware=limited),
        Route(CODE_PATH, pages.code, methods=["GET", "POST"], middleware=limited),
        Route(CONSENT_PATH, pages.consent, methods=["GET", "POST"], middleware=limited),
    ]


class _Pages:
    def __init__(self, provider: BuiltinOAuthProvider, mailer: Mailer, brand: Brand) -> None:
        self.provider = provider
        self.store = provider.store
        self.config = provider.config
        self.mailer = mailer
        self.brand = brand

    # --- step 1: email ---------------------------------------------------------------

    async def signin(self, request: Request) -> Response:
        found = await self._pending(request)
        if isinstance(found, Response):
            return found
        pending, form = found
        if request.method == "GET":
            # One token per browser, kept when another sign-in opens in it (a person connecting
            # two apps at once): a new one would leave the first page's form refused as forged.
            kept = request.cookies.get(COOKIE, "")
            csrf = kept if _CSRF_TOKEN.fullmatch(kept) else secrets.token_urlsafe(24)
            await self.provider.io(
                self.store.save_pending, replace(pending, csrf_hash=sha256_hex(csrf))
            )
            response = self._email_form(pending, csrf, error=None)
            secure = self.config.issuer.startswith("https://")
            response.set_cookie(
                COOKIE, csrf, httponly=True, samesite="lax", secure=secure, path="/oauth"
            )
            return response
        csrf = str(form.get("csrf", ""))
        try:
            email = validate_email(
                str(form.get("email", "")), check_deliverability=False
            ).normalized
        except EmailNotValidError:
            return self._email_form(
                pending, csrf, error="Enter an email address like name@example.com.", status=400
            )
        refusal = await self._code_allowance(request, pending, email)
        if refusal is not None:
            return self._message("Too many sign-in codes", refusal, 429)
        code = f"{secrets.randbelow(10**6):06d}"
        pending = replace(pending, email=email, otp_hash=sha256_hex(f"{pending.tx_id}:{code}"))
        await self.provider.io(self.store.save_pending, pending)
        await self.provider.io(
            self.mailer.send,
            to=email,
            subject=f"Your {self.brand.name} sign-in code: {code}",
            text=(
                f"Your sign-in code is {code}\n\nIt works once, for the next "
                f"{int(self.config.signin_ttl.total_seconds() // 60)} minutes. If you did not "
                "try to connect an app, ignore this message."
            ),
        )
        return RedirectResponse(
            f"{CODE_PATH}?tx={pending.tx_id}", status_code=303, headers=NO_STORE
        )

    # --- step 2: one-time code -------------------------------------------------------

    async def code(self, request: Request) -> Response:
        found = await self._pending(request)
        if isinstance(found, Response):
            return found
        pending, form = found
        csrf = request.cookies.get(COOKIE, "")
        if pending.email is None or pending.otp_hash is None:
            return RedirectResponse(
                f"{SIGNIN_PATH}?tx={pending.tx_id}", status_code=303, headers=NO_STORE
            )
        if request.method == "GET":
            return self._code_form(pending, csrf, error=None)
        # Each try is counted atomically before the code is compared: guesses posted at once
        # all read the same sign-in, and a count kept on it let every one of them through.
        tries = await self.provider.io(
            self.store.count_hit,
            f"otp:{sha256_hex(pending.otp_hash)}",  # one count per code sent
            window_start=pending.expires_at - self.config.signin_ttl,
        )
        if tries > self.config.code_attempts:
            await self.provider.io(self.store.delete_pending, pending.tx_id)
            return self._message(
                "Too many attempts",
                "That code was entered wrongly too often. Go back to your app and connect again.",
                429,
            )
        entered = "".join(ch for ch in str(form.get("code", "")) if ch.isdigit())
        entered_hash = sha256_hex(f"{pending.tx_id}:{entered}")
        if not hmac.compare_digest(entered_hash.encode(), pending.otp_hash.encode()):
            left = self.config.code_attempts - tries
            words = "1 attempt" if left == 1 else f"{left} attempts"
            return self._code_form(
                pending, csrf, error=f"That code is not right. {words} left.", status=400
            )
        await self.provider.io(
            self.store.save_pending, replace(pending, subject=pending.email, otp_hash=None)
        )
        return RedirectResponse(
            f"{CONSENT_PATH}?tx={pending.tx_id}", status_code=303, headers=NO_STORE
        )

    # --- step 3: consent -------------------------------------------------------------

    async def consent(self, request: Request) -> Response:
        found = await self._pending(request)
        if isinstance(found, Response):
            return found
        pending, form = found
        if pending.subject is None:
            return RedirectResponse(
                f"{SIGNIN_PATH}?tx={pending.tx_id}", status_code=303, headers=NO_STORE
            )
        params = AuthorizationParams.model_validate_json(pending.request)
        client = await self.provider.get_client(pending.client_id)
        if client is None:
            return self._message(
                "Unknown app",
                "This app is no longer registered. Go back to it and connect again.",
                400,
            )
        staff = self.config.staff.has_email(pending.subject)
        if request.method == "GET":
            name = client.client_name or client.client_id
            return self._consent_form(
                pending, request.cookies.get(COOKIE, ""), name, params, staff=staff
            )
        await self.provider.io(self.store.delete_pending, pending.tx_id)
        if form.get("decision") != "allow":
            target = construct_redirect_uri(
                str(params.redirect_uri),
                error="access_denied",
                state=params.state,
                iss=self.config.issuer,
            )
            return RedirectResponse(target, status_code=303, headers=NO_STORE)
        kept = form.getlist("toolset") if isinstance(form, FormData) else []
        scopes = granted_scopes(
            params.scopes or self.config.scopes, staff=staff, kept=[str(k) for k in kept]
        )
        code, params = await self.provider.io(
            self.provider.issue_code, pending, subject=pending.subject, scopes=scopes
        )
        logger.info(
            "authorization granted",
            extra={"client_id": pending.client_id, "scopes": " ".join(scopes), "staff": staff},
        )
        target = construct_redirect_uri(
            str(params.redirect_uri), code=code, state=params.state, iss=self.config.issuer
        )
        return RedirectResponse(target, status_code=303, headers=NO_STORE)

    # --- shared ----------------------------------------------------------------------

    async def _pending(
        self, request: Request
    ) -> tuple[PendingAuthorization, Mapping[str, object]] | Response:
        form: Mapping[str, object] = {}
        if request.method == "POST":
            form = await request.form()
            tx_id = str(form.get("tx", ""))
        else:
            tx_id = request.query_params.get("tx", "")
        pending = await self.provider.io(self.store.get_pending, tx_id) if tx_id else None
        if pending is None or pending.expires_at <= self.provider.clock():
            return self._message(
                "This sign-in has expired", "Go back to your app and connect again.", 400
            )
        if request.method == "POST":
            sent, cookie = str(form.get("csrf", "")), request.cookies.get(COOKIE, "")
            # Bytes: compare_digest raises on a str that is not ASCII (any form or cookie).
            if not (
                sent
                and hmac.compare_digest(sent.encode(), cookie.encode())
                and hmac.compare_digest(sha256_hex(sent).encode(), pending.csrf_hash.encode())
            ):
                return self._message(
                    "Please try again",
                    "This form was not sent from the sign-in page. Reload it and try again.",
                    403,
                )
        return pending, form

    async def _code_allowance(
        self, request: Request, pending: PendingAuthorization, email: str
    ) -> str | None:
        """Why no code may be sent now, or None. Counted from the narrowest allowance out,
        stopping at the first one used up: the codes of one pending sign-in, of the client
        address, to this email from this address, then to this email in all. So requests one
        address keeps sending past its own allowances never count against the person's."""
        config = self.config
        address = address_key(request.scope, forwarded_for_hops=config.forwarded_for_hops)
        person = sha256_hex(email.lower())
        hour = self.provider.clock().replace(minute=0, second=0, microsecond=0)
        allowances = (
            (
                f"signin-tx:{sha256_hex(pending.tx_id)}",
                pending.expires_at - config.signin_ttl,
                config.codes_per_signin,
                "This sign-in has sent as many codes as it may. Go back to your app and "
                "connect again.",
            ),
            (
                f"signin-address:{address}",
                hour,
                config.codes_per_address,
                "Too many codes were asked for from your network. Try again in an hour.",
            ),
            (
                f"signin-pair:{person}:{address}",
                hour,
                config.codes_per_email_and_address,
                "Too many codes were sent to this address. Try again in an hour.",
            ),
            (
                f"signin:{person}",
                hour,
                config.codes_per_email,
                "Too many codes were sent to this address. Try again in an hour.",
            ),
        )
        for bucket, window, limit, refusal in allowances:
            hits = await self.provider.io(self.store.count_hit, bucket, window_start=window)
            if hits > limit:
                logger.info(
                    "sign-in code refused: %s allowance used up",
                    bucket.split(":", 1)[0],
                    extra={"client_hash": address},
                )
                return refusal
        return None

    def _email_form(
        self, pending: PendingAuthorization, csrf: str, *, error: str | None, status: int = 200
    ) -> HTMLResponse:
        body = f"""
<h1>Sign in to connect an app</h1>
<p>We will email you a six-digit code. No password needed.</p>
<form method="post" action="{SIGNIN_PATH}">
  {_hidden(pending, csrf)}
  <label for="email">Email address</label>
  {_error(error, "email-error")}
  <input id="email" name="email" type="email" autocomplete="email" required autofocus
         {_described(error, "email-error")} value="{html.escape(pending.email or "")}">
  <button type="submit">Email me a code</button>
</form>"""
        return self._page("Sign in", body, status)

    def _code_form(
        self, pending: PendingAuthorization, csrf: str, *, error: str | None, status: int = 200
    ) -> HTMLResponse:
        body = f"""
<h1>Enter your code</h1>
<p>We sent a six-digit code to <strong>{html.escape(pending.email or "")}</strong>.</p>
<form method="post" action="{CODE_PATH}">
  {_hidden(pending, csrf)}
  <label for="code">Six-digit code</label>
  {_error(error, "code-error")}
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code"
         pattern="[0-9]{{6}}" maxlength="6" required autofocus {_described(error, "code-error")}>
  <button type="submit">Continue</button>
</form>
<p class="muted">
  <a href="{SIGNIN_PATH}?tx={html.escape(pending.tx_id)}">Use another email address</a>
</p>"""
        return self._page("Enter your code", body, status)

    def _consent_form(
        self,
        pending: PendingAuthorization,
        csrf: str,
        client_name: str,
        params: AuthorizationParams,
        *,
        staff: bool,
    ) -> HTMLResponse:
        host = urlsplit(str(params.redirect_uri)).netloc
        requested = params.scopes or ()
        scopes = "".join(
            f"<li>{html.escape(SCOPE_TEXT[s])}</li>" for s in requested if s in SCOPE_TEXT
        )
        staff_asked = [s for s in requested if s in STAFF_TOOLSETS]
        body = f"""
<h1>Allow {html.escape(client_name)}?</h1>
<p><strong>{html.escape(client_name)}</strong> wants to use the
{html.escape(self.brand.name)} tools as <strong>{html.escape(pending.subject or "")}</strong>.
After you decide, you go back to <strong>{html.escape(host)}</strong>.</p>
<p>It will be able to:</p>
<ul>{scopes}<li>Read the company's public records (read-only)</li></ul>
<form method="post" action="{CONSENT_PATH}">
  {_hidden(pending, csrf)}
  {self._toolsets(staff_asked, staff=staff)}
  <div class="actions">
    <button type="submit" name="decision" value="allow">Allow</button>
    <button type="submit" name="decision" value="deny" class="secondary">Deny</button>
  </div>
</form>"""
        return self._page(f"Allow {client_name}?", body, 200)

    def _toolsets(self, asked: list[str], *, staff: bool) -> str:
        """The staff toolsets the app asked for: ticked boxes the person may untick, or, for
        someone who is not staff, a line saying the app gets the public tools only."""
        if not asked:
            return ""
        if not staff:
            return (
                '<p class="muted">It also asked for staff toolsets. Those are only for '
                f"{html.escape(self.brand.name)} staff, so it gets the public tools.</p>"
            )
        boxes = "".join(
            f'<label class="toolset"><input type="checkbox" name="toolset" '
            f'value="{html.escape(s)}" checked> {html.escape(STAFF_TOOLSETS[s])}</label>'
            for s in asked
        )
        return (
            "<fieldset><legend>As staff, it may also (untick any you do not want to "
            f"allow):</legend>{boxes}</fieldset>"
        )

    def _message(self, title: str, text: str, status: int) -> HTMLResponse:
        return self._page(title, f"<h1>{html.escape(title)}</h1><p>{html.escape(text)}</p>", status)

    def _page(self, title: str, body: str, status: int) -> HTMLResponse:
        css = _CSS.format_map(
            {**DEFAULT_PALETTE, **self.brand.palette, "font": self.brand.font_stack}
        )
        document = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{html.escape(title)} · {html.escape(self.brand.name)}</title>
<style>{css}</style></head>
<body><main><p class="brand">{html.escape(self.brand.name)}</p>{body}</main></body></html>"""
        headers = {
            **NO_STORE,
            "Content-Security-Policy": CSP,
        }
        return HTMLResponse(document, status_code=status, headers=headers)


def _hidden(pending: PendingAuthorization, csrf: str) -> str:
    return (
        f'<input type="hidden" name="tx" value="{html.escape(pending.tx_id)}">'
        f'<input type="hidden" name="csrf" value="{html.escape(csrf)}">'
    )


def _error(error: str | None, element_id: str) -> str:
    return (
        f'<p class="error" id="{element_id}" role="alert">{html.escape(error)}</p>' if error else ""
    )


def _described(error: str | None, element_id: str) -> str:
    return f'aria-describedby="{element_id}" aria-invalid="true"' if error else ""
