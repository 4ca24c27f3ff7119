"""The API documentation pages, ``/docs`` (Swagger UI) and ``/redoc`` (ReDoc), served
with their scripts and styles from this service: nothing is fetched from a CDN (FastAPI's
own pages load them from one), so the pages work offline and the browser talks to no
other site. The files are those of the ``fastapi-offline`` package (Swagger UI's
``swagger-ui-dist`` and ReDoc's standalone bundle), served at ``/docs-assets``.
"""

from __future__ import annotations

from pathlib import Path

import fastapi_offline
from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.staticfiles import StaticFiles
from starlette.responses import HTMLResponse

ASSETS = Path(fastapi_offline.__file__).with_name("static")
ASSETS_URL = "/docs-assets"
FAVICON_URL = "/static/favicon.svg"  # the web page's (advisor_api/static)
# The browser may load nothing from elsewhere either (ReDoc's sidebar would fetch its
# maker's logo from a CDN; with this it is not requested and not shown). Inline: the
# pages' own start-up script and the styles the two libraries set.
CSP = ("default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' "
       "'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; "
       "worker-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; "
       "base-uri 'none'; form-action 'self'")


def install(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Serve ``docs_url`` and ``redoc_url`` from local files. The app is created with
    ``docs_url=None, redoc_url=None`` (FastAPI's CDN pages off)."""
    assert app.docs_url is None and app.redoc_url is None, "FastAPI's own pages are on"
    app.mount(ASSETS_URL, StaticFiles(directory=ASSETS), name="docs-assets")

    def urls(request: Request) -> tuple[str, str]:
        root = str(request.scope.get("root_path", "")).rstrip("/")
        return root, f"{root}{app.openapi_url}"

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root, openapi = urls(request)
        page = get_swagger_ui_html(
            openapi_url=openapi, title=f"{app.title} - API docs",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{FAVICON_URL}",
            # no "valid" badge fetched from validator.swagger.io
            swagger_ui_parameters={**(app.swagger_ui_parameters or {}), "validatorUrl": None})
        page.headers["Content-Security-Policy"] = CSP
        return page

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root, openapi = urls(request)
        page = get_redoc_html(
            openapi_url=openapi, title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{FAVICON_URL}", with_google_fonts=False)
        page.headers["Content-Security-Policy"] = CSP
        return page
