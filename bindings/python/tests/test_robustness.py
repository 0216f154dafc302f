"""Deep and exponential nesting of GC rules and row filters (issue 12).

A union or chain refuses, with InvalidArgument and the engine's message, to exceed the
engine's depth limit (GC rules 32 levels, filters 20) or size limit before it copies its
members: built level by level, a 100,000-deep tree would take quadratic time and overflow the
native stack when copied or freed, and one object shared 1,000 times per level would expand
into an exponential tree. Afterwards the same client still writes and reads.
"""

import pytest

import sparsetable as st

GC_DEPTH = 32  # sparsetable::limits::MAX_GC_RULE_DEPTH
GC_NODES = 1024  # sparsetable::limits::MAX_GC_RULE_NODES
FILTER_DEPTH = 20  # sparsetable::limits::MAX_FILTER_DEPTH


def _nested_rule(levels):
    """A union chain `levels` deep (the leaf is level 1); raises when a level is refused."""
    rule = st.MaxVersionsGCRule(1)
    for _ in range(levels - 1):
        rule = st.GCRuleUnion([rule])
    return rule


def _nested_filter(levels):
    f = st.PassAllFilter(True)
    for _ in range(levels - 1):
        f = st.RowFilterChain([f, st.PassAllFilter(True)])
    return f


def _refused_at(build, limit, levels, message):
    """Building `levels` deep succeeds up to `limit` levels and raises at the next one, with
    the core's message word for word."""
    with pytest.raises(st.InvalidArgument) as refused:
        build(levels)
    assert refused.value.message == message
    build(limit)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("levels", [GC_DEPTH + 1, 1_100, 100_000])
def test_gc_rule_nested_past_the_limit_is_refused_when_built(admin, table, levels):
    _refused_at(_nested_rule, GC_DEPTH, levels, f"gc_rule: nested deeper than {GC_DEPTH} levels")
    info = admin.modify_column_families("t", [st.ColumnFamilyModification.create("deep", _nested_rule(GC_DEPTH))])
    rule = info.column_families["deep"]
    for _ in range(GC_DEPTH - 1):
        rule = rule.rules[0]
    assert rule == st.MaxVersionsGCRule(1)


@pytest.mark.timeout(60)
def test_gc_rule_shared_at_every_level_is_refused_by_size():
    rule = st.MaxVersionsGCRule(1)
    with pytest.raises(st.InvalidArgument) as refused:
        for _ in range(30):
            rule = st.GCRuleIntersection([rule] * 1000)
    assert refused.value.message == f"gc_rule: more than {GC_NODES} rules"
    st.GCRuleUnion([st.MaxVersionsGCRule(1)] * (GC_NODES - 1))
    with pytest.raises(st.InvalidArgument):
        st.GCRuleUnion([st.MaxVersionsGCRule(1)] * GC_NODES)


@pytest.mark.timeout(60)
@pytest.mark.parametrize("levels", [FILTER_DEPTH + 1, 1_100, 100_000])
def test_filter_nested_past_the_limit_is_refused_when_built(table, levels):
    _refused_at(_nested_filter, FILTER_DEPTH, levels, f"filter: nesting deeper than {FILTER_DEPTH} levels")
    table.mutate_row("r", st.SetCell("cf", "q", "v", 1000))
    rows = list(table.read_rows(st.ReadRowsQuery(row_filter=_nested_filter(FILTER_DEPTH))))
    assert [r.row_key for r in rows] == [b"r"]


@pytest.mark.timeout(60)
def test_condition_counts_its_branches():
    deep = _nested_filter(FILTER_DEPTH)
    leaf = st.PassAllFilter(True)
    for args in [(deep, leaf, leaf), (leaf, deep, None), (leaf, None, deep)]:
        with pytest.raises(st.InvalidArgument, match="nesting deeper"):
            st.ConditionalRowFilter(*args)
    st.ConditionalRowFilter(_nested_filter(FILTER_DEPTH - 1), leaf, leaf)


@pytest.mark.timeout(60)
def test_filter_shared_at_every_level_is_refused_by_size(table):
    f = st.PassAllFilter(True)
    with pytest.raises(st.InvalidArgument) as refused:
        for _ in range(FILTER_DEPTH):
            f = st.RowFilterUnion([f] * 1000)
    # The core's words, exactly (limits::FILTER_TREE): the binding holds no copy of them.
    assert refused.value.message == "filter: more than 1000 filters in one RowFilter"
    # The client is unharmed: it still writes and reads.
    table.mutate_row("r", st.SetCell("cf", "q", "v", 1000))
    assert table.read_row("r").cells[0].value == b"v"


def test_wrong_member_types_are_type_errors():
    for bad in [[1], ["x"], [None, 3], 5, "rules"]:
        with pytest.raises(TypeError):
            st.GCRuleUnion(bad)
    for bad in [[1], 5]:
        with pytest.raises(TypeError):
            st.RowFilterChain(bad)
