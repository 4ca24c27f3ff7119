"""``/v1/catalogues``: component catalogues checked, saved under a name, listed,
exported and forgotten (:class:`advisor_api.catalogues.CatalogueLibrary`)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Response

from advisor_api import catalogues, web
from advisor_api.cli_catalogue import summary as catalogue_summary
from advisor_api.schemas import (
    CatalogueCheck,
    CatalogueCheckRequest,
    CatalogueDeleted,
    CatalogueEntry,
    CatalogueList,
    SaveCatalogue,
    errors,
)
from advisor_api.service import ServiceDep

router = APIRouter(tags=["catalogues"])


@router.post("/v1/catalogues/check", response_model=CatalogueCheck,
             response_model_exclude_none=False, responses=errors(413, 422))
async def check_catalogue(req: CatalogueCheckRequest) -> dict[str, Any]:
    """Check a catalogue with the engine's loader (nothing is stored): ``ok``, the
    first fault by JSON path (``error``: ``{path, message}``), a summary of the
    components, and with ``page: true`` the catalogue as the web page draws it."""
    cat, error = catalogues.check(req.catalogue)
    if cat is None:
        return {"ok": False, "error": error, "summary": None, "page": None}
    return {"ok": True, "error": None, "summary": catalogue_summary(cat),
            "page": web.build_catalogue_json(cat) if req.page else None}


@router.post("/v1/catalogues", status_code=201, response_model=CatalogueEntry,
             responses={200: {"description": "replaced (replace: true)",
                              "model": CatalogueEntry}, **errors(409, 413, 422, 503)})
async def save_catalogue(req: SaveCatalogue, response: Response,
                         svc: ServiceDep) -> dict[str, Any]:
    """Save a catalogue under a name (201; 200 when ``replace`` replaced one): 422
    with the loader's path and message if it does not load (``field``:
    ``catalogue.<path>``), 409 if the name exists (unless ``replace``) or is the
    shipped catalogue's. Nothing is stored on error."""
    entry, created = await svc.store.off_loop(svc.catalogues.save, req.name,
                                              req.catalogue, req.replace)
    if not created:
        response.status_code = 200
    return entry


@router.get("/v1/catalogues", response_model=CatalogueList)
async def list_catalogues(svc: ServiceDep) -> dict[str, Any]:
    """Every catalogue a game can be created with: the shipped one ("default
    (reconstruction)") first, then the stored ones by name, each with a summary."""
    return {"catalogues": svc.catalogues.entries()}


@router.get("/v1/catalogues/{name}",
            responses={200: {"description": "the catalogue file (JSON)",
                             "content": {"application/json": {}}}, **errors(404)})
async def get_catalogue(name: str, svc: ServiceDep) -> Response:
    """A catalogue's JSON file, as stored (export; comments kept)."""
    return Response(svc.catalogues.text(name), media_type="application/json")


@router.delete("/v1/catalogues/{name}", response_model=CatalogueDeleted,
               responses=errors(404, 409, 503))
async def delete_catalogue(name: str, svc: ServiceDep) -> dict[str, Any]:
    """Forget a stored catalogue (409 for the shipped one). Games created with it keep
    its content and go on replaying with it."""
    return await svc.store.off_loop(svc.catalogues.delete, name)
