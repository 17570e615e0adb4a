"""The analysis board in the browser: ``qwirkle-core serve`` (docs/board.md).

:mod:`qwirkle_core.web.sessions` holds the engine sessions of the pages (the standard
library only); :mod:`qwirkle_core.web.server` is the HTTP server, which needs the
``web`` extra (starlette and uvicorn).  ``import qwirkle_core`` imports neither.
The page itself (``static/``) is plain HTML, CSS and JavaScript: it asks the engine
for every rule, move and score, and implements none of them.
"""
