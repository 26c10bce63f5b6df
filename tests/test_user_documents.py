"""The documents a new user looks for exist and say what they must: the changelog and its stability
policy, the security policy, and README's install-from-the-repository, uninstall, platform and
jargon paragraphs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from agent_hooks_core.bridges import registry

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def section(text: str, heading: str) -> str:
    m = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL)
    assert m, f"no '## {heading}' section"
    return m.group(1)


def test_changelog_keeps_a_changelog_and_states_what_is_public_api() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert text.startswith("# Changelog\n")
    assert "## [Unreleased]" in text
    for heading in re.findall(r"^### (.+)$", text, flags=re.MULTILINE):
        assert heading in ("Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"), heading
    policy = section(text, "Versioning and stability")
    for public in ("hookspecs", "payload and result models", "settings keys", "command line", "exit"):
        assert public in policy, public


def test_security_policy_says_how_to_report_and_what_is_not_promised() -> None:
    text = (ROOT / "SECURITY.md").read_text(encoding="utf-8")
    assert "## Reporting a vulnerability" in text and "not in a public issue" in text
    for words in ("hostile agent", "hostile repository", "What it does not promise", "not a sandbox"):
        assert words in text, words


def test_readme_installs_from_the_repository_wherever_it_names_a_package() -> None:
    install = section(README, "Install")
    assert "not on PyPI yet" in install and "pip install . ./plugins/guard ./plugins/audit" in install
    outside = README.replace(install, "")
    assert not re.search(r"pip install [^`\n]*agent-hooks-", outside), "pip install agent-hooks-… outside ## Install"


def test_readme_quickstart_is_two_commands() -> None:
    blocks = re.findall(r"```bash\n(.*?)```", section(README, "Quickstart"), flags=re.DOTALL)
    assert [len(b.strip().splitlines()) for b in blocks] == [1, 1]


@pytest.mark.parametrize("host", [h.name for h in registry.first_party()])
def test_readme_uninstall_covers_every_host(host: str) -> None:
    text = section(README, "Uninstall")
    assert f"uninstall {host}" in text or re.search(rf"likewise [^\n]*\b{re.escape(host)}\b", text), host
    assert "serve stop" in text and "audit.db" in text


def test_readme_explains_its_jargon_where_it_first_appears() -> None:
    paragraphs = README.split("\n\n")
    for word, explained in (("chibi", "chibi is a"), ("omp", "`omp` for"), ("seed", "*seeds*: the specifications")):
        first = next(p for p in paragraphs if re.search(rf"\b{word}", p))
        assert explained in first, f"{word!r} is first used without being explained:\n{first}"


def test_readme_states_the_supported_platforms() -> None:
    text = section(README, "Supported platforms")
    assert "3.10" in text and "Linux" in text and "macOS" in text and "Windows" in text
