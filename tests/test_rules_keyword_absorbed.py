"""DRIFT152: `serve_http(app, engine=..., host=...)` where the baseline's `serve_http` declared
`engine` and the target's takes it only through `**uvicorn_kwargs`, which it hands whole to
`uvicorn.Config` (a callable drift cannot read): risky at the keyword. Silent when the target's
body takes the key out by name first, and for the keywords still declared."""

from __future__ import annotations

from tests.rule_cases import Case, findings_of, line_of

BEFORE = {"gizmo/launcher.py": """
    import uvicorn


    async def serve_http(app, engine=None, **uvicorn_kwargs):
        config = uvicorn.Config(app, **uvicorn_kwargs)
        return engine, config
    """}
AFTER = {"gizmo/launcher.py": """
    import uvicorn


    async def serve_http(app, host=None, **uvicorn_kwargs):
        config = uvicorn.Config(app, host=host, **uvicorn_kwargs)
        return config
    """}
CONSUMER = {"app/launch.py": """
    from gizmo.launcher import serve_http


    async def launch(app, engine):
        await serve_http(app,
                         engine=engine,
                         host="0.0.0.0")
    """}


def test_a_declared_keyword_now_taken_by_kwargs_is_risky_where_it_is_written(tmp_path):
    src = CONSUMER["app/launch.py"]
    found = [f for f in findings_of(tmp_path, Case("absorbed", BEFORE, AFTER, CONSUMER)) if f.rule_id == "DRIFT152"]
    assert [(f.consumer_site.line, f.severity.value) for f in found] == [(line_of(src, "engine=engine"), "risky")]
    assert "handed whole to `uvicorn.Config`" in found[0].title


def test_a_key_the_target_takes_out_by_name_is_read(tmp_path):
    after = {"gizmo/launcher.py": AFTER["gizmo/launcher.py"].replace(
        "        config = uvicorn.Config(", "        uvicorn_kwargs.pop('engine', None)\n        config = uvicorn.Config(")}
    found = [f for f in findings_of(tmp_path, Case("absorbed-popped", BEFORE, after, CONSUMER)) if f.rule_id == "DRIFT152"]
    assert found == []
