#!/usr/bin/env python3
"""Bytecode vectors for stratagraph-server's translator, made by gremlinpython.

Each case is a traversal built with gremlinpython 3.8.2's own traversal API and
ended the way a user ends it (`toList()`, `iterate()`), paired with the same
traversal written by hand in gremlin-lang. The bytecode gremlinpython would send
is written with gremlinpython's GraphBinaryWriter. The Rust test
(tests/translate.rs) decodes each vector, translates it to gremlin-lang, runs
both the translation and the hand-written text on TinkerPop's modern graph, and
compares the results: the hand-written text is the independent expectation, so
the check is on what the traversals do, not on how the translation is spelled.

No server is involved: the traversal source carries a strategy that gives every
traversal an empty result, so terminal methods run (and `iterate()` appends its
`discard()` step, as it does against a server) without a connection.

Setup (outside the repository):

    python3 -m venv /tmp/gp-venv && /tmp/gp-venv/bin/pip install gremlinpython==3.8.2

Regenerate bytecode.txt beside this script:

    /tmp/gp-venv/bin/python make_bytecode.py > bytecode.txt

Output: `name<TAB>hex<TAB>gremlin-lang` a line, after `#` comment lines. Python
sets iterate in hash order, so the sets here hold only small ints: the bytes
then do not depend on PYTHONHASHSEED.
"""

import datetime
import sys
import uuid

from gremlin_python.process.graph_traversal import GraphTraversalSource, __
from gremlin_python.process.strategies import (
    PartitionStrategy, ReadOnlyStrategy, SubgraphStrategy)
from gremlin_python.process.traversal import (
    Bindings, Cardinality, CardinalityValue, Column, Direction, GType, Merge, Operator, Order, P,
    Pick, Pop, Scope, T, TextP, TraversalStrategies, TraversalStrategy, WithOptions)
from gremlin_python.statics import BigDecimal, SingleByte, bigint, long, short
from gremlin_python.structure.graph import Edge, Graph, Vertex
from gremlin_python.structure.io.graphbinaryV1 import GraphBinaryWriter


class NoServer(TraversalStrategy):
    """Stands in for RemoteStrategy: every traversal yields nothing."""

    def apply(self, traversal):
        if traversal.traversers is None:
            traversal.traversers = iter([])


g = GraphTraversalSource(Graph(), TraversalStrategies())
g.traversal_strategies.add_strategies([NoServer()])

UTC = datetime.timezone.utc
PLUS_ONE = datetime.timezone(datetime.timedelta(hours=1))


def cases():
    """(name, traversal, how it ends, hand-written gremlin-lang)."""
    L = 'toList'
    I = 'iterate'
    return [
        # Start steps and ids.
        ("v_all", g.V(), L, "g.V()"),
        ("v_id_int", g.V(1).values('name'), L, "g.V(1).values('name')"),
        ("v_id_long", g.V(long(2)).values('name'), L, "g.V(2l).values('name')"),
        ("v_ids", g.V(1, 2, 3).values('name'), L, "g.V(1, 2, 3).values('name')"),
        ("v_vertex", g.V(Vertex(long(1), 'person')).out('knows').values('name'), L,
         "g.V(1).out('knows').values('name')"),
        ("e_edge", g.E(Edge(long(7), Vertex(1), 'knows', Vertex(2))).values('weight'), L,
         "g.E(7).values('weight')"),
        ("hasid_vertex", g.V().has_id(Vertex(long(4), 'person')).values('name'), L,
         "g.V().hasId(4).values('name')"),
        # has, hasLabel, hasId with P and TextP.
        ("has_label_key_value", g.V().has('person', 'name', 'marko').out('knows').values('name'), L,
         "g.V().has('person', 'name', 'marko').out('knows').values('name')"),
        ("has_gt", g.V().has('age', P.gt(30)).values('name'), L,
         "g.V().has('age', gt(30)).values('name')"),
        ("has_between", g.V().has('age', P.between(27, 32)).values('name'), L,
         "g.V().has('age', between(27, 32)).values('name')"),
        ("has_within_args", g.V().has('name', P.within('marko', 'josh')).values('age'), L,
         "g.V().has('name', within('marko', 'josh')).values('age')"),
        ("has_within_list", g.V().has('name', P.within(['vadas', 'peter'])).values('age'), L,
         "g.V().has('name', within(['vadas', 'peter'])).values('age')"),
        ("has_without", g.V().has_label('person').has('name', P.without('marko')).values('name'), L,
         "g.V().hasLabel('person').has('name', without('marko')).values('name')"),
        ("has_and", g.V().has('age', P.gt(26).and_(P.lt(32))).values('name'), L,
         "g.V().has('age', gt(26).and(lt(32))).values('name')"),
        ("has_or", g.V().has('age', P.lt(28).or_(P.gt(33))).values('name'), L,
         "g.V().has('age', lt(28).or(gt(33))).values('name')"),
        ("has_not", g.V().has('age', P.not_(P.eq(29))).values('name'), L,
         "g.V().has('age', not(eq(29))).values('name')"),
        ("has_neq_lte", g.V().has('age', P.neq(29)).has('age', P.lte(32)).values('name'), L,
         "g.V().has('age', neq(29)).has('age', lte(32)).values('name')"),
        ("textp_containing", g.V().has('name', TextP.containing('ar')).values('name'), L,
         "g.V().has('name', containing('ar')).values('name')"),
        ("textp_starting_ending",
         g.V().has('name', TextP.starting_with('m').or_(TextP.ending_with('h'))).values('name'), L,
         "g.V().has('name', startingWith('m').or(endingWith('h'))).values('name')"),
        ("textp_not_containing", g.V().has('name', TextP.not_containing('o')).values('name'), L,
         "g.V().has('name', notContaining('o')).values('name')"),
        ("textp_regex", g.V().has('name', TextP.regex('^[mj]')).values('name'), L,
         "g.V().has('name', regex('^[mj]')).values('name')"),
        ("has_label_many", g.V().has_label('person', 'software').count(), L,
         "g.V().hasLabel('person', 'software').count()"),
        ("has_id_many", g.V().has_id(1, 2).values('name'), L, "g.V().hasId(1, 2).values('name')"),
        ("has_id_within", g.V().has_id(P.within(3, 5)).values('name'), L,
         "g.V().hasId(within(3, 5)).values('name')"),
        ("has_t_id", g.V().has(T.id, 6).values('name'), L, "g.V().has(id, 6).values('name')"),
        ("has_not_key", g.V().has_not('age').values('name'), L, "g.V().hasNot('age').values('name')"),
        # Moving around.
        ("out_in", g.V(1).out('created').in_('created').values('name'), L,
         "g.V(1).out('created').in('created').values('name')"),
        ("both_e_other_v", g.V(4).both_e('created', 'knows').other_v().values('name'), L,
         "g.V(4).bothE('created', 'knows').otherV().values('name')"),
        ("out_e_weight", g.V(1).out_e().has('weight', P.gte(0.5)).in_v().values('name'), L,
         "g.V(1).outE().has('weight', gte(0.5d)).inV().values('name')"),
        ("both_dedup", g.V().both().dedup().values('name'), L, "g.V().both().dedup().values('name')"),
        # Values and maps.
        ("values_many", g.V(1).values('name', 'age'), L, "g.V(1).values('name', 'age')"),
        ("value_map", g.V().has_label('person').value_map('name'), L,
         "g.V().hasLabel('person').valueMap('name')"),
        ("value_map_tokens", g.V(1).value_map().with_(WithOptions.tokens), L,
         "g.V(1).valueMap().with(WithOptions.tokens)"),
        ("element_map", g.V(1).element_map(), L, "g.V(1).elementMap()"),
        ("element_map_edge", g.E(7).element_map(), L, "g.E(7).elementMap()"),
        # Order, group, count.
        ("order_by_desc", g.V().has_label('person').order().by('age', Order.desc).values('name'), L,
         "g.V().hasLabel('person').order().by('age', desc).values('name')"),
        ("order_by_traversal",
         g.V().order().by(__.both_e().count(), Order.asc).by('name', Order.desc).values('name'), L,
         "g.V().order().by(bothE().count(), asc).by('name', desc).values('name')"),
        ("group_by", g.V().group().by(T.label).by(__.values('name').fold()), L,
         "g.V().group().by(label).by(values('name').fold())"),
        ("group_count", g.V().group_count().by(T.label), L, "g.V().groupCount().by(label)"),
        ("group_count_keys", g.V().out().group_count().by('name').select(Column.keys), L,
         "g.V().out().groupCount().by('name').select(keys)"),
        ("count_local", g.V().has_label('person').values('age').fold().count(Scope.local), L,
         "g.V().hasLabel('person').values('age').fold().count(local)"),
        # Repeat.
        ("repeat_times", g.V(1).repeat(__.out()).times(2).values('name'), L,
         "g.V(1).repeat(out()).times(2).values('name')"),
        ("repeat_until", g.V(1).repeat(__.out()).until(__.has_label('software')).values('name'), L,
         "g.V(1).repeat(out()).until(hasLabel('software')).values('name')"),
        ("repeat_emit", g.V(1).repeat(__.out()).times(2).emit().path().by('name'), L,
         "g.V(1).repeat(out()).times(2).emit().path().by('name')"),
        # Branches.
        ("union", g.V(4).union(__.in_(), __.out()).values('name'), L,
         "g.V(4).union(__.in(), __.out()).values('name')"),
        ("choose", g.V().has_label('person').choose(
            __.values('age').is_(P.gt(30)), __.constant('old'), __.constant('young')), L,
         "g.V().hasLabel('person').choose(values('age').is(gt(30)), constant('old'), constant('young'))"),
        ("choose_option", g.V().has_label('person').choose(__.values('name'))
         .option('marko', __.values('age')).option(Pick.none, __.constant(0)), L,
         "g.V().hasLabel('person').choose(values('name')).option('marko', values('age')).option(none, constant(0))"),
        ("coalesce", g.V().coalesce(__.values('age'), __.constant(-1)), L,
         "g.V().coalesce(values('age'), constant(-1))"),
        ("optional", g.V(2).optional(__.out('knows')).values('name'), L,
         "g.V(2).optional(out('knows')).values('name')"),
        ("and_not", g.V().and_(__.out('knows'), __.has('age', P.gt(25))).not_(__.in_()).values('name'), L,
         "g.V().and(out('knows'), has('age', gt(25))).not(__.in()).values('name')"),
        # Where, select, as.
        ("where_neq", g.V(1).as_('a').out('created').in_('created').where(P.neq('a')).values('name'), L,
         "g.V(1).as('a').out('created').in('created').where(neq('a')).values('name')"),
        ("where_traversal", g.V().where(__.out('created')).values('name'), L,
         "g.V().where(out('created')).values('name')"),
        ("select_by", g.V().as_('a').out('created').as_('b').select('a', 'b').by('name'), L,
         "g.V().as('a').out('created').as('b').select('a', 'b').by('name')"),
        ("select_pop", g.V(1).as_('x').out('knows').as_('x').select(Pop.last, 'x').values('name'), L,
         "g.V(1).as('x').out('knows').as('x').select(last, 'x').values('name')"),
        # Math, project, reduce.
        ("math", g.V().has_label('person').values('age').math('_ * 2'), L,
         "g.V().hasLabel('person').values('age').math('_ * 2')"),
        ("project", g.V().has_label('person').project('name', 'knows').by('name').by(__.out('knows').count()), L,
         "g.V().hasLabel('person').project('name', 'knows').by('name').by(out('knows').count())"),
        ("sum_mean_max", g.V().values('age').fold().project('s', 'm', 'x')
         .by(__.unfold().sum_()).by(__.unfold().mean()).by(__.unfold().max_()), L,
         "g.V().values('age').fold().project('s', 'm', 'x').by(unfold().sum()).by(unfold().mean()).by(unfold().max())"),
        ("sack_sum", g.with_sack(0).V().has_label('person').sack(Operator.sum_).by('age').sack(), L,
         "g.withSack(0).V().hasLabel('person').sack(sum).by('age').sack()"),
        # Limits and paths.
        ("limit", g.V().values('name').order().limit(2), L, "g.V().values('name').order().limit(2)"),
        ("range", g.V().values('name').order().range_(1, 3), L, "g.V().values('name').order().range(1, 3)"),
        ("tail", g.V().values('name').order().tail(2), L, "g.V().values('name').order().tail(2)"),
        ("is_lte", g.V().values('age').is_(P.lte(29)), L, "g.V().values('age').is(lte(29))"),
        ("path_by", g.V(1).out().out().path().by('name'), L, "g.V(1).out().out().path().by('name')"),
        ("simple_path", g.V(1).both().both().simple_path().path(), L,
         "g.V(1).both().both().simplePath().path()"),
        # Literals through inject and constant.
        ("inject_int", g.inject(1, -2 ** 31, 2 ** 31 - 1), L, "g.inject(1, -2147483648, 2147483647)"),
        ("inject_long", g.inject(long(1), long(-2 ** 63), long(2 ** 63 - 1)), L,
         "g.inject(1L, -9223372036854775808L, 9223372036854775807L)"),
        ("inject_short_byte", g.inject(short(-7), SingleByte(-128), SingleByte(127)), L,
         "g.inject(-7s, -128b, 127b)"),
        ("inject_double", g.inject(1.5, -0.0, 1e300, 0.1, 5e-324), L,
         "g.inject(1.5d, -0.0d, 1e300d, 0.1d, 4.9E-324d)"),
        ("inject_nan_inf", g.inject(float('nan'), float('inf'), float('-inf')), L,
         "g.inject(NaN, Infinity, -Infinity)"),
        ("inject_bigint", g.inject(bigint(2 ** 100), bigint(-5)), L,
         "g.inject(1267650600228229401496703205376n, -5n)"),
        ("inject_bigdecimal", g.inject(BigDecimal(2, 150), BigDecimal(0, -7)), L,
         "g.inject(1.50m, -7m)"),
        ("inject_string", g.inject('it\'s "q"\n\ttab\\ \u00fc \U0001F600', ''), L,
         r"""g.inject('it\'s "q"\n\ttab\\ \u00fc \uD83D\uDE00', "")"""),
        ("inject_bool_null", g.inject(True, False, None), L, "g.inject(true, false, null)"),
        ("inject_uuid", g.inject(uuid.UUID('6100808b-62f9-42b7-957e-ed66c30f40d1')), L,
         "g.inject(UUID('6100808b-62f9-42b7-957e-ed66c30f40d1'))"),
        ("inject_datetime", g.inject(datetime.datetime(2023, 8, 2, 10, 15, 30, tzinfo=UTC),
                                     datetime.datetime(2007, 12, 3, 10, 15, 30, 123000, tzinfo=PLUS_ONE)), L,
         "g.inject(datetime('2023-08-02T10:15:30Z'), datetime('2007-12-03T10:15:30.123+01:00'))"),
        ("inject_naive_date", g.inject(datetime.datetime(2016, 1, 1, 12, 30)), L,
         "g.inject(datetime('2016-01-01T12:30:00Z'))"),
        ("inject_list_set", g.inject([1, 'a', [long(2), 3.5]], {1, 2}), L,
         "g.inject([1, 'a', [2L, 3.5d]], {1, 2})"),
        ("inject_map", g.inject({'a': 1, 'b': [1, 2], 3: 'c', T.id: long(4)}), L,
         "g.inject(['a': 1, b: [1, 2], 3: 'c', (T.id): 4L])"),
        ("constant_map", g.V(1).constant({'x': long(1), 'y': {'z': None}}), L,
         "g.V(1).constant([x: 1L, y: [z: null]])"),
        ("as_number", g.inject('5').as_number(GType.INT), L, "g.inject('5').asNumber(GType.INT)"),
        ("binding", g.V().has('name', Bindings.of('n', 'marko')).values('age'), L,
         "g.V().has('name', 'marko').values('age')"),
        # Writes (each on a fresh graph; the graphs are compared afterwards).
        ("add_v", g.add_v('person').property('name', 'stephen').property('age', 33), I,
         "g.addV('person').property('name', 'stephen').property('age', 33).iterate()"),
        ("add_v_id", g.add_v('person').property(T.id, long(100)).property('name', 'x'), L,
         "g.addV('person').property(id, 100L).property('name', 'x')"),
        ("add_e_vertices",
         g.add_e('knows').from_(Vertex(long(1), 'person')).to(Vertex(6, 'person')).property('weight', 0.9), L,
         "g.V(1).as('a').V(6).addE('knows').from('a').property('weight', 0.9d)"),
        ("add_e_to_vertex", g.V(4).add_e('likes').to(Vertex(long(3), 'software')), I,
         "g.V(4).addE('likes').to(__.V(3)).iterate()"),
        ("property_single", g.V(1).property(Cardinality.single, 'age', 30), I,
         "g.V(1).property(single, 'age', 30).iterate()"),
        ("drop_property", g.V(1).properties('age').drop(), I, "g.V(1).properties('age').drop().iterate()"),
        ("drop_vertex", g.V().has('name', 'marko').drop(), I, "g.V().has('name', 'marko').drop().iterate()"),
        ("discard_read", g.V().out(), I, "g.V().out().iterate()"),
        ("merge_v_create", g.merge_v({T.label: 'person', 'name': 'zed'}).option(Merge.on_create, {'age': 50}), L,
         "g.mergeV([(T.label): 'person', name: 'zed']).option(onCreate, [age: 50])"),
        ("merge_v_match", g.merge_v({'name': 'marko'}).option(Merge.on_match, {'age': 30}), L,
         "g.mergeV([name: 'marko']).option(onMatch, [age: 30])"),
        ("merge_v_cardinality",
         g.merge_v({'name': 'vadas'}).option(Merge.on_match, {'age': CardinalityValue.single(28)}), L,
         "g.mergeV([name: 'vadas']).option(onMatch, [age: single(28)])"),
        ("merge_e", g.merge_e({T.label: 'knows', Direction.OUT: 2, Direction.IN: 3}), L,
         "g.mergeE([(T.label): 'knows', (Direction.OUT): 2, (Direction.IN): 3])"),
        ("merge_e_vertices",
         g.merge_e({T.label: 'knows', Direction.OUT: Vertex(long(1)), Direction.IN: Vertex(long(2))}), L,
         "g.mergeE([(T.label): 'knows', (OUT): 1, (IN): 2])"),
        # Source instructions.
        ("with_side_effect", g.with_side_effect('greeting', 'hello').V(1).select('greeting'), L,
         "g.withSideEffect('greeting', 'hello').V(1).select('greeting')"),
        ("with_sack", g.with_sack(1.0).V(1).out().sack(), L, "g.withSack(1.0d).V(1).out().sack()"),
        ("subgraph_vertices",
         g.with_strategies(SubgraphStrategy(vertices=__.has_label('person'))).V().values('name'), L,
         "g.withStrategies(new SubgraphStrategy(vertices: hasLabel('person'))).V().values('name')"),
        ("subgraph_edges",
         g.with_strategies(SubgraphStrategy(edges=__.has('weight', P.gt(0.5)))).V(1).out_e().in_v().values('name'), L,
         "g.withStrategies(new SubgraphStrategy(edges: has('weight', gt(0.5d)))).V(1).outE().inV().values('name')"),
        ("partition_write",
         g.with_strategies(PartitionStrategy(partition_key='_p', write_partition='a', read_partitions=['a']))
         .add_v('person').property('name', 'in_a'), L,
         "g.withStrategies(new PartitionStrategy(partitionKey: '_p', writePartition: 'a', readPartitions: ['a'])).addV('person').property('name', 'in_a')"),
        ("partition_read",
         g.with_strategies(PartitionStrategy(partition_key='_p', write_partition='a', read_partitions=['a']))
         .V().count(), L,
         "g.withStrategies(new PartitionStrategy(partitionKey: '_p', writePartition: 'a', readPartitions: ['a'])).V().count()"),
        ("read_only", g.with_strategies(ReadOnlyStrategy()).V().count(), L,
         "g.withStrategies(ReadOnlyStrategy).V().count()"),
        ("read_only_refuses", g.with_strategies(ReadOnlyStrategy()).add_v('person'), L,
         "g.withStrategies(ReadOnlyStrategy).addV('person')"),
        ("without_strategies",
         g.with_strategies(ReadOnlyStrategy()).without_strategies(ReadOnlyStrategy).add_v('person'), L,
         "g.withStrategies(ReadOnlyStrategy).withoutStrategies(ReadOnlyStrategy).addV('person')"),
        ("with_option", g.with_('evaluationTimeout', 500).V().count(), L,
         "g.with('evaluationTimeout', 500).V().count()"),
    ]


def main():
    writer = GraphBinaryWriter()
    out = sys.stdout
    out.write("# Made by make_bytecode.py with gremlinpython 3.8.2; regenerate with\n")
    out.write("#   /tmp/gp-venv/bin/python make_bytecode.py > bytecode.txt\n")
    out.write("# name<TAB>GraphBinary hex of the bytecode<TAB>the same traversal in gremlin-lang\n")
    seen = set()
    for name, traversal, end, gremlin in cases():
        assert name not in seen, name
        seen.add(name)
        assert '\t' not in gremlin and '\n' not in gremlin, name
        if end == 'iterate':
            traversal.iterate()
        else:
            traversal.toList()
        data = writer.write_object(traversal.bytecode)
        out.write(f"{name}\t{bytes(data).hex()}\t{gremlin}\n")


if __name__ == "__main__":
    main()
