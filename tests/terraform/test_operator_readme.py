"""terraform/README.md, the operator's runbook, keeps up with the module it documents."""

from __future__ import annotations

import re
from pathlib import Path

TERRAFORM = Path(__file__).resolve().parents[2] / "terraform"
README = (TERRAFORM / "README.md").read_text(encoding="utf-8")


def test_the_readme_names_every_alert_with_a_section_on_what_to_do() -> None:
    """The operator README names every alert and what to do about it."""
    monitoring = (TERRAFORM / "monitoring.tf").read_text(encoding="utf-8")
    alerts = re.findall(r'display_name = "(frontdoor: [^"]+)"', monitoring)

    assert len(alerts) == 4
    for alert in alerts:
        heading = re.search(rf'^### .*\("{re.escape(alert)}"\)\n(.*?)(?=^##)', README, re.M | re.S)
        assert heading, alert
        assert "**Do:**" in heading.group(1), alert


def test_the_tfvars_example_sets_every_variable() -> None:
    """The terraform.tfvars example has every variable of variables.tf."""
    declared = re.findall(
        r'^variable "(\w+)"', (TERRAFORM / "variables.tf").read_text(encoding="utf-8"), re.M
    )
    example = re.search(r"```hcl\n(.*?)```", README, re.S)

    assert example
    assert set(declared) <= set(re.findall(r"^(\w+)\s*=", example.group(1), re.M))


def test_every_secret_the_readme_reads_is_one_terraform_creates() -> None:
    """The runbook's `--secret=` names are the secret ids secrets.tf creates."""
    secrets_tf = (TERRAFORM / "secrets.tf").read_text(encoding="utf-8")
    names = re.search(r"secret_names = toset\(\[(.*?)\]\)", secrets_tf)
    assert names
    created = {
        "frontdoor-" + n.strip().strip('"').lower().replace("_", "-")
        for n in names.group(1).split(",")
    }

    assert set(re.findall(r"--secret=(frontdoor-[a-z-]+)", README)) <= created
