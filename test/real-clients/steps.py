"""Step runner shared by the python-gitlab scripts: each step's result, warnings and timing
land in one JSON document, and an exception is reported instead of ending the run."""
import json
import time
import traceback
import warnings

import gitlab.exceptions


def make_step(results, exchanges=None):
    """Returns a decorator that runs a step at once and records it under `name`."""

    def step(name):
        def wrap(fn):
            t0 = time.perf_counter()
            first = len(exchanges) if exchanges is not None else 0
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                # Unclosed-socket notices from garbage-collected sessions say nothing about the server.
                warnings.simplefilter("ignore", ResourceWarning)
                try:
                    out = fn()
                except Exception as e:  # report, keep going
                    out = {
                        "error": {
                            "type": type(e).__name__,
                            "message": str(e),
                            "response_code": getattr(e, "response_code", None),
                            "trace": traceback.format_exc(limit=4),
                        }
                    }
            out["warnings"] = [f"{w.category.__name__}: {w.message}" for w in caught]
            if exchanges is not None:
                out["exchanges"] = exchanges[first:]
            out["ms"] = round((time.perf_counter() - t0) * 1000)
            results[name] = out
            return fn

        return wrap

    return step


def error_of(fn):
    """None when fn() succeeds, else how python-gitlab reported the refusal."""
    try:
        fn()
    except gitlab.exceptions.GitlabError as e:
        return {"type": type(e).__name__, "response_code": e.response_code, "error_message": e.error_message}
    return None


def exchange_recorder(exchanges):
    """A requests response hook appending [method, path (from /api/v4), status, JSON body or None]."""

    def record(response, *args, **kwargs):
        request = response.request
        path = request.path_url
        if path.startswith("/api/v4"):
            path = path[len("/api/v4"):]
        body = json.loads(request.body) if request.body else None
        exchanges.append([request.method, path, response.status_code, body])

    return record
