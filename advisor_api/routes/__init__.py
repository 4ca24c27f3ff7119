"""The service's routes, one :class:`fastapi.APIRouter` per area, included in this order
by :func:`advisor_api.app.create_app`:

* :mod:`~advisor_api.routes.health`: ``GET /v1/health``;
* :mod:`~advisor_api.routes.analysis`: ``POST /v1/analyse`` and ``/v1/analyse/stream``;
* :mod:`~advisor_api.routes.games`: ``/v1/games`` and a game's view, steps, moves,
  chance, undo, analysis, score, catalogue, deletion;
* :mod:`~advisor_api.routes.events`: ``GET /v1/games/{id}/events`` (Server-Sent Events);
* :mod:`~advisor_api.routes.review`: ``/v1/games/{id}/review`` (review jobs, their
  progress, results and positions);
* :mod:`~advisor_api.routes.catalogues`: ``/v1/catalogues``;
* :mod:`~advisor_api.routes.levels`: ``GET /v1/levels`` (the playing levels).

(The web page and ``/v1/catalogue``: :mod:`advisor_api.web`; ``/docs``:
:mod:`advisor_api.docs_pages`.) Routes reach what they share through the dependency
:data:`advisor_api.service.ServiceDep`.
"""
