"""The commands that describe the scenario file: `schema` and `presets`."""

from __future__ import annotations

import json

import click

from ssdtwin import _core


@click.command("schema")
def schema_command() -> None:
    """Print the JSON schema of the scenario file."""
    click.echo(json.dumps(json.loads(_core.schema()), indent=2))


@click.command("presets")
def presets_command() -> None:
    """List the built-in drive presets, one line each."""
    drives = dict(_core.presets())
    width = max(map(len, drives), default=0)
    for name, description in drives.items():
        click.echo(f"{name:<{width}}  {description}")
