#!/usr/bin/env python3
"""The property benchmark on kuzu (and, through `Cypher`, on its fork
real-ladybug): embedded property-graph databases queried in Cypher.

The database is in memory (`Database(":memory:")`), one node table per
vertex label (`id INT64` primary key and the typed properties) and one
relationship table per edge label with a FROM/TO pair per pair of vertex
labels it joins. Every operation is one auto-committed Cypher statement
on one Connection (default threads).

kuzu 0.11.3 plans `MATCH (v:L {id: $id})` with a parameter as a scan and
filter of the whole table, and the same match with the id written into
the query as a primary-key look-up (EXPLAIN: SCAN_NODE_TABLE + FILTER vs
PRIMARY_KEY_SCAN_NODE_TABLE; 560 vs 4,500 look-ups/s on gd-x100's 58,400
songs): so for kuzu the driver writes vertex ids into the query text.
ladybug plans the parameter form as a primary-key look-up and caches it
(22,000/s, literals 4,000/s): so for ladybug ids are parameters. Values
other than ids are always parameters.

Neither has an index on a property other than the primary key:
find_indexed is the primary-key look-up of the same vertices by id (the
only index they have), where stratagraph looks the name up in its index.
"""
import importlib.metadata
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import propscommon as c  # noqa: E402

TYPES = {"string": "STRING", "int": "INT32", "long": "INT64", "double": "DOUBLE",
         "float": "FLOAT", "boolean": "BOOLEAN", "short": "INT16", "byte": "INT8"}


class Cypher(c.Driver):
    def __init__(self, mod, name, inline_ids):
        self.mod, self.name, self.inline = mod, name, inline_ids
        self.version = importlib.metadata.version(name)
        how = ("ids written into the query text (a parameter makes kuzu 0.11.3 scan the table)"
               if inline_ids else "ids as parameters (planned as primary-key look-ups)")
        self.notes = [
            'store: Database(":memory:"), one Connection; a node table per vertex label '
            "(id INT64 PRIMARY KEY, typed properties), a rel table per edge label with a FROM/TO "
            "pair per pair of vertex labels",
            "load: CREATE NODE/REL TABLE (in the timing), then COPY ... FROM each CSV file "
            "(header=true; from=/to= for rel tables of several pairs)",
            "every operation: one auto-committed Cypher statement; " + how,
            "read_properties: MATCH (v:L {id}) RETURN v; find_scan: MATCH (v:L) WHERE v.name = $x RETURN v.id",
            "find_indexed: no index on a property other than the primary key; the row is the "
            "primary-key look-up MATCH (v:L {id}) RETURN v.id of the same vertices",
            "hop1: MATCH (a:L {id})-[:E]->(b) RETURN b.id; hop2: ...-[:E]->()-[:E]->(b) RETURN DISTINCT b.id",
            "add_property: ALTER TABLE L ADD addedR INT64 on every node table (untimed, before each run), "
            "then SET v.addedR = $x; remove_property: SET v.addedR = NULL",
        ]

    def _q(self, template, label, v, **fmt):
        """The statement and parameters for vertex v of table label."""
        if self.inline:
            return template.format(L=label, id=int(v), **fmt), {}
        return template.format(L=label, id="$id", **fmt), {"id": int(v)}

    def load(self, meta, folder, budget):
        db = self.mod.Database(":memory:")
        conn = self.mod.Connection(db)
        for lab, props in meta["vertex_schema"].items():
            cols = "".join(f", {k} {TYPES[t]}" for k, t in props)
            conn.execute(f"CREATE NODE TABLE {lab}(id INT64{cols}, PRIMARY KEY(id))")
        pairs = {}
        for lab, sl, dl, _, _ in meta["edge_files"]:
            pairs.setdefault(lab, []).append((sl, dl))
        for lab, ps in pairs.items():
            ends = ", ".join(f"FROM {s} TO {d}" for s, d in ps)
            cols = "".join(f", {k} {TYPES[t]}" for k, t in meta["edge_schema"][lab])
            conn.execute(f"CREATE REL TABLE {lab}({ends}{cols})")
        for lab, path, _ in meta["vertex_files"]:
            conn.execute(f"COPY {lab} FROM '{os.path.join(folder, path)}' (header=true)")
        for lab, sl, dl, path, _ in meta["edge_files"]:
            opt = f", from='{sl}', to='{dl}'" if len(pairs[lab]) > 1 else ""
            conn.execute(f"COPY {lab} FROM '{os.path.join(folder, path)}' (header=true{opt})")
        return {"db": db, "conn": conn}

    def close(self, g):
        g["conn"].close()
        g["db"].close()

    def counts(self, g, meta):
        conn = g["conn"]
        nv = conn.execute("MATCH (v) RETURN count(v)").get_next()[0]
        ne = conn.execute("MATCH ()-[e]->() RETURN count(e)").get_next()[0]
        return nv, ne

    def read_properties(self, g, v, label):
        q, p = self._q("MATCH (v:{L} {{id: {id}}}) RETURN v", label, v)
        return g["conn"].execute(q, p).get_next()[0]

    def find(self, g, label, key, value, vid):
        r = g["conn"].execute(f"MATCH (v:{label}) WHERE v.{key} = $x RETURN v.id", {"x": value})
        return [row[0] for row in r.get_all()]

    def create_index(self, g, labels, key):
        raise c.Skip("n/a: no index on a property but the primary key (built by the load); "
                     "find_indexed uses the primary key")

    def find_indexed(self, g, label, key, value, vid):
        q, p = self._q("MATCH (v:{L} {{id: {id}}}) RETURN v.id", label, vid)
        return [row[0] for row in g["conn"].execute(q, p).get_all()]

    def hop1(self, g, v, label, elabel):
        q, p = self._q("MATCH (a:{L} {{id: {id}}})-[:{E}]->(b) RETURN b.id", label, v, E=elabel)
        return [row[0] for row in g["conn"].execute(q, p).get_all()]

    def hop2(self, g, v, label, elabel):
        q, p = self._q("MATCH (a:{L} {{id: {id}}})-[:{E}]->()-[:{E}]->(b) RETURN DISTINCT b.id",
                       label, v, E=elabel)
        return [row[0] for row in g["conn"].execute(q, p).get_all()]

    def add_vertex(self, g, v, label, props):
        sets = "".join(f", {k}: ${k}" for k in props)
        q, p = self._q("CREATE (:{L} {{id: {id}" + sets.replace("{", "{{").replace("}", "}}") + "}})",
                       label, v)
        p.update(props)
        g["conn"].execute(q, p)

    def new_key(self, g, labels, key):
        for lab in labels:
            g["conn"].execute(f"ALTER TABLE {lab} ADD {key} INT64")

    def set_property(self, g, v, label, key, value):
        q, p = self._q("MATCH (v:{L} {{id: {id}}}) SET v.{K} = $x", label, v, K=key)
        p["x"] = value
        g["conn"].execute(q, p)

    def remove_property(self, g, v, label, key):
        q, p = self._q("MATCH (v:{L} {{id: {id}}}) SET v.{K} = NULL", label, v, K=key)
        g["conn"].execute(q, p)


def main(module_name, inline_ids):
    warnings.simplefilter("ignore", DeprecationWarning)
    mod = __import__(module_name)
    a = c.parse_args(module_name)
    c.run(Cypher(mod, module_name, inline_ids), a)


if __name__ == "__main__":
    main("kuzu", inline_ids=True)
