"""`sepia submit RUN.xml... --server URL`: send runs to a campaign's web tool with a personal token.

The endpoint is `POST /api/runs` with the file as the body, `Authorization: Bearer TOKEN` and the
file's name in `X-Filename`; it answers 201 with a receipt, or 422 with the problems (docs/web.md)."""
from __future__ import annotations

import hashlib
import json
import urllib.error
import urllib.request
from pathlib import Path

import click


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, dir_okay=False))
@click.option("--server", required=True, envvar="SEPIA_SERVER", help="The web tool's address (or SEPIA_SERVER).")
@click.option("--token", envvar="SEPIA_TOKEN", required=True,
              help="Your personal token from your account page (better: SEPIA_TOKEN, kept out of the shell history).")
@click.option("--timeout", default=300, show_default=True, help="Seconds to wait for each answer.")
def submit(files, server: str, token: str, timeout: int) -> None:
    """Submit run files; print a receipt for each, or its problems as PATH:LINE:COLUMN. Exit 1 when
    any run was not accepted."""
    refused = 0
    for path in files:
        data = Path(path).read_bytes()
        status, answer = _post(server.rstrip("/") + "/api/runs", data, Path(path).name, token, timeout)
        if status == 201:
            receipt = answer["receipt"]
            local = hashlib.sha256(data).hexdigest()
            check = "matches" if receipt["sha256"] == local else f"DIFFERS from the local {local}"
            click.echo(f"{path}: {'replaced' if receipt['replaced'] else 'accepted'} {receipt['task']} run "
                       f"{receipt['run_id']} at {receipt['submitted_at']}; {receipt['topics']} topics; "
                       f"SHA-256 {receipt['sha256']} ({check})")
            for warning in receipt.get("warnings", []):
                click.echo(_at(path, warning), err=True)
            continue
        refused += 1
        said = answer.get("problems") or ([answer["error"]] if answer.get("error") else [])
        for problem in said or [f"the server answered {status}"]:
            click.echo(_at(path, problem))
    raise SystemExit(1 if refused else 0)


def _at(path, said: str) -> str:
    """PATH:LINE:COLUMN: message for a place in the file, PATH: sentence for the whole file."""
    return f"{path}:{said}" if said[:1].isdigit() else f"{path}: {said}"


def _post(url: str, data: bytes, filename: str, token: str, timeout: int) -> tuple[int, dict]:
    request = urllib.request.Request(url, data=data, method="POST", headers={
        "Authorization": f"Bearer {token}", "Content-Type": "application/xml",
        "X-Filename": filename.encode("ascii", "replace").decode(), "Accept": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        try:
            return error.code, json.load(error)
        except ValueError:
            return error.code, {"problems": [f"the server answered {error.code} {error.reason}"]}
    except (urllib.error.URLError, OSError) as error:
        raise click.ClickException(f"cannot reach {url}: {getattr(error, 'reason', error)}") from None
