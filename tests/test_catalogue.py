"""The catalogue's own promises: dated sources, the figures its pages give, the `catalog` command.

The catalogue against EC2 DescribeInstanceTypes and the offerings as botocore and moto ship them
is `make drift` (tools/drift.py, tested in tests/test_drift.py), not a test: `make test` gives the
same answer on the same commit whatever AWS publishes next.
"""

from __future__ import annotations

import json

import pytest

from planner.commands import catalog
from planner.core.catalogue.instance_types import load
from planner.core.document import codec
from planner.core.document.catalogue_listing import CatalogueListing
from planner.core.render.json_report import dumps
from tests.conftest import run_cli

CAT = load()


def test_every_figure_has_a_dated_source():
    for s in CAT.sources.values():
        assert s.url and s.title and len(s.as_of) == 10
    for t in CAT.instance_types.values():
        assert t.source in CAT.sources
        assert set(t.field_sources.values()) <= set(CAT.sources)
        assert t.accelerator.source in CAT.sources
    for u in CAT.ultraserver_types.values():
        assert u.source in CAT.sources
        assert set(u.field_sources.values()) <= set(CAT.sources)


def test_p6e_gb200_follows_the_ultraserver_figures():
    """AWS News Blog (2025-07-09): the 72-GPU UltraServer has "up to 72 ... GPUs", 360 petaflops of FP8 and
    28.8 Tbps of EFAv4; it is 18 p6e-gb200.36xlarge, each of 4 GPUs, sold in us-east-1-dfw-2a."""
    x36, x72 = CAT.ultraserver_types["u-p6e-gb200x36"], CAT.ultraserver_types["u-p6e-gb200x72"]
    member = CAT.instance_types["p6e-gb200.36xlarge"]
    assert (x36.accelerators, x72.accelerators) == (36, 72)
    assert (
        x72.members * member.network_bandwidth_gbps == 28_800 and x36.members * member.network_bandwidth_gbps == 14_400
    )
    assert (x36.peak_pflops("fp8_dense"), x72.peak_pflops("fp8_dense")) == (180, 360)
    assert [z.zone for z in x72.local_zones] == ["us-east-1-dfw-2a"] and x72.local_zones[0].opt_in
    assert [u.name for u in CAT.ultraservers_of("p6e-gb200.36xlarge")] == ["u-p6e-gb200x36", "u-p6e-gb200x72"]
    assert member.network_cards is None and member.efa_cards == ()  # not published: the layout is not checked


def test_trn3_ultraservers_follow_the_neuron_page():
    """Neuron trn3-arch: "Gen1 UltraServers deliver 161 PetaFLOPS of dense MXFP8 compute ... and 9TB of HBM"
    (four servers x 16 Trainium3); "Gen2 UltraServers deliver 362 PetaFLOPS ... and 20TB of HBM" (36 x 4)."""
    g1, g2 = CAT.ultraserver_types["trn3-gen1"], CAT.ultraserver_types["trn3-gen2"]
    assert (g1.accelerators, g2.accelerators) == (64, 144)
    assert (round(g1.peak_pflops("fp8_dense")), round(g2.peak_pflops("fp8_dense"))) == (161, 362)
    assert (round(g1.accelerator_memory_gib / 1000), round(g2.accelerator_memory_gib / 1000)) == (9, 21)
    assert not g1.declarable and not g2.declarable  # botocore 1.44's EC2 InstanceType enum lists no trn3 type


def test_dense_and_sparse_are_kept_apart():
    trn2, h200 = CAT.accelerators["Trainium2"].peak_tflops, CAT.accelerators["H200"].peak_tflops
    # seed 001: "1.3 PFLOPS dense FP8" per Trainium2; seed 000's 3.96 PFLOPS per H200 is sparse
    assert trn2["fp8_dense"] == 1299 and h200["fp8_sparse"] == 3958 and h200["fp8_dense"] == 3958 / 2
    # seed: an UltraServer is 83.2 PFLOPS dense FP8 (64 chips x 1.3 PF)
    ultra = CAT.ultraserver_types["u-trn2x64"]
    assert round(ultra.peak_pflops("fp8_dense"), 1) == 83.1
    assert ultra.accelerators == 64 and ultra.member_instance_type == "trn2u.48xlarge"


def test_catalog_command_json_lists_types_sources_and_trainium3():
    res = run_cli("catalog", "--format", "json")
    assert res.code == 0
    import json

    data = json.loads(res.out)
    assert [t["instance_type"] for t in data["instance_types"]] == list(CAT.instance_types)
    ultra = {u["ultraserver_type"]: u for u in data["ultraserver_types"]}
    assert ultra["trn3-gen2"]["accelerator"] == "Trainium3" and not ultra["trn3-gen2"]["declarable"]
    assert ultra["u-p6e-gb200x72"]["local_zones"] == [
        {"zone": "us-east-1-dfw-2a", "region": "us-east-1", "opt_in_required": True}
    ]
    table = run_cli("catalog")
    assert (
        table.code == 0 and "trn2u.48xlarge" in table.out and "trn3-gen1" in table.out and "u-p6e-gb200x72" in table.out
    )


@pytest.mark.parametrize("every", [False, True], ids=["curated", "all"])
def test_catalog_json_is_the_listing_the_codec_writes_and_reads_back(every: bool) -> None:
    """`--format json` is the typed listing (`CatalogueListing`) as the codec writes it, with the report's JSON
    text writer; `codec.load` reads it back, every value checked, equal to what was written."""
    listing = catalog.listing(every)
    out = run_cli("catalog", *(["--all"] if every else []), "--format", "json").out
    assert out == dumps(codec.dump(listing))
    data = json.loads(out)
    assert ("generated_table_as_of" in data) is every  # left out for the curated types
    again = codec.load(CatalogueListing, data)
    assert again == listing and dumps(codec.dump(again)) == out
