"""Security groups: EFA's all traffic in from, and out to, the group itself; FSx for Lustre's ports.

AWS's EFA guide (and the AWS PCS guide's EFA security group commands) ask for both rules
naming the security group itself, so planner does not take an egress rule to 0.0.0.0/0 for
the outbound one. This needs the stack's resources together
(the launch template says which groups its EFA interfaces use; the groups and their
separate rule resources say what they allow), so it is a stack policy.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from planner.core.rules.resource_settings import EFA_SECURITY_DOC, LUSTRE_PORTS_DOC
from planner.readback.resources import (
    EFA_INTERFACE_TYPES,
    LAUNCH_TEMPLATE,
    LUSTRE,
    SECURITY_GROUP,
    SECURITY_GROUP_EGRESS,
    SECURITY_GROUP_INGRESS,
    SECURITY_GROUP_RULE,
    Graph,
    Resource,
    Violation,
    as_list,
    known,
    truthy,
)

ALL_PROTOCOLS = ("-1", "all")
# the ports FSx for Lustre needs open inbound (the File system access control with Amazon VPC page)
LUSTRE_PORTS = {"988": (988, 988), "1018-1023": (1018, 1023)}
DIRECTIONS = ("ingress", "egress")


def efa_security_groups(graph: Graph) -> dict[str, tuple[Resource, list[Resource]]]:
    """Security groups (by URN) used by EFA interfaces of launch templates, with those templates."""
    out: dict[str, tuple[Resource, list[Resource]]] = {}
    for lt in graph.of_type(LAUNCH_TEMPLATE):
        interfaces = [n for n in as_list(lt.get("networkInterfaces")) if isinstance(n, dict)]
        ids = [
            sg
            for n in interfaces
            if n.get("interfaceType") in EFA_INTERFACE_TYPES
            for sg in as_list(n.get("securityGroups"))
        ]
        if not ids:
            continue
        for sg in graph.resolve(lt, "networkInterfaces", ids, SECURITY_GROUP):
            out.setdefault(sg.urn, (sg, []))[1].append(lt)
    return out


def _all_traffic(protocol: Any) -> bool:
    return isinstance(protocol, str) and protocol.lower() in ALL_PROTOCOLS


def _inline_self(sg: Resource, direction: str) -> bool:
    for rule in as_list(sg.get(direction)):
        if not isinstance(rule, dict) or not _all_traffic(rule.get("protocol")):
            continue
        others = {g for g in as_list(rule.get("securityGroups")) if isinstance(g, str) and known(g)}
        if truthy(rule.get("self")) or others & sg.identifiers():
            return True
    return False


def _attached(graph: Graph, rule: Resource, sg: Resource) -> bool:
    return any(
        g.urn == sg.urn for g in graph.resolve(rule, "securityGroupId", [rule.get("securityGroupId")], SECURITY_GROUP)
    )


def _separate_rules(graph: Graph, sg: Resource) -> Iterator[tuple[str, Resource, list[Resource]]]:
    """(direction, rule, groups it lets traffic from/to) for rule resources attached to `sg`."""
    for rule in graph.of_type(SECURITY_GROUP_RULE):
        if not _attached(graph, rule, sg):
            continue
        if not _all_traffic(rule.get("protocol")):
            continue
        peers = (
            [sg]
            if truthy(rule.get("self"))
            else graph.resolve(rule, "sourceSecurityGroupId", [rule.get("sourceSecurityGroupId")], SECURITY_GROUP)
        )
        yield str(rule.get("type")), rule, peers
    for type_, direction in ((SECURITY_GROUP_INGRESS, "ingress"), (SECURITY_GROUP_EGRESS, "egress")):
        for rule in graph.of_type(type_):
            if not _attached(graph, rule, sg):
                continue
            if not _all_traffic(rule.get("ipProtocol")):
                continue
            peers = graph.resolve(
                rule, "referencedSecurityGroupId", [rule.get("referencedSecurityGroupId")], SECURITY_GROUP
            )
            yield direction, rule, peers


def self_referencing(graph: Graph, sg: Resource) -> set[str]:
    """The directions (ingress, egress) in which `sg` allows all traffic with itself."""
    found = {d for d in DIRECTIONS if _inline_self(sg, d)}
    for direction, _rule, peers in _separate_rules(graph, sg):
        if any(p.urn == sg.urn for p in peers):
            found.add(direction)
    return found


def _interface_groups(graph: Graph) -> list[list[Resource]]:
    """The security groups of each EFA interface of each launch template, as declared together."""
    out = []
    for lt in graph.of_type(LAUNCH_TEMPLATE):
        for n in as_list(lt.get("networkInterfaces")):
            if isinstance(n, dict) and n.get("interfaceType") in EFA_INTERFACE_TYPES:
                ids = as_list(n.get("securityGroups"))
                if ids:
                    out.append(graph.resolve(lt, "networkInterfaces", ids, SECURITY_GROUP))
    return out


def violations(graph: Graph) -> list[Violation]:
    """EFA security groups without the self-referencing rules, judged per interface as AWS applies
    them: the rules of all of an interface's groups together ("When you associate multiple security
    groups with an instance, the rules from each security group are effectively aggregated to create
    one set of rules", https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/security-group-rules.html). A group is reported
    only where an interface that carries it has no group allowing all traffic with itself in a
    direction (eksctl's layout: a shared group plus the EFA group, on every EFA interface)."""
    out = []
    covered: dict[str, set[str]] = {}
    for groups in _interface_groups(graph):
        union = set().union(*(self_referencing(graph, g) for g in groups)) if groups else set()
        for g in groups:
            covered.setdefault(g.urn, set(DIRECTIONS))
            covered[g.urn] &= union
    for sg, templates in efa_security_groups(graph).values():
        missing = [d for d in DIRECTIONS if d not in covered.get(sg.urn, self_referencing(graph, sg))]
        if not missing:
            continue
        users = ", ".join(sorted(t.name for t in templates))
        rules = " and ".join({"ingress": "inbound from", "egress": "outbound to"}[d] for d in missing)
        out.append(
            Violation(
                f"security group '{sg.name}' is used by EFA interfaces (launch template {users}) but does not allow all "
                f"traffic {rules} itself; AWS's EFA guide asks for an all-traffic (protocol -1) rule naming the group "
                f"itself in each direction (planner does not take an egress rule to 0.0.0.0/0 for one). See {EFA_SECURITY_DOC}",
                sg.urn,
            )
        )
    return out


# --- FSx for Lustre file systems: LNET ports -----------------------------------------------------------------

TCP_PROTOCOLS = ("tcp", "6")


def _tcp_ranges(rule: dict[str, Any] | Resource, protocol_key: str) -> tuple[int, int] | None:
    """The port range an inbound rule opens to TCP (all of it for protocol -1); None when it opens none."""
    get = rule.get
    protocol = get(protocol_key)
    if _all_traffic(protocol):
        return (0, 65535)
    if not (isinstance(protocol, str) and protocol.lower() in TCP_PROTOCOLS):
        return None
    low, high = _port(get("fromPort")), _port(get("toPort"))  # numbers cross the engine as floats
    return None if low is None or high is None else (low, high)


def _port(value: Any) -> int | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return int(value) if value == int(value) else None


def inbound_tcp(graph: Graph, sg: Resource) -> list[tuple[int, int]]:
    """The TCP port ranges `sg` lets in (from any source), inline or by separate rule resources."""
    out = [r for rule in as_list(sg.get("ingress")) if isinstance(rule, dict) and (r := _tcp_ranges(rule, "protocol"))]
    for rule in graph.of_type(SECURITY_GROUP_RULE):
        if rule.get("type") == "ingress" and _attached(graph, rule, sg) and (r := _tcp_ranges(rule, "protocol")):
            out.append(r)
    for rule in graph.of_type(SECURITY_GROUP_INGRESS):
        if _attached(graph, rule, sg) and (r := _tcp_ranges(rule, "ipProtocol")):
            out.append(r)
    return out


def lustre_violations(graph: Graph) -> list[Violation]:
    """FSx for Lustre file systems whose security groups, together, do not let in TCP 988 and 1018-1023.

    AWS: "The file system cannot be created because the default security group in the subnet provided
    or the provided security groups do not permit Lustre LNET network traffic on port 988"; "You must
    set up the security group to allow inbound traffic on ports 988 and 1018-1023" (LUSTRE_PORTS_DOC).
    Judged only where every group the file system names is in the program: a group from elsewhere (or
    none named: the subnet's default group) is not seen, so nothing is said of it."""
    out = []
    for fs in graph.of_type(LUSTRE):
        ids = as_list(fs.get("securityGroupIds"))
        if not ids or not all(isinstance(i, str) and known(i) for i in ids):
            continue
        groups = graph.resolve(fs, "securityGroupIds", ids, SECURITY_GROUP)
        if len(groups) != len(ids):
            continue
        ranges = [r for g in groups for r in inbound_tcp(graph, g)]
        missing = [
            label for label, (low, high) in LUSTRE_PORTS.items() if not any(a <= low and high <= b for a, b in ranges)
        ]
        if not missing:
            continue
        names = ", ".join(f"'{g.name}'" for g in groups)
        out.append(
            Violation(
                f"FSx for Lustre file system '{fs.name}': its security groups ({names}) do not let in TCP "
                f"{' or '.join(missing)}; AWS refuses to create a file system whose groups do not permit Lustre LNET "
                f"traffic on port 988, and clients mount through 988 and 1018-1023. See {LUSTRE_PORTS_DOC}",
                fs.urn,
            )
        )
    return out
