"""Stack files in, typed model out, or every problem at once, one line each.

The schema is a contract (see README, "Stack schema"): later checks rely on its keys, so
they are extended, never renamed. A plain mapping (Pulumi config, a component's args) goes
through the same code as a file, so every entry point rejects the same input.
"""

from __future__ import annotations

import math
import os
import re
from typing import Any, Callable, Iterable

from planner import catalogue as _catalogue
from planner.errors import InputError, Problem
from planner.report.text import escape_char, first_control, one_line
from planner.model import (
    LUSTRE_DEPLOYMENTS,
    PLACEMENTS,
    PRECISIONS,
    PURCHASES,
    Budget,
    Cluster,
    Lustre,
    Network,
    NodeGroup,
    Path,
    Schedule,
    Stack,
    Suppression,
    Workload,
)
from planner.yamlload import Lines, line_of
from planner import yamlload

CLUSTER_KEY = "planner:cluster"
REGION_KEY = "aws:region"
CLUSTER_PATH: Path = ("config", CLUSTER_KEY)

# Every pattern is matched with `fullmatch`: `$` also matches before a trailing newline,
# so `re.match("^...$")` would accept "us-east-2\n".
_STACK_FILE = re.compile(r"Pulumi\.([A-Za-z0-9_.-]+)\.ya?ml")
_NAME = re.compile(r"[a-z0-9]([a-z0-9-]{0,30}[a-z0-9])?")
_REGION = re.compile(r"[a-z]{2}(-gov)?-[a-z]+-\d", re.ASCII)
_RESERVATION = re.compile(r"cr-[0-9a-f]{8,17}")
_VPC = re.compile(r"vpc-[0-9a-f]{8,17}")
_SUBNET = re.compile(r"subnet-[0-9a-f]{8,17}")
_NUMBER = re.compile(r"[+-]?(\d[\d_]*\.?\d*|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_S3_URL = re.compile(r"s3://[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](/.*)?")

# Lower bounds below which a figure is a mistake, not a plan: it would print as 0 h or
# $0.00, or overflow the arithmetic (`mfu: 5e-324` makes training time infinite).
MIN_HOURS = 1.0  # schedule.hours: EC2 bills by the second, but a plan is priced in hours ("0 h" is no plan)
MIN_USD = 0.01  # budgets: one cent, the smallest amount a report prints
MIN_MFU = 0.01  # workload.mfu: 1 % of peak; published MFUs are 15-43 % (README, Workload)
MAX_MAGNITUDE = 1e30  # parameters, tokens, any other positive number


def az_in_region(az: str, region: str) -> bool:
    """An AZ name belongs to a region when it is the region plus a zone letter (or a Local Zone suffix)."""
    return bool(re.fullmatch(re.escape(region) + r"([a-z]|-[a-z0-9-]+[a-z])", az))


class _Reader:
    """Collects problems while reading one mapping tree, so the user sees all of them."""

    def __init__(self, file: str, lines: Lines):
        self.file = file
        self.lines = lines
        self.problems: list[Problem] = []

    def key(self, path: Path) -> str:
        """`planner:cluster.node_groups[0].count`: the key as written under `config:` (or `config` itself)."""
        if path == ("config",):
            return "config"
        out = ""
        for part in path[1:] if path and path[0] == "config" else path:
            text = str(part) if len(str(part)) <= 2 * SHOWN_CHARS else str(part)[:2 * SHOWN_CHARS - 3] + "..."
            out += f"[{part}]" if isinstance(part, int) and not isinstance(part, bool) else (f".{text}" if out else text)
        return out

    def fail(self, path: Path, message: str) -> None:
        self.problems.append(Problem(self.file, line_of(self.lines, path), _one_line(self.key(path)), _one_line(message)))

    def mapping(self, value: Any, path: Path, allowed: Iterable[str], required: Iterable[str] = ()) -> dict[str, Any] | None:
        if not isinstance(value, dict):
            # the document itself (or `config`) not a mapping: it may be any file, so show no part of it
            self.fail(path, f"expected a mapping, got {_kind(value, echo=len(path) > 1)}")
            return None
        allowed = tuple(allowed)
        for k in value:
            if k not in allowed:
                hint = _closest(str(k), allowed)
                self.fail(path + (k,), f"unknown key{hint}; expected one of: {', '.join(allowed)}")
        for k in required:
            if k not in value or value[k] is None:
                self.fail(path, f"missing required key '{k}'")
        return value

    def get(self, m: dict[str, Any], k: str, path: Path, conv: Callable[[Any, Path], Any], default: Any = None) -> Any:
        """`m[k]` converted; `default` when the key is absent. A key written without a value
        (`count:`) is a type error, not "absent": it would silently drop what it declares."""
        if k not in m:
            return default
        return conv(m[k], path + (k,))

    # --- converters: return a value, or record a problem and return None -------------
    def string(self, v: Any, path: Path) -> str | None:
        if isinstance(v, str) and v.strip():
            return self.printable(v, path)
        self.fail(path, f"expected a non-empty string, got {_kind(v)}")
        return None

    def printable(self, v: str, path: Path) -> str | None:
        """`v`, unless it holds a control character, a line separator or a bidi override.

        Every string the schema accepts ends up in a report (a PR comment, an annotation,
        a terminal): a line break there forges lines, a bidi override reorders them.
        """
        bad = first_control(v)
        if bad is None:
            return v
        self.fail(path, f"contains the control character {escape_char(bad)}; expected printable text on one line")
        return None

    def boolean(self, v: Any, path: Path) -> bool | None:
        if isinstance(v, bool):
            return v
        if isinstance(v, str) and v.lower() in ("true", "false"):
            return v.lower() == "true"
        self.fail(path, f"expected true or false, got {_kind(v)}")
        return None

    def positive_int(self, v: Any, path: Path) -> int | None:
        if isinstance(v, str) and _NUMBER.fullmatch(v.strip()):
            try:
                f = float(v.replace("_", ""))
                v = int(f) if f.is_integer() and abs(f) < 1e18 else v
            except (ValueError, OverflowError):
                pass
        if isinstance(v, float) and v.is_integer() and abs(v) < 1e18:
            v = int(v)
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v <= 10**9:
            return v
        if isinstance(v, int) and not isinstance(v, bool) and v > 10**9:
            self.fail(path, f"expected a positive integer up to 1,000,000,000, got {v}")
        else:
            self.fail(path, f"expected a positive integer, got {_kind(v)}")
        return None

    def positive_number(self, v: Any, path: Path) -> float | None:
        if isinstance(v, str) and _NUMBER.fullmatch(v.strip()):
            try:
                v = float(v.replace("_", ""))
            except (ValueError, OverflowError):
                pass
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_MAGNITUDE:
            v = float(MAX_MAGNITUDE) * 10  # a 400-digit integer is out of range, not an OverflowError
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and 0 < v <= MAX_MAGNITUDE:
            return float(v)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > MAX_MAGNITUDE:
            self.fail(path, f"expected a positive number up to {MAX_MAGNITUDE:g}, got {_kind(v)}")
            return None
        self.fail(path, f"expected a positive number, got {_kind(v)}")
        return None

    def at_least(self, low: float, what: str) -> Callable[[Any, Path], float | None]:
        """A positive number no smaller than `low` (`what` says why, in the message)."""
        def conv(v: Any, path: Path) -> float | None:
            x = self.positive_number(v, path)
            if x is not None and x < low:
                self.fail(path, f"expected at least {low:g} ({what}), got {x!r}")
                return None
            return x

        return conv

    def choice(self, options: tuple[str, ...]) -> Callable[[Any, Path], str | None]:
        def conv(v: Any, path: Path) -> str | None:
            if isinstance(v, str) and v in options:
                return v
            hint = _closest(str(v), options) if isinstance(v, str) else ""
            self.fail(path, f"expected one of {', '.join(options)}, got {_kind(v)}{hint}")
            return None

        return conv

    def pattern(self, rx: re.Pattern[str], what: str) -> Callable[[Any, Path], str | None]:
        def conv(v: Any, path: Path) -> str | None:
            if isinstance(v, str) and rx.fullmatch(v):
                return self.printable(v, path)
            self.fail(path, f"expected {what}, got {_kind(v)}")
            return None

        return conv


_one_line = one_line  # one problem, one line (planner.report.text)

SHOWN_CHARS = 24  # at most this much of a wrong value is echoed: enough to spot a typo, not to leak a secret


def _kind(v: Any, echo: bool = True) -> str:
    """What a wrong value is, for a message. `echo=False` for values that may not be ours
    (a whole file that is not a mapping: a symlink to a token, a key file)."""
    if v is None:
        return "nothing"
    if isinstance(v, bool):
        return f"boolean {str(v).lower()}"
    if isinstance(v, int) and abs(v) >= 10**20:
        return f"a {len(str(abs(v)))}-digit integer"
    if isinstance(v, (int, float)):
        return f"{v!r}" if echo else "a number"
    if isinstance(v, str):
        if not echo:
            return "a string"
        shown = v if len(v) <= SHOWN_CHARS else v[:SHOWN_CHARS - 3] + "..."
        return f"'{shown}'".encode("unicode_escape").decode("ascii")
    if isinstance(v, list):
        return "a list"
    if isinstance(v, dict):
        return "a mapping"
    return type(v).__name__


def _closest(word: str, options: Iterable[str]) -> str:
    import difflib

    match = difflib.get_close_matches(word, list(options), n=1, cutoff=0.75)
    return f" (did you mean '{match[0]}'?)" if match else ""


# --- the schema ------------------------------------------------------------------------

CLUSTER_KEYS = ("availability_zone", "node_groups", "placement_group", "lustre", "schedule",
                "workload", "budget", "suppress", "network")
GROUP_KEYS = ("name", "instance_type", "count", "ultraservers", "purchase", "efa",
              "availability_zone", "public_ip", "capacity_reservation_id")
LUSTRE_KEYS = ("deployment_type", "storage_capacity_gib", "per_unit_storage_throughput",
               "availability_zone", "efa_enabled", "s3_import_path")
WORKLOAD_KEYS = ("parameters", "tokens", "precision", "mfu", "checkpoint_max_minutes")


def parse_cluster(data: Any, region: str, file: str = "<config>", lines: Lines | None = None,
                  path: Path = CLUSTER_PATH) -> Cluster:
    """Read a `planner:cluster` mapping; raise InputError listing every problem."""
    r = _Reader(file, lines or {})
    cluster = _cluster(r, data, region, path)
    if r.problems or cluster is None:
        raise InputError(r.problems or [Problem(file, None, r.key(path), "invalid cluster")])
    return cluster


def _cluster(r: _Reader, data: Any, region: str, path: Path) -> Cluster | None:
    m = r.mapping(data, path, CLUSTER_KEYS, required=("availability_zone", "node_groups"))
    if m is None:
        return None
    az = r.get(m, "availability_zone", path, r.string)
    if az and region and not az_in_region(az, region):
        r.fail(path + ("availability_zone",), f"expected an Availability Zone of {region} (such as {region}a), got {_kind(az)}")
    groups = _node_groups(r, m.get("node_groups"), path + ("node_groups",), az or "", region)
    placement = r.get(m, "placement_group", path, r.choice(PLACEMENTS))
    lustre = _lustre(r, m["lustre"], path + ("lustre",), az or "", region) if m.get("lustre") is not None else None
    schedule = None
    if m.get("schedule") is not None:
        sm = r.mapping(m["schedule"], path + ("schedule",), ("hours",), required=("hours",))
        if sm is not None:
            hours = r.get(sm, "hours", path + ("schedule",), r.at_least(MIN_HOURS, "hours of use; a plan is priced in hours"))
            if hours is not None:
                schedule = Schedule(hours, path + ("schedule",))
    workload = _workload(r, m["workload"], path + ("workload",)) if m.get("workload") is not None else None
    budget = None
    if m.get("budget") is not None:
        bp = path + ("budget",)
        bm = r.mapping(m["budget"], bp, ("total_usd", "monthly_usd"))
        if bm is not None:
            if not bm:
                r.fail(bp, "expected total_usd and/or monthly_usd")
            usd = r.at_least(MIN_USD, "USD; a budget under one cent prints as $0.00")
            budget = Budget(r.get(bm, "total_usd", bp, usd), r.get(bm, "monthly_usd", bp, usd), bp)
    suppress = _suppressions(r, m.get("suppress"), path + ("suppress",))
    network = None
    if m.get("network") is not None:
        np_ = path + ("network",)
        nm = r.mapping(m["network"], np_, ("vpc_id", "subnet_id"))
        if nm is not None:
            network = Network(
                r.get(nm, "vpc_id", np_, r.pattern(_VPC, "a VPC id such as vpc-0123456789abcdef0")),
                r.get(nm, "subnet_id", np_, r.pattern(_SUBNET, "a subnet id such as subnet-0123456789abcdef0")),
                np_,
            )
            if network.subnet_id is None and network.vpc_id is not None and "subnet_id" not in nm:
                r.fail(np_, "missing required key 'subnet_id' (an existing VPC needs the subnet to use)")
    if r.problems or az is None or groups is None:
        return None
    return Cluster(az, groups, placement, lustre, schedule, workload, budget, suppress, network, path)


def _node_groups(r: _Reader, data: Any, path: Path, cluster_az: str, region: str) -> tuple[NodeGroup, ...] | None:
    if data is None:
        return None
    if not isinstance(data, list) or not data:
        r.fail(path, f"expected a non-empty list of node groups, got {_kind(data)}")
        return None
    cat = _catalogue.load()
    groups: list[NodeGroup] = []
    seen: dict[str, int] = {}
    for i, raw in enumerate(data):
        p = path + (i,)
        m = r.mapping(raw, p, GROUP_KEYS, required=("name", "instance_type"))
        if m is None:
            continue
        name = r.get(m, "name", p, r.pattern(_NAME, "a lower-case name of letters, digits and dashes (at most 32)"))
        if name is not None:
            if name in seen:
                r.fail(p + ("name",), f"duplicate node group name '{name}' (also node_groups[{seen[name]}])")
            seen[name] = i
        itype = r.get(m, "instance_type", p, r.string)
        spec = cat.get(itype) if itype else None
        if itype and spec is None:
            announced = [a.name for a in cat.announced.values() if a.accelerator.name.lower() in itype.lower() or "trn3" in itype.lower()]
            extra = f" ({announced[0]} is announced but its EC2 instance type names are not confirmed)" if announced else ""
            hint = _closest(itype, cat.instance_types)
            r.fail(p + ("instance_type",), f"unknown instance type {_kind(itype)}{hint}{extra}; expected one of: {', '.join(sorted(cat.instance_types))}")
        count = r.get(m, "count", p, r.positive_int)
        ultraservers = r.get(m, "ultraservers", p, r.positive_int)
        if "count" in m and "ultraservers" in m:
            r.fail(p + ("ultraservers",), "give either 'count' (instances) or 'ultraservers', not both")
        elif "count" not in m and "ultraservers" not in m:
            r.fail(p, "missing required key 'count' (or 'ultraservers' for trn2u.48xlarge)")
        if ultraservers is not None and spec is not None:
            if spec.ultraserver_size is None:
                r.fail(p + ("ultraservers",), f"'ultraservers' applies to UltraServer types (trn2u.48xlarge), not {itype}; use 'count'")
            elif count is None and "count" not in m:
                count = ultraservers * spec.ultraserver_size
        purchase = r.get(m, "purchase", p, r.choice(PURCHASES), "on-demand")
        efa = r.get(m, "efa", p, r.boolean)
        if efa is None and "efa" not in m:
            efa = bool(spec and spec.efa_supported)
        az = r.get(m, "availability_zone", p, r.string) or cluster_az
        if "availability_zone" in m and az and region and not az_in_region(az, region):
            r.fail(p + ("availability_zone",), f"expected an Availability Zone of {region}, got {_kind(az)}")
        public_ip = r.get(m, "public_ip", p, r.boolean, False)
        reservation = r.get(m, "capacity_reservation_id", p, r.pattern(_RESERVATION, "a capacity reservation id such as cr-0123456789abcdef0"))
        if None in (name, itype, count, purchase, efa, public_ip) or spec is None:
            continue
        groups.append(NodeGroup(
            name=name, instance_type=itype, count=count, purchase=purchase, efa=efa,
            availability_zone=az, public_ip=public_ip, capacity_reservation_id=reservation,
            ultraservers=ultraservers, path=p, declared=frozenset(str(k) for k in m),
        ))
    return tuple(groups)


def _lustre(r: _Reader, data: Any, path: Path, cluster_az: str, region: str) -> Lustre | None:
    m = r.mapping(data, path, LUSTRE_KEYS, required=("deployment_type", "storage_capacity_gib"))
    if m is None:
        return None
    dtype = r.get(m, "deployment_type", path, r.choice(LUSTRE_DEPLOYMENTS))
    capacity = r.get(m, "storage_capacity_gib", path, r.positive_int)
    throughput = r.get(m, "per_unit_storage_throughput", path, r.positive_int)
    az = r.get(m, "availability_zone", path, r.string) or cluster_az
    if "availability_zone" in m and az and region and not az_in_region(az, region):
        r.fail(path + ("availability_zone",), f"expected an Availability Zone of {region}, got {_kind(az)}")
    efa = r.get(m, "efa_enabled", path, r.boolean, False)
    s3 = r.get(m, "s3_import_path", path, r.pattern(_S3_URL, "an S3 URL such as s3://bucket/prefix"))
    if dtype is None or capacity is None or efa is None:
        return None
    return Lustre(dtype, capacity, throughput, az, efa, s3, path, frozenset(str(k) for k in m))


def _workload(r: _Reader, data: Any, path: Path) -> Workload | None:
    m = r.mapping(data, path, WORKLOAD_KEYS, required=("parameters", "tokens", "mfu"))
    if m is None:
        return None
    params = r.get(m, "parameters", path, r.positive_number)
    tokens = r.get(m, "tokens", path, r.positive_number)
    precision = r.get(m, "precision", path, r.choice(PRECISIONS), "bf16")
    mfu = r.get(m, "mfu", path, r.positive_number)
    if mfu is not None and not MIN_MFU <= mfu <= 1:
        r.fail(path + ("mfu",), f"expected a fraction of peak between {MIN_MFU:g} and 1 (such as 0.4), got {mfu!r}")
        mfu = None
    checkpoint_minutes = r.get(m, "checkpoint_max_minutes", path, r.positive_number)
    if None in (params, tokens, precision, mfu):
        return None
    return Workload(params, tokens, precision, mfu, path, frozenset(str(k) for k in m), checkpoint_minutes)


def _suppressions(r: _Reader, data: Any, path: Path) -> tuple[Suppression, ...]:
    if data is None:
        return ()
    if not isinstance(data, list):
        r.fail(path, f"expected a list of {{rule, reason}}, got {_kind(data)}")
        return ()
    out = []
    for i, raw in enumerate(data):
        p = path + (i,)
        m = r.mapping(raw, p, ("rule", "reason"), required=("rule", "reason"))
        if m is None:
            continue
        rule = r.get(m, "rule", p, r.string)
        reason = r.get(m, "reason", p, r.string)
        if rule and reason:
            out.append(Suppression(rule, reason, p))
    return tuple(out)


# --- stack files -------------------------------------------------------------------------

def stack_name(file: str) -> str | None:
    m = _STACK_FILE.fullmatch(os.path.basename(file))
    return m.group(1) if m else None


def parse_stack(data: Any, lines: Lines, file: str, name: str) -> Stack:
    r = _Reader(file, lines)
    top = r.mapping(data, (), ("config", "secretsprovider", "encryptedkey", "encryptionsalt", "environment"), required=("config",))
    if top is None or r.problems:
        raise InputError(r.problems)
    config = top["config"]
    if not isinstance(config, dict):
        r.fail(("config",), f"expected a mapping, got {_kind(config)}")
        raise InputError(r.problems)
    region = config.get(REGION_KEY)
    if region is None:
        r.fail(("config",), f"missing required key '{REGION_KEY}' (the AWS region, such as us-east-2)")
    elif not (isinstance(region, str) and _REGION.fullmatch(region)):
        r.fail(("config", REGION_KEY), f"expected an AWS region such as us-east-2, got {_kind(region)}")
        region = None
    if CLUSTER_KEY not in config or config[CLUSTER_KEY] is None:
        r.fail(("config",), f"missing required key '{CLUSTER_KEY}' (the declared cluster)")
        raise InputError(r.problems)
    cluster = _cluster(r, config[CLUSTER_KEY], region or "", CLUSTER_PATH)
    if r.problems or cluster is None or region is None:
        raise InputError(r.problems or [Problem(file, None, CLUSTER_KEY, "invalid cluster")])
    return Stack(name, file, region, cluster, lines)


def load_stack(file: str) -> Stack:
    """Read one `Pulumi.<stack>.yaml` file."""
    name = stack_name(file) or os.path.splitext(os.path.basename(file))[0]
    data, lines = yamlload.load_path(file)
    return parse_stack(data, lines, file, name)


def discover(paths: Iterable[str]) -> list[str]:
    """Stack files named by `paths` (files, or folders searched for Pulumi.<stack>.yaml).

    In the order given, folders sorted; a file named twice (`stacks stacks/Pulumi.x.yaml`)
    is planned once, as first named, so its findings and cost are not counted twice.

    A stack file found in a folder must resolve inside that folder: a symlink out of it
    (to a key, a token, another checkout) is refused unless named explicitly, since the
    documented workflow puts error messages in a pull-request comment.
    """
    found: list[str] = []
    problems: list[Problem] = []
    for p in paths:
        if os.path.isdir(p):
            try:
                names = sorted(f for f in os.listdir(p) if stack_name(f))
            except OSError as exc:
                problems.append(Problem(p, None, "", f"cannot list the folder: {exc.strerror or exc}"))
                continue
            if not names:
                problems.append(Problem(p, None, "", "no stack files (Pulumi.<stack>.yaml) in this folder"))
            root = os.path.realpath(p)
            for f in names:
                full = os.path.join(p, f)
                if os.path.commonpath([root, os.path.realpath(full)]) != root:
                    problems.append(Problem(full, None, "", "is a link to a file outside the folder; refused "
                                                             "(name the file itself to plan it)"))
                else:
                    found.append(full)
        elif os.path.isfile(p):
            found.append(p)
        elif os.path.exists(p):
            problems.append(Problem(p, None, "", "not a regular file (a device, FIFO or socket); expected a stack file"))
        else:
            problems.append(Problem(p, None, "", "no such file or folder"))
    if problems:
        raise InputError(problems)
    seen: set[str] = set()
    unique = []
    for f in found:
        real = os.path.realpath(f)
        if real not in seen:
            seen.add(real)
            unique.append(f)
    return unique


def load_stacks(paths: Iterable[str]) -> list[Stack]:
    """Every stack under `paths`; all problems of all files in one InputError."""
    stacks: list[Stack] = []
    problems: list[Problem] = []
    for f in discover(paths):
        try:
            stacks.append(load_stack(f))
        except InputError as exc:
            problems.extend(exc.problems)
    if problems:
        raise InputError(problems)
    return stacks
