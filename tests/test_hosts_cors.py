"""Who may talk to the service from a browser (``advisor_api/guards.py``): the Host
header (400 ``bad-host``, against DNS rebinding), CORS (none by default,
``MOMBASA_CORS_ORIGINS``), cross-site state changes (403 ``cross-origin``); the warning of
``mombasa serve`` beyond localhost and its allowed hosts; the API docs pages with local
assets only."""

from __future__ import annotations

import doctest
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from advisor_api import guards
from advisor_api.cli import app as cli
from advisor_api.settings import LOCAL_HOSTS, Settings
from tests.test_api_helpers import client

EVIL = "http://evil.example"
GAME = {"seats": [{"kind": "human"}, {"kind": "human"}]}


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    """Test settings: the default hosts plus TestClient's "testserver", no CORS."""
    with client(tmp_path_factory.mktemp("guards"), workers=1) as c:
        yield c


@pytest.fixture(scope="module")
def cors_api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    with client(tmp_path_factory.mktemp("cors"), workers=1,
                cors_origins=("http://app.example:3000",)) as c:
        yield c


def _catalogue(api: TestClient) -> Any:
    return api.get("/v1/catalogues/default").json()


def _names(api: TestClient) -> set[str]:
    return {e["name"] for e in api.get("/v1/catalogues").json()["catalogues"]}


def test_guards_doctests() -> None:
    assert doctest.testmod(guards).failed == 0


# -- Host ---------------------------------------------------------------------------------

def test_a_request_naming_another_host_gets_400(api: TestClient) -> None:
    for host in ("evil.example", "evil.example:8000", "0.0.0.0:8000", "127.0.0.1.nip.io",
                 "localhost.evil.example", "[::2]:80", "testserver:abc", ""):
        r = api.get("/v1/health", headers={"host": host})
        assert r.status_code == 400, host
        body = r.json()
        assert body["error"] == "bad-host" and "MOMBASA_ALLOWED_HOSTS" in body["message"]
        assert "access-control-allow-origin" not in r.headers
    # nothing behind the check runs: not even a state change
    r = api.post("/v1/games", json=GAME, headers={"host": "evil.example"})
    assert r.status_code == 400 and r.json()["error"] == "bad-host"


def test_the_default_hosts_are_this_machine(tmp_path: Path) -> None:
    assert Settings().allowed_hosts == LOCAL_HOSTS == ("localhost", "127.0.0.1", "::1")
    with client(tmp_path, workers=1, allowed_hosts=LOCAL_HOSTS) as c:
        assert c.get("/v1/health").status_code == 400  # "testserver" is for tests only
        for base in ("http://localhost:8000", "http://127.0.0.1:8000", "http://[::1]:8000",
                     "http://127.0.0.1", "http://LOCALHOST:1"):
            r = c.get(f"{base}/v1/health")
            assert r.status_code == 200, (base, r.text)


def test_configured_hosts_and_wildcards(tmp_path: Path) -> None:
    with client(tmp_path, workers=1,
                allowed_hosts=("mombasa.lan", "*.example.org", "192.168.1.20")) as c:
        for host, status in (("mombasa.lan", 200), ("mombasa.lan:8000", 200),
                             ("api.example.org", 200), ("a.b.example.org:1", 200),
                             ("example.org", 400), ("192.168.1.20:8000", 200),
                             ("localhost", 400), ("evilexample.org", 400)):
            assert c.get("/v1/health", headers={"host": host}).status_code == status, host
    with client(tmp_path, workers=1, allowed_hosts=("*",)) as c:
        assert c.get("/v1/health", headers={"host": "anything.example"}).status_code == 200


def test_host_and_origin_settings_from_the_environment() -> None:
    s = Settings.from_env({"MOMBASA_ALLOWED_HOSTS": "Mombasa.lan, [::1],10.0.0.5",
                           "MOMBASA_CORS_ORIGINS": "http://app.example:3000/, https://x.org"})
    assert s.allowed_hosts == ("mombasa.lan", "::1", "10.0.0.5")
    assert s.cors_origins == ("http://app.example:3000", "https://x.org")
    assert Settings.from_env({}).cors_origins == ()
    for env, word in (({"MOMBASA_ALLOWED_HOSTS": "http://a.org"}, "MOMBASA_ALLOWED_HOSTS"),
                      ({"MOMBASA_ALLOWED_HOSTS": "a.org:80"}, "MOMBASA_ALLOWED_HOSTS"),
                      ({"MOMBASA_CORS_ORIGINS": "app.example"}, "MOMBASA_CORS_ORIGINS"),
                      ({"MOMBASA_CORS_ORIGINS": "http://a.org/page"}, "MOMBASA_CORS_ORIGINS")):
        with pytest.raises(ValueError, match=word):
            Settings.from_env(env)


# -- CORS ---------------------------------------------------------------------------------

def test_no_cors_headers_by_default(api: TestClient) -> None:
    for origin in (EVIL, "http://testserver", "null"):
        r = api.get("/v1/health", headers={"origin": origin})
        assert r.status_code == 200
        assert not [k for k in r.headers if k.lower().startswith("access-control-")]
    pre = api.options("/v1/games", headers={"origin": EVIL,
                                            "access-control-request-method": "POST",
                                            "access-control-request-headers": "content-type"})
    assert pre.status_code >= 400  # no preflight answer: the browser sends nothing
    assert "access-control-allow-origin" not in pre.headers


def test_a_configured_origin_gets_cors_headers(cors_api: TestClient) -> None:
    app_origin = "http://app.example:3000"
    r = cors_api.get("/v1/health", headers={"origin": app_origin})
    assert r.status_code == 200
    assert r.headers["access-control-allow-origin"] == app_origin
    assert "retry-after" in r.headers["access-control-expose-headers"].lower()
    pre = cors_api.options("/v1/games", headers={
        "origin": app_origin, "access-control-request-method": "POST",
        "access-control-request-headers": "content-type"})
    assert pre.status_code == 200, pre.text
    assert pre.headers["access-control-allow-origin"] == app_origin
    assert "POST" in pre.headers["access-control-allow-methods"]
    assert "content-type" in pre.headers["access-control-allow-headers"].lower()
    created = cors_api.post("/v1/games", json=GAME, headers={"origin": app_origin})
    assert created.status_code == 201, created.text
    assert created.headers["access-control-allow-origin"] == app_origin
    # another origin: no CORS headers, and it may not change anything
    r = cors_api.get("/v1/health", headers={"origin": EVIL})
    assert "access-control-allow-origin" not in r.headers
    pre = cors_api.options("/v1/games", headers={"origin": EVIL,
                                                 "access-control-request-method": "POST"})
    assert "access-control-allow-origin" not in pre.headers
    assert cors_api.post("/v1/games", json=GAME, headers={"origin": EVIL}).status_code == 403


# -- cross-site state changes ------------------------------------------------------------

def test_a_cross_site_post_is_refused_and_changes_nothing(api: TestClient) -> None:
    body = {"name": "from-evil", "catalogue": _catalogue(api)}
    for origin in (EVIL, "null", "http://testserver:3000", "https://testserver.evil.example",
                   "http://127.0.0.1"):
        r = api.post("/v1/catalogues", json=body, headers={"origin": origin})
        assert r.status_code == 403, (origin, r.text)
        assert r.json()["error"] == "cross-origin" and "nothing was changed" in \
            r.json()["message"] and "MOMBASA_CORS_ORIGINS" in r.json()["message"]
        assert "access-control-allow-origin" not in r.headers
    assert "from-evil" not in _names(api)
    # a form post (a "simple" request CORS would not stop) is refused the same way
    r = api.post("/v1/games", content=b"seats=1",
                 headers={"origin": EVIL, "content-type": "application/x-www-form-urlencoded"})
    assert r.status_code == 403 and r.json()["error"] == "cross-origin"
    # deleting is a state change too
    saved = api.post("/v1/catalogues", json={"name": "kept", "catalogue": _catalogue(api)})
    assert saved.status_code == 201, saved.text
    r = api.delete("/v1/catalogues/kept", headers={"origin": EVIL})
    assert r.status_code == 403 and "kept" in _names(api)
    # reading is not: a cross-site GET gets its answer (but, without CORS, the page of
    # the other site cannot read it)
    assert api.get("/v1/catalogues", headers={"origin": EVIL}).status_code == 200


def test_same_origin_and_originless_posts_are_fine(api: TestClient) -> None:
    for headers in ({"origin": "http://testserver"}, {"origin": "https://testserver"},
                    {"origin": "HTTP://TESTSERVER:80"}, {}):
        r = api.post("/v1/games", json=GAME, headers=headers)
        assert r.status_code == 201, (headers, r.text)
    r = api.post("http://localhost:8000/v1/games", json=GAME,
                 headers={"origin": "http://localhost:8000"})
    assert r.status_code == 201, r.text
    r = api.post("http://localhost:8000/v1/games", json=GAME,
                 headers={"origin": "http://localhost:8001"})
    assert r.status_code == 403
    r = api.post("http://[::1]:8000/v1/games", json=GAME,
                 headers={"origin": "http://[::1]:8000"})
    assert r.status_code == 201, r.text


# -- mombasa serve ------------------------------------------------------------------------

@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """``uvicorn.run`` replaced: what serve would run, without running it."""
    import uvicorn

    seen: dict[str, Any] = {}

    def run(app: Any, **kwargs: Any) -> None:
        seen["app"] = app
        seen.update(kwargs)

    monkeypatch.setattr(uvicorn, "run", run)
    for var in ("MOMBASA_ALLOWED_HOSTS", "MOMBASA_CORS_ORIGINS", "MOMBASA_DB"):
        monkeypatch.delenv(var, raising=False)
    return seen


def _serve(tmp_path: Path, *args: str) -> tuple[str, Any]:
    r = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "g.db"), *args])
    assert r.exit_code == 0, r.output
    return " ".join(r.stderr.split()), r


def _allowed(seen: dict[str, Any]) -> tuple[str, ...]:
    hosts: tuple[str, ...] = seen["app"].state.service.settings.allowed_hosts
    return hosts


def test_serve_warns_beyond_localhost(tmp_path: Path, served: dict[str, Any]) -> None:
    err, _ = _serve(tmp_path, "--host", "0.0.0.0", "--port", "8123")
    assert served["host"] == "0.0.0.0" and served["port"] == 8123
    assert "WARNING: listening on 0.0.0.0:8123" in err
    assert "no user accounts" in err and "anyone who can reach this port" in err
    assert "use the CPU" in err and "--allow-host" in err
    # the wildcard address is never an allowed Host: only this machine's names
    assert _allowed(served) == LOCAL_HOSTS


def test_serve_allows_a_host_only_when_asked(tmp_path: Path, served: dict[str, Any],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    err, _ = _serve(tmp_path, "--host", "192.168.1.20")
    assert "WARNING" in err and _allowed(served) == LOCAL_HOSTS
    err, _ = _serve(tmp_path, "--host", "0.0.0.0", "--allow-host", "192.168.1.20",
                    "--allow-host", "mombasa.lan")
    assert "WARNING" in err
    assert _allowed(served) == (*LOCAL_HOSTS, "192.168.1.20", "mombasa.lan")
    assert "192.168.1.20, mombasa.lan" in err
    monkeypatch.setenv("MOMBASA_ALLOWED_HOSTS", "box.lan")
    err, _ = _serve(tmp_path, "--host", "0.0.0.0")
    assert _allowed(served) == ("box.lan",) and "box.lan" in err
    monkeypatch.setenv("MOMBASA_ALLOWED_HOSTS", "*")
    err, _ = _serve(tmp_path, "--host", "0.0.0.0")
    assert "DNS rebinding" in err and "MOMBASA_ALLOWED_HOSTS=*" in err
    err, _ = _serve(tmp_path)
    assert "DNS rebinding" in err  # even on localhost


def test_serve_on_loopback_is_quiet(tmp_path: Path, served: dict[str, Any]) -> None:
    err, _ = _serve(tmp_path)
    assert "WARNING" not in err and "Mombasa advisor on http://127.0.0.1:8000" in err
    assert served["host"] == "127.0.0.1" and _allowed(served) == LOCAL_HOSTS
    err, _ = _serve(tmp_path, "--host", "127.0.0.2")
    assert "WARNING" not in err and _allowed(served) == (*LOCAL_HOSTS, "127.0.0.2")
    err, _ = _serve(tmp_path, "--host", "::1")
    assert "WARNING" not in err and "http://[::1]:8000" in err


def test_serve_refuses_a_bad_allowed_host(tmp_path: Path, served: dict[str, Any]) -> None:
    r = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "g.db"),
                                 "--allow-host", "http://x.lan"])
    out = " ".join(r.output.replace("\u2502", " ").split())
    assert r.exit_code == 2 and "'http://x.lan' is not a host name" in out
    assert "app" not in served


def test_serve_names_the_installation_search_settings(tmp_path: Path, served: dict[str, Any],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """MOMBASA_SEARCH (e.g. the drive off for an owner's catalogue) is said at the start;
    a bad one stops the start with the variable and the setting named."""
    monkeypatch.setenv("MOMBASA_SEARCH", "drive=0")
    err, _ = _serve(tmp_path)
    assert "Search settings (MOMBASA_SEARCH): drive=0" in err
    served.clear()
    monkeypatch.setenv("MOMBASA_SEARCH", "drive=-2")
    r = CliRunner().invoke(cli, ["serve", "--db", str(tmp_path / "g.db")])
    out = " ".join(r.output.replace("\u2502", " ").split())
    assert r.exit_code == 2 and "MOMBASA_SEARCH: drive: expected a finite number" in out
    assert "app" not in served
    monkeypatch.delenv("MOMBASA_SEARCH")
    err, _ = _serve(tmp_path)
    assert "Search settings" not in err


# -- the API docs pages ---------------------------------------------------------------------

@pytest.mark.parametrize("page", ["/docs", "/redoc"])
def test_docs_pages_use_local_assets(api: TestClient, page: str) -> None:
    r = api.get(page)
    assert r.status_code == 200 and "text/html" in r.headers["content-type"]
    assert not re.search(r"(https?:)?//[a-z0-9]", r.text, re.I), "an external URL"
    assets = re.findall(r"""(?:src|href)=["']([^"']+)["']""", r.text)
    assert len(assets) >= (3 if page == "/docs" else 2)
    for url in assets:
        assert url.startswith("/"), url
        got = api.get(url)
        assert got.status_code == 200 and len(got.content) > 100, url
    assert api.get("/openapi.json").status_code == 200
    assert "fonts.googleapis" not in r.text and "cdn" not in r.text.lower()
    # nor may the scripts fetch anything from elsewhere (ReDoc's sidebar logo would)
    csp = r.headers["content-security-policy"]
    assert "default-src 'self'" in csp and "img-src 'self' data:;" in csp
    assert "http" not in csp and "*" not in csp
