"""The editor schema (`planner schema`, planner/data/schema/stack.schema.json).

It is generated from the parser's field tables; these tests keep the shipped copy equal
to a fresh one, check every stack the project ships against it, and compare schema and
parser on generated values field by field, so an editor never marks a stack red that
`planner plan` reads, nor passes a value the parser refuses (values written as strings
where a number is expected are the parser's to judge: see planner/core/input/json_schema.py).
"""

from __future__ import annotations

import copy
import glob
import json
import os

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.cli import main
from planner.core.input import json_schema as schema
from planner.core.input import stack_files as parse
from planner.core.reading.problems import InputError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STACK_FILES = sorted(
    glob.glob(os.path.join(ROOT, "stacks", "Pulumi.*.yaml"))
    + glob.glob(os.path.join(ROOT, "tests", "invalid_stacks", "Pulumi.*.yaml"))
)
VALIDATOR = jsonschema.Draft7Validator(schema.build())


def test_shipped_schema_is_the_generated_one():
    """Drift: regenerate with `planner schema > planner/data/schema/stack.schema.json`."""
    with open(schema.SHIPPED, encoding="utf-8") as f:
        assert f.read() == schema.render()


def test_schema_is_valid_draft7():
    jsonschema.Draft7Validator.check_schema(schema.build())


def test_schema_command_prints_the_shipped_file(capsys):
    assert main(["schema"]) == 0
    with open(schema.SHIPPED, encoding="utf-8") as f:
        assert capsys.readouterr().out == f.read()


def test_every_table_key_is_in_the_schema():
    defs = schema.build()["definitions"]
    for name, table in parse.SCHEMA.items():
        assert list(defs[name]["properties"]) == list(table.keys)
        assert defs[name].get("required", []) == list(table.required)


@pytest.mark.parametrize("path", STACK_FILES, ids=os.path.basename)
def test_shipped_stacks_validate(path):
    """Bundled and invalid-rule stacks all parse, so the schema accepts them."""
    with open(path, encoding="utf-8") as f:
        data = yaml.safe_load(f)
    errors = sorted(e.message for e in VALIDATOR.iter_errors(data))
    assert errors == []


def test_bundled_stacks_point_editors_at_the_schema():
    """The YAML language server reads its modeline from any comment line: the last one keeps line numbers."""
    for path in glob.glob(os.path.join(ROOT, "stacks", "Pulumi.*.yaml")):
        with open(path, encoding="utf-8") as f:
            last = f.read().splitlines()[-1]
        assert last.startswith("# yaml-language-server: $schema=")
        target = last.split("$schema=", 1)[1].strip()
        assert os.path.samefile(os.path.join(os.path.dirname(path), target), schema.SHIPPED)


def test_pulumi_yaml_declares_the_cluster_config():
    with open(os.path.join(ROOT, "Pulumi.yaml"), encoding="utf-8") as f:
        project = yaml.safe_load(f)
    decl = project["config"][parse.CLUSTER_KEY]
    assert decl["type"] == "object" and decl["description"]


def test_schema_rejects_what_the_parser_rejects_structurally():
    base = _base()
    bad = copy.deepcopy(base)
    bad["config"]["planner:cluster"]["node_groups"][0]["cuont"] = 2
    assert list(VALIDATOR.iter_errors(bad))
    both = copy.deepcopy(base)
    both["config"]["planner:cluster"]["node_groups"][0]["ultraservers"] = 1
    assert list(VALIDATOR.iter_errors(both))


def _base() -> dict:
    return {
        "config": {
            "aws:region": "us-east-2",
            "planner:cluster": {
                "availability_zone": "us-east-2b",
                "node_groups": [{"name": "g", "instance_type": "trn2.48xlarge", "count": 2}],
                "lustre": {
                    "deployment_type": "PERSISTENT_2",
                    "storage_capacity_gib": 1200,
                    "per_unit_storage_throughput": 125,
                },
                "schedule": {"hours": 10},
                "workload": {"parameters": 1e9, "tokens": 1e10, "mfu": 0.4},
                "budget": {"total_usd": 1000},
                "network": {"vpc_id": "vpc-0123456789abcdef0", "subnet_id": "subnet-0123456789abcdef0"},
                "suppress": [{"rule": "placement-group", "reason": "test"}],
            },
        }
    }


# where each table sits in _base()'s cluster
_SLOT = {
    "cluster": (),
    "node_group": ("node_groups", 0),
    "lustre": ("lustre",),
    "schedule": ("schedule",),
    "workload": ("workload",),
    "budget": ("budget",),
    "network": ("network",),
    "suppression": ("suppress", 0),
}
# keys whose acceptance also depends on other keys (the AZ must be in the region)
# (a workload's model is a preset or a readable file; its run's shape needs it, the batch a multiple of the
# sequence: tests/test_workload_model.py)
_CROSS = {"availability_zone", "model", "sequence_length", "global_batch_tokens"}
_FIELDS = [
    (t, k)
    for t, table in parse.SCHEMA.items()
    for k, f in table.fields.items()
    if f.kind not in ("mapping", "list") and k not in _CROSS
]

_VALUES = st.one_of(
    st.integers(-3, 2 * 10**9),
    st.floats(allow_nan=False, allow_infinity=False, width=32),
    st.booleans(),
    st.sampled_from(
        [
            "",
            " ",
            "abc",
            "cluster",
            "none",
            "on-demand",
            "spot",
            "fp8",
            "bf16",
            "SCRATCH_2",
            "true",
            "False",
            "1",
            "0.5",
            "-2",
            "70e9",
            "trn2.48xlarge",
            "cr-0123456789abcdef0",
            "vpc-0123456789abcdef0",
            "subnet-0123456789abcdef0",
            "s3://bucket/prefix",
            "g-1",
            "G",
        ]
    ),
    st.lists(st.integers(), max_size=1),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=1),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field=st.sampled_from(_FIELDS), value=_VALUES)
def test_schema_and_parser_agree_field_by_field(field, value):
    table, key = field
    doc = _base()
    target = doc["config"]["planner:cluster"]
    for part in _SLOT[table]:
        target = target[part]
    target[key] = value
    if table == "node_group" and key == "ultraservers":
        target.pop("count")
        target["instance_type"] = "trn2u.48xlarge"  # the only type sold as UltraServers
    try:
        parse.parse_stack(doc, {}, "Pulumi.x.yaml", "x")
        parsed = True
    except InputError:
        parsed = False
    valid = not list(VALIDATOR.iter_errors(json.loads(json.dumps(doc))))
    if parsed:
        assert valid, f"schema refuses {table}.{key}={value!r}, which planner reads"
    kind = parse.SCHEMA[table].fields[key].kind
    if valid and not (isinstance(value, str) and kind in ("positive_int", "positive_number")):
        assert parsed, f"schema accepts {table}.{key}={value!r}, which planner refuses"
